"""`srt-tui setup --probe --write` and `srt-tui doctor` against the real local Slurm, with stand-in GPU tools."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from srt_tui.cli.main import main
from srt_tui.core.api import prepare
from srt_tui.core.spec.profile import parse_profile
from tests.cluster import ClusterInfo
from tests.conftest import REPO
from tests.setup.standins import amd_tools, nvidia_tools, rejecting_sbatch

pytestmark = pytest.mark.slurm


def _setup(shared: Path, tools: Path, target: Path, *aliases: str) -> int:
    models = shared / "models"
    (models / "mock-model").mkdir(parents=True, exist_ok=True)
    for image in ("sglang.sqsh", "sglang-rocm.sqsh"):
        (shared / image).write_bytes(b"")
    argv = ["setup", "--probe", "--write", str(target), "--name", target.stem, "--extra-path", str(tools)]
    argv += ["--workdir", str(shared / "work"), "--node-timeout", "60", "--path", str(models)]
    argv += ["--model", f"mock-model={models / 'mock-model'}", *aliases]
    return main(argv)


def test_nvidia_tool_gives_an_nvidia_profile(
    cluster: ClusterInfo, shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = shared / "nv.yaml"
    (shared / "models" / "qwen3-0.6b").mkdir(parents=True)
    rc = _setup(
        shared,
        nvidia_tools(shared / "nvbin"),
        target,
        "--model",
        f"qwen3-0.6b={shared / 'models' / 'qwen3-0.6b'}",
        "--container",
        f"sglang={shared / 'sglang.sqsh'}",
    )
    out = capsys.readouterr().out
    assert rc == 0, out
    text = target.read_text()
    profile = parse_profile(target)
    assert profile.visible_devices_env == "CUDA_VISIBLE_DEVICES"
    assert "visible_devices_env: CUDA_VISIBLE_DEVICES  (default holds; not written)" in text
    assert "nvidia-smi answered on node" in text
    assert profile.use_gpus_per_node_directive is True
    assert "sbatch --test-only accepted --gpus-per-node=1" in text
    assert profile.gpus_per_node == 8
    assert profile.network_interface == "eth0"
    assert profile.default_partition == cluster.partition
    assert profile.container_runtime == "none"
    assert not profile.default_mounts
    assert prepare(REPO / "recipes/mocker/mocker-2p1d.yaml", str(target)).script
    assert prepare(REPO / "recipes/nvidia/h100-agg-sglang.yaml", str(target)).script


def test_amd_tool_on_gres_only_cluster_gives_an_amd_profile(
    cluster: ClusterInfo, shared: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = shutil.which("sbatch")
    assert real
    monkeypatch.setenv("PATH", f"{rejecting_sbatch(shared / 'gres-only', real)}:{__import__('os').environ['PATH']}")
    target = shared / "amd.yaml"
    (shared / "models" / "qwen3-32b").mkdir(parents=True)
    rc = _setup(
        shared,
        amd_tools(shared / "amdbin"),
        target,
        "--model",
        f"qwen3-32b={shared / 'models' / 'qwen3-32b'}",
        "--container",
        f"sglang-rocm={shared / 'sglang-rocm.sqsh'}",
    )
    out = capsys.readouterr().out
    assert rc == 0, out
    text = target.read_text()
    profile = parse_profile(target)
    assert profile.visible_devices_env == "ROCR_VISIBLE_DEVICES"
    assert "amd-smi answered on node" in text
    assert profile.use_gpus_per_node_directive is False
    assert profile.default_sbatch_directives == {"gres": "gpu:8"}
    assert "rejected --gpus-per-node=1" in text
    assert profile.default_mounts == {"/dev/kfd": "/dev/kfd", "/dev/dri": "/dev/dri"}
    assert "Proposed from the tool, not from the device files (/dev/kfd absent" in text
    prep = prepare(REPO / "recipes/mocker/mocker-2p1d.yaml", str(target))
    assert "#SBATCH --gres=gpu:8" in prep.script
    assert "--gpus-per-node" not in prep.script
    assert "ROCR_VISIBLE_DEVICES" in prep.script
    assert prepare(REPO / "recipes/amd/mi300x-agg-sglang-direct.yaml", str(target)).script


def test_doctor_reports_wrong_interface_and_missing_partition(
    cluster: ClusterInfo, shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = shared / "bad.yaml"
    bad.write_text(
        "cluster: local\ndefault_partition: h100-batch\ngpus_per_node: 8\nnetwork_interface: ib0\n"
        "container_runtime: none\ndefault_gpu_exporter: null\n"
    )
    rc = main(["doctor", "-p", str(bad), "--workdir", str(shared / "work"), "--node-timeout", "60"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "default_partition: partition `h100-batch` does not exist on this cluster" in out
    assert "fix: set `default_partition:` to one of: gpu" in out
    assert "network_interface: interface `ib0` does not exist on node" in out
    assert "fix: set `network_interface: eth0`" in out


def test_doctor_passes_a_good_profile(cluster: ClusterInfo, shared: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The node's address is the one the running cluster gave it (start.sh's nodes.txt, by LOCAL_SLURM_SUBNET), not
    a default subnet's: the test passes on a cluster started on any subnet."""
    rc = main(["doctor", "-p", "local", "--workdir", str(shared / "work"), "--node-timeout", "60"])
    out = capsys.readouterr().out
    assert "Checks:" in out
    probed = re.search(r"✓ network_interface: eth0 (\S+) \(on (\S+)\)", out)
    assert probed, out
    assert probed[1] == cluster.address_of(probed[2])
    assert "✓ default_partition: `gpu` exists" in out
    # the shipped local profile names a model path that this machine need not have
    assert rc in (0, 1)


def test_setup_writes_the_partitions_node_count_and_the_wizard_sizes_jobs_by_it(
    cluster: ClusterInfo, shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 21: the profile Setup wrote had no `max_nodes`, so on this 3-node cluster 2P2D (4 nodes) passed every
    check before `apply`'s preflight. `max_nodes` is the probed partition's node count (Slurm's TotalNodes), its
    comment says so; `dry-run` (as the wizard's Topology step) refuses 4 nodes naming it; `--max-nodes` overrides."""
    target = shared / "sized.yaml"
    rc = _setup(shared, nvidia_tools(shared / "nvbin"), target)
    assert rc == 0, capsys.readouterr().out
    nodes = len(cluster.nodes)
    assert nodes == 3
    profile = parse_profile(target)
    assert profile.max_nodes == nodes
    text = target.read_text()
    assert f"# max_nodes: sinfo/scontrol: partition {cluster.partition} has {nodes} nodes (TotalNodes);" in text
    assert "srtctl has" in text and f"\nmax_nodes: {nodes}\n" in text
    recipe = str(REPO / "recipes/mocker/mocker-1p1d.yaml")
    capsys.readouterr()
    assert main(["dry-run", "-f", recipe, "-p", str(target), "-t", "1P2D"]) == 0  # 3 nodes: fits
    capsys.readouterr()
    assert main(["dry-run", "-f", recipe, "-p", str(target), "-t", "2P2D"]) == 2
    err = capsys.readouterr().err
    assert f"this job needs 4 nodes; max_nodes is {nodes}" in err, err

    smaller = shared / "smaller.yaml"
    rc = _setup(shared, nvidia_tools(shared / "nvbin2"), smaller, "--max-nodes", "2")
    assert rc == 0, capsys.readouterr().out
    assert parse_profile(smaller).max_nodes == 2
    assert "# max_nodes: operator choice;" in smaller.read_text()
