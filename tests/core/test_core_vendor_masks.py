"""The profile decides GPU visibility and the GPU request: masks only for GPU subsets, in the profile's
variable; AMD profiles request GRES and never `--gpus-per-node`; vLLM takes `--device-ids` unless
`set_visible_devices` asks for the mask.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from srt_tui.core.api import Prepared, prepare
from tests.core.core_helpers import (
    MASK_VARIABLES,
    RECIPES_DIR,
    flag_value,
    mask_variable,
    pair_id,
    profile_data,
    shipped_pairs,
    write_yaml,
)

PAIRS = shipped_pairs()
AMD = ["amd-mi300x", "amd-mi355x"]
NVIDIA = ["nvidia-h100", "nvidia-h200", "nvidia-gb200"]


def _step_lines(script: str) -> dict[str, str]:
    """Worker name -> the command line of its `srt_step` call in the script."""
    out: dict[str, str] = {}
    lines = script.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"srt_step (\S+) (\S+) ", line)
        if m:
            out[m.group(1)] = lines[i + 1]
    return out


def _sbatch(script: str) -> list[str]:
    return [line for line in script.splitlines() if line.startswith("#SBATCH ")]


@pytest.mark.parametrize(("recipe", "profile"), PAIRS, ids=[pair_id(r, p) for r, p in PAIRS])
def test_masks_follow_the_profile_and_the_subset_rule(recipe: Path, profile: str) -> None:
    prep = prepare(recipe, profile)
    var = mask_variable(profile)
    gpn = int(profile_data(profile)["gpus_per_node"])
    takes_mask = {"vllm": bool(prep.job.recipe.engine.set_visible_devices)}.get(prep.plan.engine, True)
    assert prep.plan.visible_devices_env == var
    steps = _step_lines(prep.script)
    for p in prep.plan.workers:
        env = dict(p.env)
        others = [v for v in MASK_VARIABLES if v != var]
        assert not any(v in env for v in others), f"{p.name} carries another profile's mask variable"
        subset = len(p.gpus) < gpn
        if subset and takes_mask:
            mask = ",".join(str(g) for g in p.gpus)
            assert p.visible_devices == mask
            assert env[var] == mask
            assert f" {var}={mask} " in steps[p.name]
        else:
            assert p.visible_devices is None
            assert var not in env
            assert f"{var}=" not in steps[p.name]
    for other in (v for v in MASK_VARIABLES if v != var):
        assert f"{other}=" not in "\n".join(steps.values())


@pytest.mark.parametrize("profile", AMD)
def test_amd_header_requests_gres_not_gpus_per_node(profile: str) -> None:
    for recipe, declared in PAIRS:
        if declared != profile:
            continue
        header = _sbatch(prepare(recipe, profile).script)
        assert "#SBATCH --gres=gpu:8" in header
        assert not any(line.startswith("#SBATCH --gpus-per-node") for line in header)
        assert not any(line.startswith("#SBATCH --segment") for line in header)


@pytest.mark.parametrize("profile", NVIDIA)
def test_nvidia_header_keeps_gpus_per_node(profile: str) -> None:
    gpn = profile_data(profile)["gpus_per_node"]
    found = False
    for recipe, declared in PAIRS:
        if declared != profile:
            continue
        found = True
        prep = prepare(recipe, profile)
        header = _sbatch(prep.script)
        assert f"#SBATCH --gpus-per-node={gpn}" in header
        assert not any(line.startswith("#SBATCH --gres") for line in header)
        assert prep.plan.visible_devices_env == "CUDA_VISIBLE_DEVICES"
    assert found, f"no shipped recipe declares {profile}"


def test_gb200_header_has_segment() -> None:
    prep = prepare(RECIPES_DIR / "nvidia" / "gb200-1p1d-sglang.yaml", "nvidia-gb200")
    assert f"#SBATCH --segment={prep.plan.nodes}" in _sbatch(prep.script)


def _recipe(tmp_path: Path, name: str, engine: Any, prefill_gpus: int, frontend: str, **extra: Any) -> Path:
    tp = "tensor-parallel-size" if (engine if isinstance(engine, str) else engine["type"]) == "vllm" else "tp-size"
    data = {
        "name": name,
        "model": {"path": "/models/Qwen3-32B", "container": "/containers/engine.sqsh"},
        "engine": engine,
        "roles": {
            "prefill": {"nodes": 1, "workers": 8 // prefill_gpus, "args": {tp: prefill_gpus}},
            "decode": {"nodes": 1, "workers": 1, "args": {tp: 8}},
        },
        "frontend": {"type": frontend},
        **extra,
    }
    return write_yaml(tmp_path / f"{name}.yaml", data)


def _by_name(prep: Prepared) -> dict[str, Any]:
    return {p.name: p for p in prep.plan.workers}


@pytest.mark.parametrize("profile", ["amd-mi355x", "amd-mi300x", "local-rocr"])
def test_amd_style_sglang_subset_workers_get_rocr_mask(tmp_path: Path, profile: str) -> None:
    prep = prepare(_recipe(tmp_path, "sg-2p1d", "sglang", 4, "sglang-router"), profile)
    w = _by_name(prep)
    assert dict(w["prefill_0"].env)["ROCR_VISIBLE_DEVICES"] == "0,1,2,3"
    assert dict(w["prefill_1"].env)["ROCR_VISIBLE_DEVICES"] == "4,5,6,7"
    assert "ROCR_VISIBLE_DEVICES" not in dict(w["decode_0"].env)
    assert "CUDA_VISIBLE_DEVICES=" not in prep.script.split("# ---- this job")[1]  # never set: only dropped
    steps = _step_lines(prep.script)
    assert " ROCR_VISIBLE_DEVICES=0,1,2,3 " in steps["prefill_0"]
    assert " -u CUDA_VISIBLE_DEVICES " in steps["prefill_0"]  # Slurm's whole-allocation value is not inherited
    assert "ROCR_VISIBLE_DEVICES" not in steps["decode_0"]


@pytest.mark.parametrize("profile", ["nvidia-h100", "amd-mi355x"])
def test_vllm_without_set_visible_devices_gets_device_ids(tmp_path: Path, profile: str) -> None:
    prep = prepare(_recipe(tmp_path, "vl-2p1d", {"type": "vllm", "connector": "nixl"}, 4, "vllm-router"), profile)
    var = prep.plan.visible_devices_env
    w = _by_name(prep)
    for name, ids in (("prefill_0", "0,1,2,3"), ("prefill_1", "4,5,6,7")):
        assert flag_value(w[name].command, "--device-ids") == ids
        assert var not in dict(w[name].env)
        assert w[name].visible_devices is None
    assert "--device-ids" not in w["decode_0"].command  # whole node: neither mask nor device ids
    assert var not in dict(w["decode_0"].env)


@pytest.mark.parametrize("profile", ["nvidia-h100", "amd-mi355x"])
def test_vllm_with_set_visible_devices_gets_the_mask(tmp_path: Path, profile: str) -> None:
    engine = {"type": "vllm", "connector": "nixl", "set_visible_devices": True}
    prep = prepare(_recipe(tmp_path, "vl-2p1d-mask", engine, 4, "vllm-router"), profile)
    var = mask_variable(profile)
    w = _by_name(prep)
    for name, mask in (("prefill_0", "0,1,2,3"), ("prefill_1", "4,5,6,7")):
        assert "--device-ids" not in w[name].command
        assert dict(w[name].env)[var] == mask
        assert w[name].visible_devices == mask
    assert var not in dict(w["decode_0"].env)


def test_same_recipe_two_profiles_only_the_variable_changes() -> None:
    recipe = RECIPES_DIR / "mocker" / "mocker-2p1d.yaml"
    cuda, rocr = prepare(recipe, "local"), prepare(recipe, "local-rocr")
    assert [(p.name, p.gpus, p.visible_devices) for p in cuda.plan.workers] == [
        (p.name, p.gpus, p.visible_devices) for p in rocr.plan.workers
    ]
    for a, b in zip(cuda.plan.workers, rocr.plan.workers):
        env_a = {("MASK" if k == "CUDA_VISIBLE_DEVICES" else k): v for k, v in a.env}
        env_b = {("MASK" if k == "ROCR_VISIBLE_DEVICES" else k): v for k, v in b.env}
        assert env_a == env_b
    assert any(line.startswith("#SBATCH --gpus-per-node") for line in _sbatch(cuda.script))
    assert "#SBATCH --gres=gpu:8" in _sbatch(rocr.script)


def test_recipe_sbatch_directives_override_drop_and_flag(tmp_path: Path) -> None:
    recipe = _recipe(
        tmp_path,
        "directives",
        "sglang",
        4,
        "sglang-router",
        # one token each: `run 7` would be two options on the #SBATCH line (refused, test_hostile_values.py)
        sbatch_directives={"gres": False, "exclusive": True, "comment": "run-7", "partition": "debug"},
    )
    header = _sbatch(prepare(recipe, "amd-mi355x").script)
    assert not any(line.startswith("#SBATCH --gres") for line in header), "`gres: false` drops the profile's GRES"
    assert "#SBATCH --exclusive" in header and "#SBATCH --comment=run-7" in header
    assert [line for line in header if line.startswith("#SBATCH --partition")] == ["#SBATCH --partition=debug"]
    assert not any("False" in line or "True" in line for line in header)
