"""srtctl's own recipes (schema 1, with `base`/`override_*`/`zip_override_*` variants) load and normalise;
rendering them either succeeds or fails with a clean SrtError, never another exception.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from srt_tui.core.api import prepare_job
from srt_tui.core.errors import SrtError
from srt_tui.core.profile import LoadedProfile, load_profile
from srt_tui.core.recipe import Recipe, list_variants, load_recipe
from tests.core.core_helpers import REPO, need, raw_yaml

REFERENCE = (REPO / ".." / "shared" / "reference" / "srtctl-recipes").resolve()


@pytest.fixture(scope="module")
def reference_files() -> list[Path]:
    need(REFERENCE.is_dir(), f"srtctl reference recipes not found at {REFERENCE}")
    files = sorted(REFERENCE.rglob("*.yaml"))
    assert len(files) >= 220, f"expected srtctl's 220 recipes, found {len(files)}"
    return files


@pytest.fixture(scope="module")
def loaded(reference_files: list[Path]) -> list[tuple[str, Recipe, Any]]:
    """(spec, recipe, source) of every recipe and every variant; a load failure fails the test."""
    out = []
    failures = []
    for path in reference_files:
        variants = list_variants(path)
        for spec in [f"{path}:{v}" for v in variants] or [str(path)]:
            try:
                recipe, source = load_recipe(spec)
            except SrtError as exc:
                failures.append(f"{spec}: {exc}")
                continue
            out.append((spec, recipe, source))
    assert not failures, "srtctl recipes that do not load:\n" + "\n".join(failures[:20])
    return out


def test_every_file_and_variant_loads(reference_files: list[Path], loaded: list[tuple[str, Recipe, Any]]) -> None:
    with_variants = [p for p in reference_files if "base" in raw_yaml(p)]
    assert with_variants, "the reference set has override files"
    specs = {spec for spec, _, _ in loaded}
    for path in with_variants:
        data = raw_yaml(path)
        overrides = [k for k in data if k.startswith("override_")]
        zips = [k for k in data if k.startswith("zip_override_")]
        assert f"{path}:base" in specs
        for key in overrides:
            assert f"{path}:{key}" in specs
        for key in zips:
            assert f"{path}:{key}[0]" in specs, f"zip group {key} produced no variants"
    assert len(loaded) > len(reference_files), "variants must add recipes"


def test_variant_names_are_unique_per_file(loaded: list[tuple[str, Recipe, Any]]) -> None:
    names: dict[str, Counter[str]] = {}
    for spec, recipe, _ in loaded:
        names.setdefault(spec.rsplit(":", 1)[0], Counter())[recipe.name] += 1
    dupes = {f: [n for n, c in counts.items() if c > 1] for f, counts in names.items() if max(counts.values()) > 1}
    assert not dupes, f"variants sharing a job name: {dupes}"


_MODES = {"prefill": "prefill", "decode": "decode", "agg": "aggregated"}


def test_plain_schema1_recipes_normalise_faithfully(loaded: list[tuple[str, Recipe, Any]]) -> None:
    """Compare the normalised recipe against the raw schema 1 YAML, read independently."""
    checked = 0
    for spec, recipe, _ in loaded:
        if ".yaml:" in spec:
            continue
        raw = raw_yaml(Path(spec))
        res, backend = raw.get("resources") or {}, raw.get("backend") or {}
        engine = backend.get("type", "sglang")
        assert recipe.engine.type == engine, spec
        assert recipe.resources.gpus_per_node == res.get("gpus_per_node", 4), spec
        config = backend.get(f"{engine}_config") or {}
        for role, mode in _MODES.items():
            workers, nodes = res.get(f"{role}_workers"), res.get(f"{role}_nodes")
            if workers is None and nodes is None:
                assert role not in recipe.roles or recipe.roles[role].workers == 0, spec
                continue
            spec_role = recipe.roles.get(role)  # type: ignore[call-overload]
            if spec_role is None:
                assert workers == 0, spec
                continue
            assert spec_role.workers == (1 if workers is None else workers), spec
            if nodes:
                assert spec_role.nodes == nodes, spec
            elif nodes == 0 and role == "decode":
                assert spec_role.nodes == "colocate", spec
            if f"gpus_per_{role}" in res:
                assert spec_role.gpus == res[f"gpus_per_{role}"], spec
            assert spec_role.args == (config.get(mode) or {}), f"{spec}: {role} args"
            env = backend.get(f"{mode}_environment") or {}
            assert spec_role.env == {k: "" if v is None else str(v) for k, v in env.items()}, f"{spec}: {role} env"
        checked += 1
    assert checked >= 200


def _profile_for(recipe: Recipe, base: LoadedProfile) -> LoadedProfile:
    """A profile that knows the recipe's aliases, so rendering gets past alias lookup into validation."""
    update: dict[str, Any] = {"model_paths": {recipe.model.path: "/models/m"}}
    if recipe.model.container:
        update["containers"] = {recipe.model.container: "/containers/c.sqsh"}
    return LoadedProfile("srtctl-test", None, base.profile.model_copy(update=update), "file")


def test_rendering_succeeds_or_fails_cleanly(loaded: list[tuple[str, Recipe, Any]]) -> None:
    base = load_profile("nvidia-gb200")
    shipped = load_profile("nvidia-h100")
    outcomes: Counter[str] = Counter()
    unexpected = []
    for spec, recipe, source in loaded:
        for profile in (_profile_for(recipe, base), shipped):
            try:
                prep = prepare_job(recipe, profile, source)
            except SrtError as exc:
                assert exc.problems and all(p.message for p in exc.problems), spec
                outcomes["clean error"] += 1
            except Exception as exc:  # noqa: BLE001 - the point: nothing but SrtError may escape
                unexpected.append(f"{spec}: {type(exc).__name__}: {exc}")
            else:
                assert prep.script.startswith("#!/bin/bash") and prep.plan.workers, spec
                outcomes["rendered"] += 1
    assert not unexpected, "rendering raised something other than SrtError:\n" + "\n".join(unexpected[:20])
    assert outcomes["rendered"] > 0 and outcomes["clean error"] > 0, outcomes
