"""A TRT-LLM worker spanning nodes runs as srtctl runs it: one MPI step, one task per GPU, on the real
local Slurm. A stand-in `trtllm-llmapi-launch` (tests/e2e/standins) records each rank's view, then
rank 0 serves as the mock worker the job's health gate waits for."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cluster import ClusterInfo
from tests.conftest import profile_here
from tests.e2e.jobtools import apply, send_requests, srt, status, wait_no_pids, wait_ready

HERE = Path(__file__).parent
RECIPE = str(HERE / "recipes" / "trtllm-tep16.yaml")


@pytest.fixture
def jobs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Job ids started by a test, cancelled afterwards; the stand-in launcher first on PATH."""
    monkeypatch.setenv("PATH", f"{HERE / 'standins'}{os.pathsep}{os.environ['PATH']}")
    started: list[str] = []
    yield started
    for job_id in started:
        srt("cancel", job_id, check=False)


def _ranks(job_dir: Path, expected: int, timeout: float = 60) -> list[dict[str, Any]]:
    """Every rank's record, waiting until all `expected` ranks have written theirs."""
    folder = job_dir / "logs" / "ranks"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        files = sorted(folder.glob("rank-*.json")) if folder.is_dir() else []
        if len(files) >= expected:
            return sorted((json.loads(f.read_text()) for f in files), key=lambda r: int(r["rank"]))
        time.sleep(0.5)
    raise AssertionError(f"{len(files)} of {expected} ranks reported in {folder}")


@pytest.mark.slurm
def test_tep16_worker_is_one_mpi_step_with_a_rank_per_gpu(
    cluster: ClusterInfo, jobs: list[str], tmp_path: Path
) -> None:
    # TRT-LLM reads model.path: `apply` refuses one this machine lacks, so the profile's `mock-model` is made here
    job_id, job_dir = apply(RECIPE, "-p", profile_here(tmp_path, "local"), "--launcher", "slurm")
    jobs.append(job_id)
    script = (job_dir / "sbatch.sh").read_text()
    assert "#SBATCH --ntasks=16\n#SBATCH --ntasks-per-node=8\n" in script  # srtctl's TRT-LLM allocation
    wait_ready(job_id, timeout=300)  # the shared test cluster may be busy
    endpoints = json.loads((job_dir / "endpoints.json").read_text())
    hosts = [n["hostname"] for n in sorted(endpoints["nodes"], key=lambda n: n["index"])]
    ranks = _ranks(job_dir, 16)
    seen = [(r["rank"], r["size"], r["node"], r["local_rank"], r["gpu"]) for r in ranks]
    assert seen == [(i, 16, hosts[i // 8], i % 8, str(i % 8)) for i in range(16)]
    assert {r["pmi_rank"] for r in ranks} == {str(i) for i in range(16)}  # the MPI plugin's own rank (pmi2)
    assert {r["visible_env"] for r in ranks} == {"CUDA_VISIBLE_DEVICES"}
    assert {r["visible"] for r in ranks} == {"0,1,2,3,4,5,6,7"}  # whole nodes: Slurm's allocation, no mask
    assert all("trtllm-serve" in r["argv"] and "--tensor_parallel_size" in r["argv"] for r in ranks)
    # one worker from the monitor's point of view, healthy, and serving through its rank 0
    snap = status(job_id)
    assert snap["stage"] in ("serving", "router ready")
    answered = send_requests(endpoints["public_url"], 6)
    assert set(answered) == {"trtllm-rank0"}
    plan = json.loads((job_dir / "plan.json").read_text())
    leader, follower = plan["processes"]
    assert (leader["step_nodes"], leader["tasks"], leader["tasks_per_node"], leader["mpi"]) == ([0, 1], 16, 8, "pmi2")
    assert follower["launched_by"] == "agg_0" and follower["gpus"] == list(range(8))
    assert follower["log"] == leader["log"] == "logs/agg_0.log"  # node 1's ranks write to the step's log


def test_local_launcher_runs_every_task_of_the_mpi_step_with_its_rank(jobs: list[str], tmp_path: Path) -> None:
    """Without Slurm the launch script starts an MPI step's tasks itself, with Slurm's rank variables."""
    job_id, job_dir = apply(RECIPE, "-p", profile_here(tmp_path, "local"), "--launcher", "local")
    jobs.append(job_id)
    wait_ready(job_id, timeout=120)
    ranks = _ranks(job_dir, 16)
    seen = [(r["rank"], r["size"], r["node"], r["local_rank"]) for r in ranks]
    assert seen == [(i, 16, f"local{i // 8}", i % 8) for i in range(16)]
    endpoints = json.loads((job_dir / "endpoints.json").read_text())
    assert set(send_requests(endpoints["public_url"], 4)) == {"trtllm-rank0"}
    srt("cancel", job_id)
    assert wait_no_pids(job_dir) == []  # every task of the step ends with it
