"""The Monitor's `/` filter names a job by its id (issue 21, new-operator pass op9, defect 3): with jobs 5, 8 and 9
(8 and 9 a sweep whose group id `msw-316509` holds a 5), `/5` Enter left the cursor on job 8, the first row the
filter kept, and a `c` after it asked to cancel job 8. The cursor goes to the row whose id or name answers the filter
best (exact, then a prefix, then a substring; the topmost of equals), and Enter opens it."""

from __future__ import annotations

from dataclasses import replace

from textual.coordinate import Coordinate
from textual.widgets import DataTable

from srt_tui.core.text.words import best_named
from srt_tui.monitor.model import JobSnapshot
from srt_tui.tui.monitor import jobs_model
from srt_tui.tui.monitor.alljobs.screen import AllJobsScreen
from srt_tui.tui.monitor.alljobs.source import FrozenJobsSource
from srt_tui.tui.monitor.dialogs import ConfirmCancel
from srt_tui.tui.monitor.screen import MonitorScreen
from tests.monitor import frozen
from tests.monitor.alljobs_frozen import FACTS, app_with, job, rows
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import settle
from tests.tui.tui_helpers import burst

GROUP = "msw-316509"


def _jobs() -> list[JobSnapshot]:
    """Job 5 alone, then the sweep of 8 and 9 submitted after it (so listed above it, newest first)."""
    alone = replace(frozen.nvidia("healthy", "5"), name="mocker-1p1d", submitted_at="2026-03-01T11:00:00Z")
    sweep = [
        replace(
            frozen.amd("healthy", job_id),
            name=f"msw_osl{osl}",
            group=GROUP,
            group_member=f"sweep[{i}]",
            submitted_at="2026-03-01T11:10:00Z",
        )  # fmt: skip
        for i, (job_id, osl) in enumerate((("8", 8), ("9", 16)))
    ]
    return [alone, *sweep]


def test_the_best_named_row_is_the_exact_id_then_a_prefix_then_a_substring() -> None:
    rows = [("8", "msw_osl8"), ("15", "a"), ("51", "b"), ("5", "c"), ("local-5", "d")]
    assert best_named(rows, "5") == 3  # the exact id, below three rows the filter also keeps
    assert best_named(rows[:3] + rows[4:], "5") == 2  # no exact one: the id that starts with it
    assert best_named([rows[0], rows[1], rows[4]], "5") == 2  # `local-5`: 5 starts a word of it; `15` only holds it
    assert best_named([("7", "x"), ("8", "y")], "msw") == 0  # nothing named: the topmost, as listed
    assert best_named([("7", "mocker-1p1d-smg"), ("8", "mocker-1p1d")], "mocker-1p1d") == 1  # an exact name
    assert best_named([], "5") is None
    snaps = _jobs()
    assert jobs_model.best_match(snaps[::-1], "5") == "5" and jobs_model.best_match(snaps, "") is None


async def test_slash_an_id_enter_opens_that_job_and_c_asks_to_cancel_it() -> None:
    cancelled: list[str] = []
    app = frozen_app(_jobs(), canceller=lambda job_id, path: cancelled.append(job_id))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        monitor = app.screen
        assert isinstance(monitor, MonitorScreen)
        table: DataTable[object] = monitor.query_one("#jobs-table", DataTable)
        listed = [str(table.coordinate_to_cell_key(Coordinate(i, 0)).row_key.value) for i in range(table.row_count)]
        assert listed == ["8", "9", "5"]  # the sweep on top: the rows `/5` keeps, in this order
        burst(app, "/", "5")
        await settle(pilot)
        assert table.row_count == 3 and monitor.current_job() == "5"  # highlighted while typed
        burst(app, "enter", "c")
        await settle(pilot)
        assert monitor.in_job_view and monitor.selected == "5"
        dialog = app.screen
        assert isinstance(dialog, ConfirmCancel) and dialog.job_id == "5", dialog
        await pilot.press("escape")
        await settle(pilot)
        assert cancelled == []
        await pilot.press("escape")  # back to the list, still filtered, the cursor on the job opened
        await settle(pilot)
        assert not monitor.in_job_view and table.row_count == 3 and monitor.current_job() == "5"
        burst(app, "/", *"msw", "down", "enter")  # ↓ while typing: the next match is the one Enter opens
        await settle(pilot)
        assert monitor.in_job_view and monitor.selected == "9"


async def test_the_all_jobs_filter_opens_the_job_its_id_names() -> None:
    """All my Slurm jobs (`A`) filter the same way: `/81290` (a row below others holding that text in their
    output directory or times) opens the Slurm job 81290's job view."""
    listed = rows()
    listed.insert(0, replace(listed[1], job=job("812900", "sleep-wrap-2", "RUNNING")))
    app = app_with(FrozenJobsSource("ann", listed, FACTS))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("A")
        await settle(pilot)
        shown = app.screen
        assert isinstance(shown, AllJobsScreen)
        burst(app, "/", *"81290", "enter")
        await settle(pilot)
        monitor = app.screen
        assert isinstance(monitor, MonitorScreen) and monitor.in_job_view and monitor.selected == "81290"
