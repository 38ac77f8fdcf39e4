"""srtctl's whole recipe library (560 files, schema 1, override variants, a sweep) as an operator brings it.

Every file and variant loads; rendering succeeds or fails with a clean SrtError; with a profile that
defines the library's aliases, srt-tui accepts what srtctl accepts (≥ 98%), each refusal names why the
job could not work, and no key a recipe sets is accepted and then left unread.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from srt_tui.core.api import prepare_job
from srt_tui.core.errors import SrtError
from srt_tui.core.spec import recipe as recipe_module
from srt_tui.core.spec.profile import GpuExporter, HealthCheck, LoadedProfile, load_profile
from srt_tui.core.spec.recipe import Recipe, list_variants, load_recipe
from tests.core.core_helpers import REPO, need, raw_yaml

#: the project's shared folder beside the checkout (SRT_SHARED_DIR points elsewhere, e.g. from a worktree)
SHARED = Path(os.environ.get("SRT_SHARED_DIR") or REPO / ".." / "shared")
REFERENCE = (SHARED / "reference" / "srtctl-recipes-all").resolve()


#: srtctl's own verdict on its library, measured by running srtctl c88ef73's loader (override expansion,
#: sweep expansion, SrtConfig validation) over every file: it accepts 682 jobs and refuses this one file
SRTCTL_ACCEPTS = 682
SRTCTL_REFUSES = {"examples/enable-profiling.yaml": "profiling.isl/osl/concurrency: Unknown field."}


@pytest.fixture(scope="module")
def reference_files() -> list[Path]:
    need(REFERENCE.is_dir(), f"srtctl reference recipes not found at {REFERENCE}")
    files = sorted(REFERENCE.rglob("*.yaml"))
    assert len(files) >= 560, f"expected srtctl's 560 recipe files, found {len(files)}"
    return files


@pytest.fixture(scope="module")
def loaded(reference_files: list[Path]) -> list[tuple[str, Recipe, Any]]:
    """(spec, recipe, source) of every recipe and every variant; a file srtctl loads must load here too."""
    out = []
    failures = []
    for path in reference_files:
        variants = list_variants(path)
        for spec in [f"{path}:{v}" for v in variants] or [str(path)]:
            try:
                recipe, source = load_recipe(spec)
            except SrtError as exc:
                if str(path.relative_to(REFERENCE)) not in SRTCTL_REFUSES:
                    failures.append(f"{spec}: {exc}")
                continue
            out.append((spec, recipe, source))
    assert not failures, "srtctl recipes that srtctl loads and srt-tui does not:\n" + "\n".join(failures[:20])
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
    """The operator's srtslurm.yaml: it defines the recipe's aliases and where srtctl's checkout is."""
    update: dict[str, Any] = {"model_paths": {recipe.model.path: "/models/m"}, "srtctl_root": "/opt/srt-slurm"}
    if recipe.model.container:
        update["containers"] = {recipe.model.container: "/containers/c.sqsh"}
    return LoadedProfile("srtctl-test", None, base.profile.model_copy(update=update), "file")


def _jobs(loaded: list[tuple[str, Recipe, Any]]) -> list[tuple[str, Recipe, Any]]:
    """What `srtctl apply -f FILE` submits: every override variant but `base` (base alone if it has none)."""
    per_file: dict[str, list[str]] = {}
    for spec, _, _ in loaded:
        per_file.setdefault(spec.split(".yaml:", 1)[0], []).append(spec)
    lone = {specs[0] for specs in per_file.values() if len(specs) == 1}
    return [job for job in loaded if not job[0].endswith(":base") or job[0] in lone]


@pytest.fixture(scope="module")
def outcomes(loaded: list[tuple[str, Recipe, Any]]) -> dict[str, Any]:
    """Each job prepared with the operator's profile (and a stock one that lacks the aliases)."""
    base, stock = load_profile("nvidia-gb200"), load_profile("nvidia-h100")
    accepted, refused, unexpected, stock_errors = [], [], [], []
    with _key_tracker() as reads:
        for spec, recipe, source in _jobs(loaded):
            reads.clear()
            try:
                prep = prepare_job(recipe, _profile_for(recipe, base), source)
            except SrtError as exc:
                assert exc.problems and all(p.message and p.field for p in exc.problems), spec
                refused.append((spec, exc.problems[0]))
            except Exception as exc:  # noqa: BLE001 - the point: nothing but SrtError may escape
                unexpected.append(f"{spec}: {type(exc).__name__}: {exc}")
            else:
                assert prep.script.startswith("#!/bin/bash") and prep.plan.workers, spec
                accepted.append((spec, recipe, _unread(recipe, set(reads))))
                try:
                    prepare_job(recipe, stock, source)
                except SrtError as exc:
                    stock_errors.append(f"{spec}: {exc}")
    return {"accepted": accepted, "refused": refused, "unexpected": unexpected, "stock": stock_errors}


