"""srtctl's checkout as srtctl finds it: an `srtslurm.yaml` without `srtctl_root` is srtctl's own, at the
root of its checkout, so that directory is the root; `<srtctl_root>/configs` is mounted at /configs, by
its resolved path, when it exists (srtctl's core/runtime.py), and `setup_script` runs from there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from srt_tui.core.api import prepare
from srt_tui.core.spec.profile import load_profile
from tests.core.core_helpers import write_yaml

RECIPE: dict[str, Any] = {
    "name": "root",
    "setup_script": "deps.sh",
    "model": {"path": "/models/m", "container": "/c/img.sqsh"},
    "engine": "sglang",
    "roles": {"agg": {"nodes": 1, "workers": 1, "args": {"tp-size": 8}}},
    "frontend": {"type": "sglang"},
}


def _checkout(root: Path, profile: dict[str, Any] | None = None, configs: bool = True) -> Path:
    """An srt-slurm checkout: srtslurm.yaml at its root, configs/patches/deps.sh, recipes/root.yaml."""
    if configs:
        (root / "configs" / "patches").mkdir(parents=True)
        (root / "configs" / "patches" / "deps.sh").write_text("echo deps\n")
    write_yaml(root / "srtslurm.yaml", {"gpus_per_node": 8, **(profile or {})})
    return write_yaml(root / "recipes" / "root.yaml", RECIPE)


def _configs_mounts(prep: Any) -> list[tuple[str, str, bool]]:
    return [(m.host, m.container, m.readonly) for m in prep.plan.mounts if m.container == "/configs"]


def test_a_discovered_srtslurm_yaml_makes_its_directory_srtctl_root_and_mounts_configs(tmp_path: Path) -> None:
    root = tmp_path / "srt-slurm"
    recipe = _checkout(root)
    prep = prepare(recipe, cwd=recipe.parent)  # discovery: ../srtslurm.yaml from recipes/
    assert prep.job.profile.srtctl_root == str(root.resolve())
    assert _configs_mounts(prep) == [(str(root.resolve() / "configs"), "/configs", True)]
    (worker,) = prep.plan.workers
    assert worker.setup_script == ("/configs/deps.sh", "/configs/patches/deps.sh")
    assert f"{root.resolve()}/configs:/configs:ro" in prep.script
    # the same file given with -p means the same checkout
    assert load_profile(str(root / "srtslurm.yaml")).profile.srtctl_root == str(root.resolve())


def test_srtctl_root_written_in_srtslurm_yaml_wins(tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    (other / "configs").mkdir(parents=True)
    recipe = _checkout(tmp_path / "srt-slurm", {"srtctl_root": str(other)})
    prep = prepare(recipe, cwd=recipe.parent)
    assert prep.job.profile.srtctl_root == str(other)
    assert _configs_mounts(prep) == [(str(other.resolve() / "configs"), "/configs", True)]


def test_configs_is_mounted_only_where_it_exists_and_by_its_resolved_path(tmp_path: Path) -> None:
    bare = tmp_path / "no-checkout"
    recipe = _checkout(bare, configs=False)  # an srtslurm.yaml outside an srt-slurm checkout
    prep = prepare(write_yaml(recipe, {**RECIPE, "setup_script": None}), cwd=recipe.parent)
    assert prep.job.profile.srtctl_root == str(bare.resolve()) and _configs_mounts(prep) == []
    shared = tmp_path / "shared-configs"
    (shared / "patches").mkdir(parents=True)
    linked = tmp_path / "linked"
    recipe = _checkout(linked, configs=False)
    (linked / "configs").symlink_to(shared, target_is_directory=True)
    prep = prepare(recipe, cwd=recipe.parent)
    assert _configs_mounts(prep) == [(str(shared.resolve()), "/configs", True)]


def test_a_profile_of_another_name_keeps_srtctl_root_unset(tmp_path: Path) -> None:
    path = write_yaml(tmp_path / "cluster.yaml", {"gpus_per_node": 8})
    assert load_profile(str(path)).profile.srtctl_root is None


def test_a_setup_script_without_a_configs_directory_to_mount_is_said(tmp_path: Path) -> None:
    recipe = _checkout(tmp_path / "no-checkout", configs=False)
    prep = prepare(recipe, cwd=recipe.parent)
    (warning,) = [w for w in prep.plan.warnings if w.field == "setup_script"]
    assert "configs does not exist here" in warning.message and "deps.sh" in warning.message
