"""The headless face of the core through the real `srt-tui` console script: profiles, schema, dry-run."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from tests.core.core_helpers import PROFILES_DIR, RECIPES_DIR, cli, raw_yaml, shipped_recipes


def test_profiles_lists_every_shipped_profile(tmp_path: Path) -> None:
    proc = cli("profiles", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    header, *rows = proc.stdout.splitlines()
    assert header.split()[:3] == ["NAME", "SOURCE", "GPUS"]
    by_name = {r.split()[0]: r.split() for r in rows}
    for path in PROFILES_DIR.glob("*.yaml"):
        data = raw_yaml(path)
        row = by_name[path.stem]
        assert row[1] == "shipped"
        assert row[2] == str(data["gpus_per_node"])
        assert row[3] == data.get("visible_devices_env", "CUDA_VISIBLE_DEVICES")


def test_profiles_json_matches_the_files(tmp_path: Path) -> None:
    proc = cli("profiles", "list", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = {r["name"]: r for r in json.loads(proc.stdout)}
    assert set(rows) == {p.stem for p in PROFILES_DIR.glob("*.yaml")}
    for name, row in rows.items():
        data = raw_yaml(PROFILES_DIR / f"{name}.yaml")
        assert row["container_runtime"] == data.get("container_runtime", "pyxis")
        gres = (data.get("default_sbatch_directives") or {}).get("gres")
        uses_gpn = data.get("use_gpus_per_node_directive", True)
        assert row["gpu_request"] == ("--gpus-per-node" if uses_gpn else f"gres {gres}")


def _contains(shown: object, source: object) -> bool:
    """`shown` says everything `source` says (it may add defaults such as `env: null`)."""
    if isinstance(source, dict):
        return isinstance(shown, dict) and all(k in shown and _contains(shown[k], v) for k, v in source.items())
    return shown == source


def test_profiles_show_amd_mi355x(tmp_path: Path) -> None:
    proc = cli("profiles", "show", "amd-mi355x", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    first, _, body = proc.stdout.partition("\n")
    assert first.startswith("# amd-mi355x (shipped: ") and first.endswith("amd-mi355x.yaml)")
    shown = yaml.safe_load(body)
    source = raw_yaml(PROFILES_DIR / "amd-mi355x.yaml")
    for key, value in source.items():
        assert _contains(shown[key], value), f"`profiles show` changed {key}: {shown[key]!r}"
    assert shown["visible_devices_env"] == "ROCR_VISIBLE_DEVICES"
    assert shown["use_gpus_per_node_directive"] is False
    assert shown["default_sbatch_directives"] == {"gres": "gpu:8"}


@pytest.mark.parametrize("kind", ["recipe", "profile"])
def test_schema_is_valid_json_schema(tmp_path: Path, kind: str) -> None:
    proc = cli("schema", kind, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    schema = json.loads(proc.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["additionalProperties"] is False, "unknown keys must be errors in editors too"
    validator = jsonschema.Draft202012Validator(schema)
    inputs = shipped_recipes() if kind == "recipe" else sorted(PROFILES_DIR.glob("*.yaml"))
    for path in inputs:
        errors = [e.message for e in validator.iter_errors(raw_yaml(path))]
        assert not errors, f"{path.name} does not validate against `srt-tui schema {kind}`: {errors}"
    if kind == "recipe":
        assert {"name", "model", "engine", "roles", "frontend", "benchmark"} <= set(schema["properties"])
        bad = raw_yaml(shipped_recipes()[0]) | {"enviroment": {}}
        assert list(validator.iter_errors(bad)), "the schema must reject unknown keys"
    else:
        assert {"visible_devices_env", "default_gpu_exporter", "container_runtime"} <= set(schema["properties"])


def test_dry_run_json_has_the_plan_contract(tmp_path: Path) -> None:
    recipe = RECIPES_DIR / "nvidia" / "h100-2p1d-sglang.yaml"
    proc = cli("dry-run", "-f", str(recipe), "-p", "nvidia-h100", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)
    assert plan["nodes"] == 2 and plan["gpus_per_node"] == 8
    assert plan["visible_devices_env"] == "CUDA_VISIBLE_DEVICES"
    assert len(plan["processes"]) == 3
    for p in plan["processes"]:
        assert {"name", "role", "node_index", "gpus", "visible_devices", "port", "command", "env"} <= set(p)
        assert isinstance(p["command"], list) and all(isinstance(a, str) for a in p["command"])
        assert isinstance(p["gpus"], list) and isinstance(p["env"], dict)
        assert p["visible_devices"] is None or isinstance(p["visible_devices"], str)
    masks = [p["visible_devices"] for p in plan["processes"]]
    assert masks == ["0,1,2,3", "4,5,6,7", None]
    router = plan["router"]
    assert isinstance(router["command"], list) and router["command"]
    assert (router["expected_prefill"], router["expected_decode"]) == (2, 1)


def test_dry_run_writes_the_four_files_matching_stdout(tmp_path: Path) -> None:
    recipe = RECIPES_DIR / "amd" / "mi355x-2p1d-sglang-mori.yaml"
    out = tmp_path / "out"
    text = cli("dry-run", "-f", str(recipe), "-p", "amd-mi355x", "-o", str(out), cwd=tmp_path)
    as_json = cli("dry-run", "-f", str(recipe), "-p", "amd-mi355x", "--json", cwd=tmp_path)
    assert text.returncode == 0 and as_json.returncode == 0, text.stderr + as_json.stderr
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == [
        "plan.json",
        "profile.yaml",
        "recipe.yaml",
        "sbatch.sh",
    ]
    assert (out / "plan.json").read_text() == as_json.stdout
    script = (out / "sbatch.sh").read_text()
    assert script.rstrip("\n") in text.stdout, "the dry-run shows the exact script it writes"
    assert (out / "sbatch.sh").stat().st_mode & 0o111
    resolved = yaml.safe_load((out / "recipe.yaml").read_text())
    assert resolved["name"] == "mi355x-2p1d-sglang-mori"
    again = cli("dry-run", "-f", str(out / "recipe.yaml"), "-p", "amd-mi355x", "--json", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["processes"] == json.loads(as_json.stdout)["processes"], "recipe.yaml round-trips"
    profile = yaml.safe_load((out / "profile.yaml").read_text())
    assert profile["visible_devices_env"] == "ROCR_VISIBLE_DEVICES"


def test_dry_run_text_shows_grid_masks_and_ports(tmp_path: Path) -> None:
    recipe = RECIPES_DIR / "mocker" / "mocker-colocated.yaml"
    proc = cli("dry-run", "-f", str(recipe), "-p", "local-rocr", "--no-script", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "ROCR_VISIBLE_DEVICES=0,1,2,3" in proc.stdout and "ROCR_VISIBLE_DEVICES=4,5,6,7" in proc.stdout
    assert "#!/bin/bash" not in proc.stdout
    grid = [line for line in proc.stdout.splitlines() if line.startswith("node0 ")]
    assert len(grid) == 1 and grid[0].split()[1:9] == ["P0"] * 4 + ["D0"] * 4
