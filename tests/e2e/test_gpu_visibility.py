"""On the real local Slurm (GRES gpu:8: Slurm sets CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES and
GPU_DEVICE_ORDINAL to 0-7 on every step), a TP4 worker under an AMD-style profile sees its four GPUs
in ROCR_VISIBLE_DEVICES and none of the whole-allocation variables the profile lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.e2e.jobtools import apply, wait_ready

pytestmark = [pytest.mark.slurm, pytest.mark.routers]


def _worker_env(job_id: str, name: str) -> dict[str, str]:
    """The environment of the worker process itself (not the srun or bash that started it)."""
    for proc in Path("/proc").iterdir():
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
            env = (proc / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        worker = Path(cmd[0].decode()).name.startswith("python") and cmd[1:4] == [b"-m", b"srt_tui.mock", b"serve"]
        if worker and name.encode() in cmd and f"SLURM_JOB_ID={job_id}".encode() in env:
            return dict(e.decode().split("=", 1) for e in env if b"=" in e)
    raise AssertionError(f"no process of {name} found in job {job_id}")


def test_a_subset_worker_inherits_no_whole_allocation_visibility(jobs: list[str]) -> None:
    job_id, _ = apply(str(REPO / "recipes/mocker/mocker-agg2.yaml"), "-p", "local-rocr", "--launcher", "slurm")
    jobs.append(job_id)
    wait_ready(job_id)
    for name, mask in (("agg_0", "0,1,2,3"), ("agg_1", "4,5,6,7")):
        env = _worker_env(job_id, name)
        assert env.get("ROCR_VISIBLE_DEVICES") == mask, env.get("ROCR_VISIBLE_DEVICES")
        leaked = {k: env[k] for k in ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL") if k in env}
        assert not leaked, f"{name} inherited Slurm's whole-allocation visibility: {leaked}"
