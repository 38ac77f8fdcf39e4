"""S5 live through the Shepherd Model Gateway: the mocker twin of `mi355x-dp-attention-1p1d` with
`frontend.type: smg` and `--dp-aware` on the real local Slurm (AMD-style profile `local-rocr`). The real
`smg` registers the 8 prefill and 8 decode data-parallel ranks, names the rank of every request, and
each of the 16 ranks serves requests with none failing; the monitor shows one prefill and one decode."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import httpx
import pytest

from tests.cluster import ClusterInfo
from tests.conftest import REPO, require
from tests.e2e.jobtools import apply, send_requests, srt, status, wait_ready

pytestmark = [pytest.mark.slurm, pytest.mark.routers]

TWIN = REPO / "recipes" / "mocker" / "mocker-dp-attention-1p1d-smg.yaml"
RANKS = 8
REQUESTS = 64


def _smg_on_path() -> bool:
    """Whether `smg` is the Shepherd Model Gateway 1.x (sglang-router installs a script of that name too)."""
    try:
        out = subprocess.run(["smg", "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.startswith("smg 1.")


def test_s5_through_smg_every_dp_rank_serves_and_none_fails(cluster: ClusterInfo, jobs: list[str]) -> None:
    require(_smg_on_path(), "smg 1.x is not the `smg` on PATH (pip install .[test])")
    job_id, job_dir = apply(str(TWIN), "-p", "local-rocr", "--launcher", "slurm")
    jobs.append(job_id)
    job = str(job_dir)
    wait_ready(job, timeout=180)
    plan = json.loads((job_dir / "plan.json").read_text())
    assert plan["router"]["type"] == "smg" and "--dp-aware" in plan["router"]["command"]
    endpoints = json.loads((job_dir / "endpoints.json").read_text())
    router = endpoints["router"]["url"]
    listing = httpx.get(router + "/workers", timeout=10).json()
    assert listing["stats"] == {"prefill_count": RANKS, "decode_count": RANKS, "regular_count": 0}
    assert len(send_requests(router, REQUESTS)) == REQUESTS  # each answered 200: none failed at the client
    workers = [w for w in endpoints["workers"] if w.get("url")]
    assert sorted(w["role"] for w in workers) == ["decode", "prefill"]
    for w in workers:
        stats: dict[str, Any] = httpx.get(w["url"] + "/mock/stats", timeout=10).json()
        ranks = stats["dp_ranks"]
        assert len(ranks) == RANKS, stats
        # every rank served and none failed; smg named the rank of every request (the worker placed none)
        assert all(r["ok"] > 0 and r["failed"] == 0 for r in ranks), (w["role"], ranks)
        assert [r["routed"] for r in ranks] == [r["ok"] for r in ranks], (w["role"], ranks)
        assert sum(r["ok"] for r in ranks) == REQUESTS and stats["generation"]["failed"] == 0
    snap = status(job)
    assert snap["slurm_state"] == "RUNNING"
    assert snap["router"]["registered"] == {"prefill": 1, "decode": 1}, snap["router"]  # ranks count once
    # smg's own counters on its metrics port, read by the monitor: every request, none an error
    assert snap["router"]["requests"] >= REQUESTS and snap["router"]["errors"] == 0, snap["router"]
    assert [w["router_healthy"] for w in snap["workers"]] == [True, True], snap["workers"]  # per physical URL
    srt("cancel", job, check=False)
