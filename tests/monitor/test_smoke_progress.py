"""The smoke test says how it goes while it runs (issue 21, op12 item 1): with decode_0 of a 1P2D job stopped
(`kill -STOP`), `b` showed `running: 20 requests, 4 at a time…` unchanged for the minute its requests waited, beside
the router's `errors 0`. Now its line counts requests done and failed and, once one waits, how long against the
timeout, and says that the router does not count a wait as an error; `srt-tui bench` shows the same on a terminal's
stderr (nothing extra when piped). The hung worker is a real mock worker, stopped, behind the real sglang-router."""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Static

import srt_tui.monitor.probes.smoke as smoke
from srt_tui.bench.stats import Outcome
from srt_tui.cli.main import main
from srt_tui.monitor.feeds.live import LiveFeed
from srt_tui.monitor.probes.smoke import WAITING_NOTE, WAITING_SHORT, SmokeProgress
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.tui.monitor.job_view import JobView
from srt_tui.tui.monitor.screen import MonitorScreen
from tests.conftest import require
from tests.mock.mockprocs import Worker
from tests.monitor import frozen
from tests.monitor.jobdirs import PdJob, start_pd_job, write_agg_job
from tests.monitor.tui_apps import fed_app, frozen_app

JOB = "local-sp1"


def test_the_live_line_counts_requests_and_names_the_longest_wait_against_the_timeout() -> None:
    now = [100.0]
    progress = SmokeProgress(20, 4, 60.0, clock=lambda: now[0])
    assert progress.line() == "0/20 done, 0 failed · 4 at a time, each times out after 60 s"
    for index in range(4):
        progress.sent(index)
    now[0] += 1.0
    progress.ended(0, Outcome(True, 0.1))
    progress.ended(1, Outcome(False, 0.1, error="HTTP 503: busy"))
    assert progress.line() == "2/20 done, 1 failed · 4 at a time, each times out after 60 s"
    now[0] += 40.0  # two still wait on a hung worker
    assert progress.line() == "2/20 done, 1 failed · 2 waiting 41/60 s · not router errors"


async def test_at_80x24_the_job_view_shows_the_whole_live_line_with_its_note() -> None:
    """At 80x24 the job view shows the first line of the smoke test's only: the note (`not in the router's errors:
    …`) went to a second line, seen only on a taller screen, beside the router panel's `errors 0`. The live line's
    parts now fit 80 columns, with the widest counts a job view's test gives (20 requests, 4 at a time)."""
    now = [100.0]
    progress = SmokeProgress(20, 4, 60.0, clock=lambda: now[0])
    for index in range(20):
        progress.sent(index)
        if index < 16:
            progress.ended(index, Outcome(False, 0.1, error="HTTP 503: busy"))
    now[0] += 59.0
    snap = frozen.nvidia("healthy")
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MonitorScreen) and screen.in_job_view
        screen._smoke_progressed(snap.job_id, progress.line())
        await pilot.pause()
        shown = str(screen.query_one("#job-summary", Static).render()).splitlines()
        smoke_lines = [line for line in shown if line.startswith("smoke test ")]
        assert smoke_lines == [f"smoke test 16/20 done, 16 failed · 4 waiting 59/60 s · {WAITING_SHORT}"], shown
        assert all(len(line) <= 78 for line in shown), shown


@pytest.fixture
def hung_pd_job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PdJob]:
    """A 1P2D job behind sglang-router whose decode_0 is stopped; requests time out after 3 s, a wait of 1 s is
    named, the live line is told every 0.2 s."""
    require(importlib.util.find_spec("sglang_router") is not None, "sglang-router is not installed")
    monkeypatch.setattr(smoke, "REQUEST_TIMEOUT_S", 3.0)
    monkeypatch.setattr(smoke, "SLOW_S", 1.0)
    monkeypatch.setattr(smoke, "TICK_S", 0.2)
    job = start_pd_job(tmp_path / JOB, JOB)
    pid = job.workers["decode_0"].proc.popen.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        yield job
    finally:
        os.kill(pid, signal.SIGCONT)
        job.launcher.close()


@pytest.mark.routers
async def test_b_on_a_job_with_a_hung_worker_counts_and_shows_the_wait_while_it_runs(hung_pd_job: PdJob) -> None:
    feed = LiveFeed(monitor_factory=lambda: Monitor(None, connect_timeout=0.5, budget_s=0.5, backoff_cap=0.5))
    app = fed_app(feed, {JOB: hung_pd_job.dir}, interval=0.3)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, MonitorScreen)
        for _ in range(50):
            await pilot.pause(0.1)
            snap = screen.snapshot_of(JOB)
            if snap is not None and snap.is_ready:
                break
        screen.open_job(JOB)
        await pilot.pause()
        await pilot.press("b")
        view = screen.query_one(JobView)
        seen: list[str] = []
        for _ in range(150):
            await pilot.pause(0.1)
            line = view.smoke[JOB]
            if not seen or seen[-1] != line:
                seen.append(line)
            if line.startswith(("✓", "✗")):
                break
        waiting = [s for s in seen if re.fullmatch(r"\d+/20 done, \d+ failed · \d waiting \d/3 s · .*", s)]
        assert waiting, seen  # while requests wait on decode_0, the line says so, and it changed as they went
        assert waiting[0].endswith(f" · {WAITING_SHORT}") and len(seen) > 2, seen
        final = seen[-1]
        assert final.startswith("✗ ") and re.search(
            r"· \d+× timeout after 3s( · [^·]+)* · " + re.escape(WAITING_NOTE) + "$", final
        ), final


def test_bench_on_a_terminal_shows_the_live_line_on_stderr_and_clears_it(
    worker: Worker, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    job = write_agg_job(tmp_path / "job", "local-sp2", [(worker, 0)], nodes=1)
    assert main(["bench", str(job), "-n", "3"]) == 0
    assert capsys.readouterr().err == ""  # piped: nothing extra
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["bench", str(job), "-n", "3"]) == 0
    out = capsys.readouterr()
    assert "\r\x1b[K  0/3 done, 0 failed · 4 at a time, each times out after 60 s" in out.err, repr(out.err)
    assert "\r\x1b[K  3/3 done, 0 failed" in out.err and out.err.endswith("\r\x1b[K"), repr(out.err)
    assert out.out.splitlines()[1].startswith("local-sp2: 3/3 ok, 0 failed")
