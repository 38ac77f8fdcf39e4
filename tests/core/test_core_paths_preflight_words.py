"""How the path check names a model it does not find (issue 21, s34): a relative path that is no profile alias
(`models/foo`) was said to be one (`alias `models/foo` resolved to /cwd/models/foo does not exist …: fix the
profile's model_paths`). It is said as a relative path, with what the launch resolves it against (the directory
srt-tui runs in, or the profile's srtctl_root) and the fix for that; a profile alias that does not resolve, and a
bare name the profile lacks, are still alias messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from srt_tui.core.api import prepare
from srt_tui.core.plan.paths_preflight import check_paths
from tests.core.core_helpers import write_yaml


def _model_check(tmp_path: Path, path: str, **profile: object) -> str:
    """The model's check message for a recipe whose `model.path` is ``path``, on a container-less profile with
    one alias (`llama`, not on this machine)."""
    settings = {"gpus_per_node": 8, "container_runtime": "none", "model_paths": {"llama": "/nowhere/llama"}}
    prof = write_yaml(tmp_path / "p.yaml", {**settings, **profile})
    recipe = write_yaml(
        tmp_path / "r.yaml",
        {
            "name": "r",
            "model": {"path": path},
            "engine": "sglang",
            "roles": {"agg": {"nodes": 1, "workers": 1, "args": {"tp-size": 8}}},
            "frontend": {"type": "sglang-router"},
        },
    )
    (check,) = [c for c in check_paths(prepare(str(recipe), str(prof)).job) if c.field == "model.path"]
    assert check.code == "model-not-available"
    return check.message


def test_a_relative_path_is_said_as_one_from_where_srt_tui_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    said = _model_check(tmp_path, "models/foo")
    assert said == (
        f"relative path `models/foo` (no model_paths alias), from the directory srt-tui runs in: "
        f"{tmp_path / 'models' / 'foo'} does not exist on this node: give model.path as an absolute path, or run "
        "srt-tui from the directory it is relative to"
    )
    assert "alias `models/foo`" not in said


def test_a_relative_path_under_srtctl_root_says_so(tmp_path: Path) -> None:
    root = tmp_path / "srt-slurm"
    root.mkdir()
    said = _model_check(tmp_path, "./models/foo", srtctl_root=str(root))
    assert said == (
        f"relative path `./models/foo` (no model_paths alias), from the profile's srtctl_root: "
        f"{root / 'models' / 'foo'} does not exist on this node: give model.path as an absolute path, or change the "
        "profile's srtctl_root"
    )


def test_an_alias_that_does_not_resolve_stays_an_alias_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert _model_check(tmp_path, "llama") == (
        "alias `llama` resolved to /nowhere/llama does not exist on this node: pull or register the model, or fix the "
        "profile's model_paths"
    )
    # a bare name the profile lacks: the alias it lacks (the nearest one named), used as a path from here
    assert _model_check(tmp_path, "lama") == (
        f"`lama` is no model_paths alias of this profile, so it is a path from the directory srt-tui runs in: "
        f"{tmp_path / 'lama'} does not exist on this node: did you mean `llama`? add `lama: <path>` under the "
        "profile's model_paths, or give model.path as an absolute path"
    )