def test_rendering_succeeds_or_fails_cleanly(outcomes: dict[str, Any]) -> None:
    assert not outcomes["unexpected"], "rendering raised something other than SrtError:\n" + "\n".join(
        outcomes["unexpected"][:20]
    )


def test_srt_tui_accepts_what_srtctl_accepts(outcomes: dict[str, Any]) -> None:
    accepted, refused = outcomes["accepted"], outcomes["refused"]
    total = len(accepted) + len(refused)
    reasons = Counter(f"{p.field}: {re.sub(r'[0-9]+', 'N', p.message)}" for _, p in refused)
    report = "\n".join(f"  {n:4d}  {reason}" for reason, n in reasons.most_common())
    print(f"\nsrtctl-recipes-all: {len(accepted)}/{total} jobs accepted; refused by reason:\n{report}")
    assert total >= SRTCTL_ACCEPTS, f"srtctl submits {SRTCTL_ACCEPTS} jobs from this library; {total} were tried"
    assert len(accepted) >= 0.98 * SRTCTL_ACCEPTS, f"{len(accepted)}/{SRTCTL_ACCEPTS} accepted:\n{report}"


def test_no_accepted_recipe_key_goes_unread(outcomes: dict[str, Any]) -> None:
    """A key srt-tui accepts must reach the plan: honoured, or refused with the reason, never dropped."""
    unread = Counter(key for _, _, keys in outcomes["accepted"] for key in keys)
    example = {key: spec for spec, _, keys in outcomes["accepted"] for key in keys}
    assert not unread, "accepted but never read:\n" + "\n".join(
        f"  {n:4d}  {key}  e.g. {example[key].replace(str(REFERENCE), '')}" for key, n in unread.most_common()
    )


def test_a_stock_profile_without_the_aliases_still_renders(outcomes: dict[str, Any]) -> None:
    """srtctl uses an alias the profile lacks as a literal path; srt-tui renders and warns instead of refusing."""
    aliases = [e for e in outcomes["stock"] if "alias" in e]
    assert not aliases, "\n".join(aliases[:10])


@contextmanager
def _key_tracker() -> Iterator[set[tuple[int, str]]]:
    """Record which fields of the recipe's models are read while a job is prepared."""
    reads: set[tuple[int, str]] = set()
    models = {c for c in vars(recipe_module).values() if isinstance(c, type) and issubclass(c, BaseModel)}
    models |= {HealthCheck, GpuExporter}
    saved = {c: c.__dict__.get("__getattribute__") for c in models}

    def tracking(self: BaseModel, name: str) -> Any:
        if name in type(self).model_fields:
            reads.add((id(self), name))
        return object.__getattribute__(self, name)

    for c in models:
        c.__getattribute__ = tracking  # type: ignore[method-assign,assignment]
    try:
        yield reads
    finally:
        for c, old in saved.items():
            if old is None:
                del c.__getattribute__
            else:
                c.__getattribute__ = old  # type: ignore[method-assign]


def _unread(model: BaseModel, reads: set[tuple[int, str]], path: str = "") -> list[str]:
    """Keys the recipe set (at any depth of its models) that nothing read."""
    out = []
    for name in sorted(model.model_fields_set):
        value = object.__getattribute__(model, name)
        where = f"{path}.{name}" if path else name
        if (id(model), name) not in reads:
            out.append(where)
        children = value.values() if isinstance(value, dict) else [value]
        for child in children:
            if isinstance(child, BaseModel):
                out += _unread(child, reads, where)
    return out


def test_every_benchmark_type_of_the_library_runs_on_the_test_slurm_or_is_refused(
    loaded: list[tuple[str, Recipe, Any]],
) -> None:
    """Issue 12's acceptance: each type srtctl's library uses runs in a local-Slurm mocker test (their list is
    tests/e2e/test_slurm_benchmarks.py's) or validation refuses it, naming benchmark.type."""
    from srt_tui.core.benchmark import benchmark_problems
    from srt_tui.core.engines import get_engine
    from srt_tui.core.frontends.routers import get_router
    from srt_tui.core.spec.recipe import BenchmarkSpec
    from tests.e2e.test_slurm_benchmarks import E2E_TYPES

    used = {r.benchmark.type for _, r, _ in loaded if r.benchmark is not None}
    assert {"sa-bench", "gsm8k", "gpqa", "mooncake-router", "custom", "manual", "trace-replay"} <= used
    untested = {}
    for btype in sorted(used - E2E_TYPES):
        spec = BenchmarkSpec.model_validate({"type": btype})
        problems = benchmark_problems(spec, get_engine("sglang"), get_router("sglang-router"), True)
        untested[btype] = [p.message for p in problems if p.field == "benchmark.type" and p.severity == "error"]
    assert untested == {"gsm8k-bench": ["unknown benchmark type `gsm8k-bench` (srtctl has no runner for it)"]}
