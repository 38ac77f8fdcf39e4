"""s36's new-operator pass with the real parts: the `local` demo's mocker-1p2d behind the real sglang-router.

- both decode workers stopped (`kill -STOP`): the stage said `serving`, while no request could be served;
- the router killed (`kill -9`): blamed on a WARN line of its log, `router router …`;
- an ended job's workers `ended with the job` were stamped when the Monitor looked, not when the job ended."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path

import pytest

from srt_tui.monitor.feeds.live import LiveFeed
from srt_tui.monitor.model import JobSnapshot
from tests.conftest import REPO
from tests.e2e.jobtools import apply, job_story, srt, wait_no_pids, wait_ready
from tests.e2e.test_local_hung_worker import _worker_pid
from tests.mock.mockprocs import wait_until

pytestmark = pytest.mark.routers

RECIPE = str(REPO / "recipes/mocker/mocker-1p2d.yaml")


def _status(job_id: str) -> str:
    """`srt-tui status JOB` as an operator reads it (a pipe: every column whole)."""
    return srt("status", job_id, check=False).stdout


def _router_pid(job_dir: Path) -> int:
    """The pid of the job's router: the launch script's child whose command names the router."""
    script = int(json.loads((job_dir / "local.json").read_text())["pid"])
    for proc in Path("/proc").iterdir():
        try:
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmd = (proc / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == script and b"router" in cmd:
            return int(proc.name)
    raise AssertionError(f"no router among the children of {script}")


def test_stopped_decode_workers_read_degraded_then_fewer() -> None:
    job_id, job_dir = apply(RECIPE, "--launcher", "local", "-p", "local")
    pids: list[int] = []
    try:
        wait_ready(job_id)
        pids = [_worker_pid(job_dir, "decode_0"), _worker_pid(job_dir, "decode_1")]
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        said = "degraded · no healthy decode worker (2 hung)"
        wait_until(lambda: said in _status(job_id), 30, f"`{said}` in status")
        os.kill(pids.pop(), signal.SIGCONT)  # decode_1 answers again: it serves with one decode
        fewer = "serving · 1/2 decode workers healthy (1 hung)"
        wait_until(lambda: fewer in _status(job_id), 30, f"`{fewer}` in status")
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)
        srt("cancel", job_id, check=False)
    assert wait_no_pids(job_dir) == []


def test_a_killed_router_is_said_killed_never_blamed_on_a_warning() -> None:
    job_id, job_dir = apply(RECIPE, "--launcher", "local", "-p", "local")
    try:
        wait_ready(job_id)
        decode = _worker_pid(job_dir, "decode_1")
        log = job_dir / "logs" / "router.log"
        os.kill(decode, signal.SIGSTOP)  # the router's health checks of it fail: it logs WARN lines
        try:
            wait_until(lambda: "WARN" in log.read_text(errors="replace"), 30, "a WARN line in the router's log")
        finally:
            os.kill(decode, signal.SIGCONT)
        os.kill(_router_pid(job_dir), signal.SIGKILL)
        wait_until(lambda: "failed" in _status(job_id), 30, f"the job failing\n{job_story(job_dir)}")
        out = _status(job_id)
        assert "failed: router was killed (signal 9)" in out, out
        assert "router router" not in out, out
        assert "it was killed by signal 9 (SIGKILL" in out, out
        assert "WARN" not in out, out  # a warning is never the reason
    finally:
        srt("cancel", job_id, check=False)
    assert wait_no_pids(job_dir) == []


def test_workers_of_an_ended_job_are_stamped_when_it_ended() -> None:
    job_id, job_dir = apply(RECIPE, "--launcher", "local", "-p", "local")
    try:
        wait_ready(job_id)
    finally:
        srt("cancel", job_id, check=False)
    assert wait_no_pids(job_dir) == []

    async def first_look() -> JobSnapshot:
        await asyncio.sleep(2)  # the Monitor first looks at it well after it ended
        feed = LiveFeed()
        try:
            return (await feed.refresh({job_id: job_dir}))[0]
        finally:
            await feed.aclose()

    snap = asyncio.run(first_look())
    assert snap.stage == "cancelled" and snap.ended_at, snap
    for w in snap.workers:
        assert [(c.at, c.health) for c in w.health_history] == [(snap.ended_at[:19] + "Z", "down")], w
