"""The job view's smoke-test line says when it ran (issue 21, the operator's cockpit, item 4): it had no time and
stayed forever, also on ended jobs. It says how long ago, by the app's injected clock, and an ended job keeps it as
history, marked `before the job ended` and not in the colours of a live answer."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from srt_tui.monitor import cells
from srt_tui.tui.monitor.job_view import summary
from srt_tui.tui.monitor.messages import SmokeDone
from srt_tui.tui.monitor.screen import MonitorScreen
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app

LINE = "✓ 20/20 ok, 0 failed · latency p50 12 ms, p99 30 ms"


async def test_the_smoke_line_says_how_long_ago_it_ran_and_an_ended_job_keeps_it_as_history() -> None:
    now = [frozen.NOW]
    snap = frozen.nvidia("healthy")
    app = frozen_app([snap], open_job=snap.job_id, clock=lambda: now[0])
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MonitorScreen)
        screen.post_message(SmokeDone(snap.job_id, LINE, ok=True))
        await pilot.pause()

        def said() -> str:
            return str(screen.query_one("#job-summary", Static).render())

        assert "smoke test ✓ 20/20 ok, 0 failed · just now · latency p50 12 ms" in said(), said()
        now[0] += timedelta(minutes=2, seconds=5)
        screen.redraw()
        assert "smoke test ✓ 20/20 ok, 0 failed · 2 min ago · latency" in said(), said()
        screen.snapshots = [replace(snap, stage="completed", slurm_state="COMPLETED")]
        await pilot.pause()
        assert "smoke test ✓ 20/20 ok, 0 failed · 2 min ago, before the job ended · latency" in said(), said()


def test_an_ended_jobs_smoke_line_is_not_drawn_as_a_live_answer() -> None:
    colours = {"ok": "green", "bad": "red", "dim": "grey50", "key": "blue"}

    def st(name: str) -> Style:
        return Style(color=colours[name])

    def style_of(text: Text, piece: str) -> str:
        at = text.plain.index(piece)
        return next(str(span.style) for span in text.spans if span.start <= at < span.end)

    live = frozen.nvidia("healthy")
    ended = replace(live, stage="completed", slurm_state="COMPLETED")
    now = datetime(2026, 3, 1, 12, 0)
    assert style_of(summary(live, now, st, smoke=LINE, width=120), "20/20") == "green"
    assert style_of(summary(ended, now, st, smoke=LINE, width=120), "20/20") == "grey50"


def test_ago_reads_as_an_operator_says_it() -> None:
    assert [cells.ago(s) for s in (0, 9, 40, 125, 3 * 3600 + 5, 2 * 86400)] == [
        "just now",
        "just now",
        "40 s ago",
        "2 min ago",
        "3 h ago",
        "2 d ago",
    ]
