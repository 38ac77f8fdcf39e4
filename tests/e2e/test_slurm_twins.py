"""The mocker twins of the seven shipped AMD scenarios (S1–S7) run on the real local Slurm with the
AMD-style profile `local-rocr`: all are submitted at once (Slurm queues what does not fit on three
nodes), each reaches ready, serves requests through its public URL with none failing, and is cancelled
as soon as it has passed so the next one gets its nodes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cluster import ClusterInfo
from tests.conftest import REPO
from tests.e2e.jobtools import apply, events, send_requests, srt, status, wait_ready

pytestmark = [pytest.mark.slurm, pytest.mark.routers]

#: scenario -> (shipped AMD recipe, its mocker twin, the router the twin runs (None: direct))
TWINS: dict[str, tuple[str, str, str | None]] = {
    "S1": ("mi300x-agg-sglang-direct", "mocker-agg-direct", None),
    "S2": ("mi355x-1p1d-sglang-mori", "mocker-1p1d", "sglang-router"),
    "S3": ("mi355x-2p1d-sglang-mori", "mocker-2p1d", "sglang-router"),
    "S4": ("mi355x-1p2d-sglang-mori", "mocker-1p2d", "sglang-router"),
    "S5": ("mi355x-dp-attention-1p1d", "mocker-dp-attention-1p1d", "sglang-router"),
    "S6": ("mi300x-vllm-moriio-colocated", "mocker-colocated", "vllm-router"),
    "S7": ("mi355x-atom-atomesh-mooncake", "mocker-atom-1p1d", "sglang-router"),
}


@pytest.fixture(scope="module")
def submitted(cluster: ClusterInfo) -> Iterator[dict[str, tuple[str, Path]]]:
    """Every twin submitted up front (one wait for the queue, not seven); all cancelled at the end."""
    jobs: dict[str, tuple[str, Path]] = {}
    try:
        for scenario, (_, twin, _) in TWINS.items():
            recipe = str(REPO / "recipes" / "mocker" / f"{twin}.yaml")
            jobs[scenario] = apply(recipe, "-p", "local-rocr", "--launcher", "slurm")
        yield jobs
    finally:
        for _, job_dir in jobs.values():
            srt("cancel", str(job_dir), check=False)


def _shipped(name: str) -> dict[str, Any]:
    import yaml

    data: dict[str, Any] = yaml.safe_load((REPO / "recipes" / "amd" / f"{name}.yaml").read_text())
    return data


@pytest.mark.parametrize("scenario", list(TWINS))
def test_twin_reaches_ready_and_serves_with_no_failed_request(
    submitted: dict[str, tuple[str, Path]], scenario: str
) -> None:
    shipped, _, router = TWINS[scenario]
    _, job_dir = submitted[scenario]
    job = str(job_dir)  # by path: each test runs with its own (isolated) job index
    plan = json.loads((job_dir / "plan.json").read_text())
    if plan["benchmark"] is not None:  # the job's own sa-bench: it ends after it, and no request may fail
        done = srt("wait", job, "--for", "done", "--timeout", "300", "-q", check=False, timeout=330)
        assert done.returncode == 0, done.stderr
        assert "benchmark" in events(job_dir)  # it got past the readiness gate
        results = [json.loads(f.read_text()) for f in (job_dir / "logs").glob("sa-bench_*/results_concurrency_*.json")]
        assert results and all(r["completed"] > 0 and r["failed"] == 0 for r in results), results
    else:
        wait_ready(job, timeout=300)  # includes queueing behind the other twins
    workers = [w for w in plan["processes"] if w["node_rank"] == 0]
    shape = {r: sum(1 for w in workers if w["role"] == r) for r in ("prefill", "decode", "agg")}
    want = {r: spec.get("workers", 1) for r, spec in _shipped(shipped)["roles"].items()}
    assert {r: n for r, n in shape.items() if n} == want  # the twin has its scenario's shape
    assert all(w["env"].get("ROCR_VISIBLE_DEVICES") == w["visible_devices"] for w in workers)
    if router is None:
        assert plan["router"] is None
        (worker,) = workers
        assert worker["port"] == 8000 and plan["public_url"] == worker["url"]  # the worker owns the public port
    else:
        assert plan["router"]["type"] == router
    if plan["benchmark"] is not None:
        return
    endpoints = json.loads((job_dir / "endpoints.json").read_text())
    answered = send_requests(endpoints["router"]["url"], 16)  # each must answer 200: zero failed requests
    assert len(answered) == 16 and all(answered)
    assert status(job)["slurm_state"] == "RUNNING"
    srt("cancel", job, check=False)  # free the nodes for the twins still queued
