"""The Monitor's refreshes in a process of its own (`ChildFeed`, what the TUI uses; issue 22: a refresh of 1,024
endpoints held the TUI's event loop): real job directories, a real mock worker, a real child process."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from srt_tui.monitor.feeds.process import ChildFeed
from tests.mock.mockprocs import Launcher
from tests.monitor.jobdirs import write_agg_job

REPO = Path(__file__).resolve().parents[2]


def jobs(tmp_path: Path, launcher: Launcher) -> dict[str, Path]:
    """A running job of one real mock worker and a job that has ended."""
    (worker,) = launcher.workers(("regular", "agg_0"))
    running = write_agg_job(tmp_path / "run", "local-cf1", [(worker, 0)], nodes=1)
    ended = write_agg_job(
        tmp_path / "end", "local-cf2", [(worker, 0)], nodes=1, stages=("submitted", "starting", "serving", "completed")
    )
    return {"local-cf1": running, "local-cf2": ended}


def pid_of(feed: ChildFeed) -> int:
    assert feed._proc is not None
    return feed._proc.pid


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"


async def test_child_refreshes_sends_an_ended_job_once_and_stops_on_close(tmp_path: Path) -> None:
    launcher = Launcher(tmp_path)
    feed = ChildFeed(connect_timeout=0.5, budget_s=0.5, backoff_cap=0.5)
    try:
        tracked = jobs(tmp_path, launcher)
        first = await feed.refresh(tracked)
        assert [s.job_id for s in first] == ["local-cf1", "local-cf2"]
        for _ in range(20):  # the worker's health as the child's probes see it
            running, ended = await feed.refresh(tracked)
            if running.workers and running.workers[0].health == "healthy":
                break
            await asyncio.sleep(0.2)
        assert running.workers[0].health == "healthy" and not running.is_final
        assert ended.is_final
        again = await feed.refresh(tracked)
        assert again[1] is ended  # frozen in the child: not sent again, the one already here is reused
        alone = await feed.refresh({"local-cf1": tracked["local-cf1"]})  # the jobs changed: sent again
        assert [s.job_id for s in alone] == ["local-cf1"]
        assert [s.job_id for s in await feed.refresh(tracked)] == ["local-cf1", "local-cf2"]
        pid = pid_of(feed)
        assert os.getpgid(pid) == pid  # a session of its own: the terminal's Ctrl-C never reaches it
    finally:
        await feed.aclose()
        launcher.close()
    for _ in range(50):
        if gone(pid):
            break
        await asyncio.sleep(0.05)
    assert gone(pid)


async def test_a_dead_child_is_reported_then_started_anew(tmp_path: Path) -> None:
    launcher = Launcher(tmp_path)
    feed = ChildFeed(connect_timeout=0.5, budget_s=0.5, backoff_cap=0.5)
    try:
        tracked = jobs(tmp_path, launcher)
        await feed.refresh(tracked)
        first = pid_of(feed)
        os.kill(first, signal.SIGKILL)
        with pytest.raises(RuntimeError, match=r"the monitor process exited \(-9\)"):
            await feed.refresh(tracked)
        snaps = await feed.refresh(tracked)  # the next refresh starts another child
        assert [s.job_id for s in snaps] == ["local-cf1", "local-cf2"]
        assert pid_of(feed) != first
    finally:
        await feed.aclose()
        launcher.close()


async def test_a_chatty_monitor_does_not_break_the_frames(tmp_path: Path) -> None:
    launcher = Launcher(tmp_path)
    feed = ChildFeed(factory="tests.fixtures.monitor_factories:noisy", env={"PYTHONPATH": str(REPO)})
    try:
        snaps = await feed.refresh(jobs(tmp_path, launcher))
        assert [s.job_id for s in snaps] == ["local-cf1", "local-cf2"]
    finally:
        await feed.aclose()
        launcher.close()


async def test_a_child_that_cannot_start_says_why(tmp_path: Path) -> None:
    env = {"PYTHONPATH": str(REPO)}
    failing = ChildFeed(factory="tests.fixtures.monitor_factories:broken", env=env)  # fails inside its refresh
    missing = ChildFeed(factory="tests.fixtures.no_such_module:monitor", env=env)  # dies before it answers
    try:
        with pytest.raises(RuntimeError, match=r"^ImportError: no module named 'srt_tui_missing_part'$"):
            await failing.refresh({"local-x": tmp_path})
        with pytest.raises(RuntimeError, match=r"exited \(1\): ModuleNotFoundError: .*tests.fixtures.no_such_module"):
            await missing.refresh({"local-x": tmp_path})
    finally:
        await failing.aclose()
        await missing.aclose()
