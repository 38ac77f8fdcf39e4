"""The operator's job sequence through the transport the CI leg forces (`SRT_TUI_SLURM_TRANSPORT`: cli or
pyslurm; auto elsewhere), on whichever Slurm is on PATH, mocker workers behind the real router:
`apply` -> `wait --for ready` -> `status` (and the Monitor's collector) -> `cancel`, and
`apply` -> `wait --for done` -> `results`."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.slurm.select import get_client
from tests.conftest import REPO
from tests.e2e.jobtools import apply, events, srt, status, wait_ready

pytestmark = [pytest.mark.slurm, pytest.mark.routers, pytest.mark.slurm25]
MOCKER = REPO / "recipes" / "mocker"


async def _monitor_once(job_id: str, job_dir: Path) -> Any:
    """One refresh of the TUI Monitor's collector through the transport this leg chose."""
    monitor = Monitor(get_client(None), http_timeout=2.0, connect_timeout=1.0, budget_s=2.0)
    try:
        return (await monitor.refresh({job_id: job_dir}))[0]
    finally:
        await monitor.aclose()


def _transport_used(job_dir: Any) -> str:
    return str(json.loads((job_dir / "job.json").read_text())["transport"])


def _expected_transport() -> set[str]:
    forced = os.environ.get("SRT_TUI_SLURM_TRANSPORT", "auto")
    return {"cli", "pyslurm"} if forced == "auto" else {forced}


def test_apply_wait_status_cancel(cluster: Any, jobs: list[str]) -> None:
    job_id, job_dir = apply(str(MOCKER / "mocker-2p1d.yaml"), "-p", "local", "-t", "1P1D", "--launcher", "slurm")
    jobs.append(job_id)
    assert _transport_used(job_dir) in _expected_transport()
    wait_ready(job_id)
    snap = status(job_id)
    assert snap["slurm_state"] == "RUNNING" and snap["router"]["registered"] == {"prefill": 1, "decode": 1}
    followed = asyncio.run(_monitor_once(job_id, job_dir))  # what the Monitor screen shows, same transport
    assert followed.slurm_state == "RUNNING" and followed.is_ready
    assert srt("cancel", job_id).returncode == 0
    deadline = time.monotonic() + 30
    while status(job_id)["slurm_state"] != "CANCELLED":
        assert time.monotonic() < deadline, status(job_id)
        time.sleep(0.5)
    assert "submitted" in events(job_dir)


def test_apply_wait_done_results(cluster: Any, jobs: list[str]) -> None:
    job_id, job_dir = apply(str(MOCKER / "mocker-1p1d.yaml"), "-p", "local", "--launcher", "slurm")
    jobs.append(job_id)
    assert _transport_used(job_dir) in _expected_transport()
    proc = srt("wait", job_id, "--for", "done", "--timeout", "150", check=False, timeout=180)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert status(job_id)["slurm_state"] == "COMPLETED"
    rows = json.loads(srt("results", job_id, "--json").stdout)
    assert rows and all(row["job"] == job_id for row in rows)
