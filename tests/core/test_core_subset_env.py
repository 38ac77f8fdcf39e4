"""A worker on a GPU subset sees only its own mask: the visibility variables Slurm sets to the whole
allocation (named by the profile's `subset_unset_env`, data) are removed from its step, and the
preview says so. Workers on a whole node keep what Slurm gave them."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from srt_tui.core.api import prepare
from srt_tui.core.text.dryrun import describe
from tests.core.core_helpers import RECIPES_DIR, pair_id, profile_data, shipped_pairs


@pytest.mark.parametrize(("recipe", "profile"), shipped_pairs(), ids=[pair_id(r, p) for r, p in shipped_pairs()])
def test_masked_workers_drop_the_profiles_inherited_visibility_variables(recipe: Path, profile: str) -> None:
    prep = prepare(str(recipe), profile)
    mask_var = prep.plan.visible_devices_env
    listed = profile_data(profile).get("subset_unset_env")
    lines = prep.script.splitlines()
    for worker in prep.plan.workers:
        if worker.visible_devices is None:
            assert worker.unset_env == ()
            continue
        assert mask_var not in worker.unset_env and worker.unset_env, worker
        if listed is not None:
            assert list(worker.unset_env) == [v for v in listed if v != mask_var]
        step = shlex.split(lines[next(i for i, x in enumerate(lines) if x.startswith(f"srt_step {worker.name} ")) + 1])
        words = step[step.index("env") :]
        dropped = [words[i + 1] for i, w in enumerate(words) if w == "-u"]
        assert dropped == list(worker.unset_env)
        assert f"{mask_var}={worker.visible_devices}" in words
    text = describe(prep, with_script=False)
    for worker in prep.plan.workers:
        if worker.unset_env:
            assert "unset (inherited values it must not see): " + " ".join(worker.unset_env) in text


def test_the_list_is_data_a_profile_can_change(tmp_path: Path) -> None:
    profile = tmp_path / "site.yaml"
    profile.write_text(
        "gpus_per_node: 8\ncontainer_runtime: none\nvisible_devices_env: ROCR_VISIBLE_DEVICES\n"
        "subset_unset_env: [CUDA_VISIBLE_DEVICES, SITE_GPU_LIST, ROCR_VISIBLE_DEVICES]\n"
        "model_paths: {mock-model: /m}\n"
    )
    prep = prepare(str(RECIPES_DIR / "mocker" / "mocker-agg2.yaml"), str(profile))
    assert [w.unset_env for w in prep.plan.workers] == [("CUDA_VISIBLE_DEVICES", "SITE_GPU_LIST")] * 2
    assert prep.plan.to_json()["processes"][0]["unset_env"] == ["CUDA_VISIBLE_DEVICES", "SITE_GPU_LIST"]
