"""A stopped worker of a local job reads `hung` on its own row, never `healthy*` from the job's relay (issue 21, op11's
pass): the `local` demo's mocker-1p2d, `kill -STOP` of decode_1's mock worker, the TUI's feed refreshing every 2 s.
The job view showed `decode_1 … healthy*` and `* health relayed by the job: its nodes do not answer from here` for
10-15 s: the job's relay had read it healthy after the Monitor's last answer from it, just before it stopped, and
that reading stood in for the Monitor's unanswered ask. Here the stop comes right after a relay round the Monitor
has not seen answered, which is that race every time."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from pathlib import Path

import pytest

from srt_tui.monitor.feeds.live import LiveFeed
from srt_tui.monitor.model import JobSnapshot
from srt_tui.tui.monitor.screen import POLL_INTERVAL_S
from tests.conftest import REPO
from tests.e2e.jobtools import apply, job_pids, srt, wait_no_pids, wait_ready
from tests.mock.mockprocs import wait_until
from tests.monitor.jobdirs import describe

pytestmark = pytest.mark.routers


def _worker_pid(job_dir: Path, name: str) -> int:
    """The pid of the job's mock worker NAME (the process that answers its port)."""
    for pid in job_pids(job_dir):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"srt_tui.mock" in argv and b"serve" in argv and argv[argv.index(b"--name") + 1] == name.encode():
            return pid
    raise AssertionError(f"no mock worker {name} among {job_pids(job_dir)}")


def _stopped_alone(snap: JobSnapshot) -> bool:
    """decode_1 is not shown healthy from the relay, nothing of the job is relayed; True once it reads hung."""
    by = {w.name: w for w in snap.workers}
    assert by["decode_1"].source != "relay" and not snap.relayed, describe(snap)
    http = snap.source("http")
    assert http is not None and http.ok and snap.source("relay") is None, describe(snap)
    assert all(w.health == "healthy" and w.source == "direct" for n, w in by.items() if n != "decode_1"), describe(snap)
    return by["decode_1"].health == "hung"


async def test_a_stopped_worker_of_a_local_job_reads_hung_never_relayed_healthy() -> None:
    job_id, job_dir = apply(str(REPO / "recipes/mocker/mocker-1p2d.yaml"), "--launcher", "local", "-p", "local")
    feed = LiveFeed()  # the Monitor as the TUI's feed builds it: production timeouts, budget and back-off
    jobs = {job_id: job_dir}
    relay = job_dir / "relay" / "health.json"
    pid = 0
    try:
        wait_ready(job_id)
        pid = _worker_pid(job_dir, "decode_1")
        snap = (await feed.refresh(jobs))[0]
        for _ in range(5):
            if all(w.health == "healthy" and w.source == "direct" for w in snap.workers):
                break
            await asyncio.sleep(POLL_INTERVAL_S)
            snap = (await feed.refresh(jobs))[0]
        assert all(w.health == "healthy" and w.source == "direct" for w in snap.workers), describe(snap)
        answered_at = time.time()  # the Monitor's last answers; the job's next round reads decode_1 healthy after it
        wait_until(lambda: relay.stat().st_mtime > answered_at, 15, "the job's next relay round")
        assert json.loads(relay.read_text())["workers"]["decode_1"] == 200
        os.kill(pid, signal.SIGSTOP)
        hung = False
        for _ in range(8):  # every refresh, as the TUI polls, until it reads hung: never relayed on the way
            snap = (await feed.refresh(jobs))[0]
            if _stopped_alone(snap):
                hung = True
                break
            await asyncio.sleep(POLL_INTERVAL_S)
        assert hung, describe(snap)
        stopped = next(w for w in snap.workers if w.name == "decode_1")
        assert stopped.detail.startswith("not answering (stopped or overloaded?): "), stopped.detail
        assert "answers from here" in stopped.detail, stopped.detail
    finally:
        if pid:
            os.kill(pid, signal.SIGCONT)
        await feed.aclose()
        srt("cancel", job_id, check=False)
    assert wait_no_pids(job_dir) == []
