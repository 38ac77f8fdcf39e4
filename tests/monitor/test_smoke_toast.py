"""The smoke test's outcome covers no live data (issue 21, pass 7): at 80×24 its toast sat over the worker table's
HEALTH column. In the job view the outcome is the view's own `smoke test` line and no toast is raised; where that
line is not shown (the jobs list) the toast still says it."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from srt_tui.tui.monitor.messages import SmokeDone
from srt_tui.tui.monitor.screen import MonitorScreen
from srt_tui.tui.monitor.worker_table import WorkerTable
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app

LINE = "✓ 20/20 ok, 0 failed · latency p50 12 ms, p99 30 ms"


def _toasts(app: Any) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_in_the_job_view_the_outcome_is_its_own_line_and_no_toast_covers_the_workers() -> None:
    snap = frozen.nvidia("healthy")
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MonitorScreen) and screen.in_job_view
        screen.post_message(SmokeDone(snap.job_id, LINE, ok=True))
        await pilot.pause()
        await pilot.pause()
        assert "smoke test ✓ 20/20 ok" in str(screen.query_one("#job-summary", Static).render())
        table = screen.query_one(WorkerTable).region
        covering = [t for t in app.screen.query("Toast") if t.region.overlaps(table)]
        assert not covering and not _toasts(app)


async def test_on_the_jobs_list_the_toast_says_it() -> None:
    snap = frozen.nvidia("healthy")
    app = frozen_app([snap])
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MonitorScreen) and not screen.in_job_view
        screen.post_message(SmokeDone(snap.job_id, LINE, ok=True))
        await pilot.pause()
        assert _toasts(app) == [f"{snap.job_id} smoke test: {LINE}"]
