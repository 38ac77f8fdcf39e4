"""Telemetry: the profile's (or recipe's) GPU exporter as one step per node, in the shape its kind implies."""

from __future__ import annotations

from pathlib import Path

import pytest

from srt_tui.core.api import prepare
from srt_tui.core.errors import SrtError
from tests.core.core_helpers import RECIPES_DIR

NV_1P1D = RECIPES_DIR / "nvidia" / "h100-1p1d-sglang.yaml"


def _with(tmp_path: Path, base: Path, extra: str) -> Path:
    recipe = tmp_path / base.name
    recipe.write_text(base.read_text() + "\n" + extra + "\n")
    return recipe


def test_dcgm_default_runs_in_its_own_image_on_every_node(tmp_path: Path) -> None:
    prep = prepare(_with(tmp_path, NV_1P1D, "telemetry: {enabled: true}"), "nvidia-h100")
    plan = prep.plan
    assert plan.gpu_exporter is not None and plan.gpu_exporter.launched is True
    assert plan.gpu_exporter.gpu_label == "gpu"
    assert plan.gpu_exporter.metrics["gpu_util"] == "DCGM_FI_DEV_GPU_UTIL"
    steps = plan.telemetry
    assert [(s.name, s.node_index) for s in steps] == [(f"gpu_exporter_{n}", n) for n in range(plan.nodes)]
    assert all(s.command == ("dcgm-exporter", "--address", "<bind>:9401") for s in steps)
    assert all(s.container_image == plan.gpu_exporter.image != plan.container_image for s in steps)
    assert all(s.visible_devices is None and not any(k.endswith("VISIBLE_DEVICES") for k, _ in s.env) for s in steps)
    script = prep.script
    image_steps = [line for line in script.splitlines() if line.startswith("SRT_STEP_IMAGE=")]
    assert len(image_steps) == plan.nodes and all("srt_step gpu_exporter_" in line for line in image_steps)
    assert "gpu_exporter" not in script.split("SRT_HEALTH_NAMES=")[1].split("\n")[0]  # never a readiness gate


def test_amd_exporter_uses_the_profiles_command_label_and_metrics() -> None:
    prep = prepare(RECIPES_DIR / "amd" / "mi355x-1p1d-sglang-mori.yaml", "amd-mi355x")
    exporter = prep.plan.gpu_exporter
    assert exporter is not None and exporter.launched and exporter.port == 5000
    assert exporter.gpu_label == "gpu_id"
    assert exporter.metrics == {
        "power": "gpu_power_usage",
        "gpu_util": "gpu_gfx_activity",
        "temperature": "gpu_junction_temperature",
    }
    assert {s.command for s in prep.plan.telemetry} == {("/home/amd/tools/entrypoint.sh",)}


def test_without_telemetry_the_exporter_is_described_but_not_started() -> None:
    prep = prepare(NV_1P1D, "nvidia-h100")
    assert prep.plan.gpu_exporter is not None and prep.plan.gpu_exporter.launched is False
    assert prep.plan.telemetry == () and "gpu_exporter_0" not in prep.script


def test_a_custom_exporter_without_a_command_is_an_error(tmp_path: Path) -> None:
    extra = 'telemetry: {enabled: true, dcgm_exporter: {container_image: "docker://x/y:1", port: 9500, kind: custom}}'
    with pytest.raises(SrtError) as info:
        prepare(_with(tmp_path, NV_1P1D, extra), "nvidia-h100")
    problem = info.value.problems[0]
    assert problem.field == "telemetry.dcgm_exporter.command" and "{port}" in (problem.hint or "")


def test_telemetry_with_the_exporter_disabled_is_a_warning(tmp_path: Path) -> None:
    prep = prepare(_with(tmp_path, NV_1P1D, "telemetry: {enabled: true, gpu_exporter: null}"), "nvidia-h100")
    assert prep.plan.telemetry == ()
    assert [w.field for w in prep.plan.warnings] == ["telemetry.dcgm_exporter"]


def test_a_step_image_replaces_only_that_steps_container_image(tmp_path: Path) -> None:
    """The runtime's `srt_step` under Slurm: `SRT_STEP_IMAGE=…` swaps the image for that one srun, nothing else."""
    import subprocess

    from srt_tui.core.template_files import template

    script = tmp_path / "steps.sh"
    script.write_text(
        "set -euo pipefail\n"
        + template("runtime.sh")
        + "\n"
        + 'srun() { printf "%s\\n" "$*" >>"$SRT_JOB_DIR/srun.log"; }\n'
        + "SRT_LAUNCHER=slurm SRT_NODES=(n0) SRT_SRUN_OPTS=()\n"
        + "SRT_CONTAINER_ARGS=(--container-image=job:1 --container-mounts=/a:/a --no-container-entrypoint)\n"
        + 'SRT_STEP_IMAGE="exporter:2" srt_step gpu_exporter_0 telemetry 0 "$SRT_JOB_DIR/e.log" -- dcgm-exporter\n'
        + 'srt_step prefill_0 worker 0 "$SRT_JOB_DIR/w.log" -- python3 -m x\n'
        + "wait\ntrap - EXIT\n"
    )
    env = {"SRT_JOB_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    # both steps run in the background: their lines may land in either order
    lines = (tmp_path / "srun.log").read_text().splitlines()
    exporter = next(line for line in lines if "dcgm-exporter" in line)
    worker = next(line for line in lines if "python3 -m x" in line)
    assert "--container-image=exporter:2 --container-mounts=/a:/a --no-container-entrypoint dcgm-exporter" in exporter
    assert "--container-image=job:1 --container-mounts=/a:/a --no-container-entrypoint python3 -m x" in worker
