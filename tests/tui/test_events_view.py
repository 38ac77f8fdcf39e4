"""`e` in the Monitor opens the job's events (operator pass, stop 29: "an events timeline"): its stages and its
workers' health changes in time order, the newest at the bottom, following the live Monitor; q goes back."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from srt_tui.core.jobdir.events import append_event
from srt_tui.tui.monitor.events_view import EventsScreen
from srt_tui.tui.monitor.screen import MonitorScreen
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app, live_agg_app, until_healthy
from tests.tui.scenarios import settle


def _rows(screen: EventsScreen) -> list[tuple[str, str]]:
    """(WHO, WHAT) of each row, as drawn."""
    table = screen.query_one(DataTable)
    keys = [c.key.value for c in table.ordered_columns]
    who, what = keys.index("who"), keys.index("what")
    return [(str(r[who]), str(r[what])) for r in (table.get_row_at(i) for i in range(table.row_count))]


async def test_events_follow_the_live_monitor_a_worker_going_down_and_the_jobs_new_stage(tmp_path: Path) -> None:
    """Real parts: the real Monitor polling a real mock worker, killed while the events are open."""
    with live_agg_app(tmp_path, "local-ev") as (app, worker, job_dir):
        async with app.run_test(size=(100, 30)) as pilot:
            monitor = app.screen
            assert isinstance(monitor, MonitorScreen)
            await until_healthy(pilot, monitor, "local-ev")
            await pilot.press("e")
            events = app.screen
            assert isinstance(events, EventsScreen)
            for _ in range(30):
                await pilot.pause(0.1)
                if ("agg_0", "healthy") in _rows(events):
                    break
            before = _rows(events)
            assert before[0][0] == "job" and ("agg_0", "healthy") in before

            worker.proc.stop()
            append_event(job_dir, "failed", "worker agg_0 exited with code 1")
            for _ in range(50):
                await pilot.pause(0.1)
                if len(_rows(events)) >= len(before) + 2:
                    break
            after = _rows(events)
            assert {("agg_0", "down"), ("job", "failed")} <= set(after) - set(before)
            table = events.query_one(DataTable)
            assert table.cursor_row == table.row_count - 1  # the newest, as a log's end
            await pilot.press("q")
            await pilot.pause()
            assert app.screen is monitor


SIZES = [pytest.param((120, 36), id="120x36"), pytest.param((80, 24), id="80x24")]


@pytest.mark.parametrize("size", SIZES)
def test_events_of_a_degraded_job(
    snap_compare: Any, tmp_path: Path, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its stages, then the decode seen going down in the fault's colour; a detail wider than its column wraps whole
    words onto a taller row (at 80 columns `serving at http://10.1.0.11:` and `(retry in` were cut at the edge)."""
    monkeypatch.setenv("TZ", "UTC")  # the view says local time: the machine's zone must not move the drawing
    time.tzset()
    snap = frozen.degraded_with_events(tmp_path / "81234")

    async def open_events(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press("e")
        await settle(pilot)

    try:
        assert snap_compare(frozen_app([snap], open_job="81234"), terminal_size=size, run_before=open_events)
    finally:
        monkeypatch.undo()
        time.tzset()


async def test_a_detail_wider_than_its_column_wraps_whole_words_at_80_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Operator pass: at 80x24 a detail was cut at the screen's edge, mid-word (`serving at http://10.1.0.11:`, the
    down worker's `(retry in`, its seconds gone). Each detail shows whole, its words on as many lines as it needs,
    within its column; the row is that tall."""
    snap = frozen.degraded_with_events(tmp_path / "81234")
    app = frozen_app([snap], open_job="81234")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("e")
        await settle(pilot)
        events = app.screen
        assert isinstance(events, EventsScreen)
        table = events.query_one(DataTable)
        column = next(c for c in table.ordered_columns if c.key.value == "detail")
        details = [e.detail for e in events._shown]
        assert "connection refused (retry in 2.0 s)" in details
        for i, detail in enumerate(details):
            lines = str(table.get_row_at(i)[table.ordered_columns.index(column)]).split("\n")
            assert " ".join(lines) == detail and all(len(line) <= column.width for line in lines), (lines, column)
            assert table.rows[table.ordered_rows[i].key].height == len(lines)
        assert any(len(str(table.get_row_at(i)[-1]).split("\n")) > 1 for i in range(table.row_count))


async def test_the_events_title_says_what_its_count_counts(tmp_path: Path) -> None:
    """Operator pass (issue 21, 2026-12-07): the title read `Events of 81234 … · 18 · local time`: 18 what?"""
    snap = frozen.degraded_with_events(tmp_path / "81234")
    app = frozen_app([snap], open_job="81234")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("e")
        await settle(pilot)
        events = app.screen
        assert isinstance(events, EventsScreen)
        title = str(events.query_one("#events-title", Static).content)
        # new-operator pass (2026-12-07): `srt-tui events` printed 9, `e` 17; the difference is named, so the
        # counts reconcile (the job directory's events, and the health changes only this Monitor saw)
        healths = sum(e.who != "job" for e in events._shown)
        assert healths and len(events._shown) > healths
        count = f"{len(events._shown)} events ({healths} health changes this Monitor saw)"
        assert f" · {count} · local time" in title, title
