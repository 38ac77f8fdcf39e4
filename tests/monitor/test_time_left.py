"""Time left against the job's time limit (issue 21): shown in the job view's summary, with a warning when
under 10 % or 10 minutes remain; nothing for a job without a limit (the local launcher)."""

from __future__ import annotations

from dataclasses import replace

from srt_tui.monitor import cells
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app


def test_time_left_and_its_warning() -> None:
    snap = frozen.nvidia("healthy")  # running for 44m37s at the frozen clock
    now = frozen.NOW
    assert cells.time_left(snap, now) == ("", False)
    assert cells.time_left(replace(snap, time_limit_s=4 * 3600.0), now) == ("3h15m left of 4h00m", False)
    assert cells.time_left(replace(snap, time_limit_s=50 * 60.0), now) == ("5m23s left of 50m00s", True)


async def test_the_job_view_warns_before_the_limit() -> None:
    snap = replace(frozen.nvidia("healthy"), time_limit_s=50 * 60.0)
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(132, 43)) as pilot:
        await pilot.pause()
        summary = str(app.screen.query_one("#job-summary").render())
        assert "⚠ 5m23s left of 50m00s" in summary


async def test_the_summary_counters_give_way_whole_at_80x24() -> None:
    """New-operator pass (2026-12-07), 80x24: `elapsed 1m42s · 28m17s left of 30m00s · requests 340, errors 0
    (router) · 0 r…`, cut mid-word. A part that does not fit beside the others starts the next line whole (the
    sources follow it there when they fit), and no line is past the summary's width."""
    snap = replace(frozen.nvidia("healthy"), time_limit_s=50 * 60.0, requests=34000, errors=0)
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        widget = app.screen.query_one("#job-summary")
        lines = str(widget.render()).splitlines()
        assert all(len(line) <= widget.content_size.width for line in lines), lines
        assert "elapsed 44m37s · ⚠ 5m23s left of 50m00s · requests 34.0k, errors 0 (router)" in lines, lines
        assert "5.5 req/s · sources slurm ✓  job dir ✓  http ✓  gpu exporter ✓" in lines, lines
