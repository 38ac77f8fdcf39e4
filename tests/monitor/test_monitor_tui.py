"""Monitor mode: snapshots of the jobs table and the job view (NVIDIA and AMD, healthy with GPU
exporter readings and degraded, an exporter that stopped answering; 120×36 and 80×24) from frozen
snapshots and a fixed clock, and Pilot tests of its behaviour."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import ContentSwitcher, DataTable, Input

from srt_tui.monitor.model import JobSnapshot
from srt_tui.tui.logs.screen import LogViewerScreen
from srt_tui.tui.monitor.dialogs import ConfirmCancel
from srt_tui.tui.monitor.messages import JobCancelled
from srt_tui.tui.monitor.screen import MonitorScreen
from tests.monitor import frozen
from tests.monitor.tui_apps import FrozenFeed, fed_app, frozen_app
from tests.tui.scenarios import settle

SIZES = [pytest.param((120, 36), id="120x36"), pytest.param((80, 24), id="80x24")]


@pytest.mark.parametrize("size", SIZES)
def test_jobs_table_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(frozen_app(frozen.fleet()), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("scenario", ["healthy", "degraded"])
@pytest.mark.parametrize("vendor", ["nvidia", "amd"])
def test_job_view_snapshot(snap_compare: Any, vendor: str, scenario: str, size: tuple[int, int]) -> None:
    snap = getattr(frozen, vendor)(scenario)
    assert snap_compare(frozen_app([snap], open_job=snap.job_id), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_job_view_snapshot_exporter_down(snap_compare: Any, size: tuple[int, int]) -> None:
    """node1's GPU exporter stopped answering: its GPUs read `?`, node0's still show their load."""
    snap = frozen.nvidia("exporter-down")
    assert snap_compare(frozen_app([snap], open_job=snap.job_id), terminal_size=size)


def _screen(app: Any) -> MonitorScreen:
    screen = app.screen
    assert isinstance(screen, MonitorScreen)
    return screen


async def test_cancel_goes_through_the_confirmation_dialog() -> None:
    calls: list[tuple[str, Path]] = []
    messages: list[Any] = []
    snaps = [frozen.nvidia("healthy", "81234"), frozen.amd("degraded", "81240")]
    app = frozen_app(snaps, canceller=lambda job, path: calls.append((job, path)))
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await pilot.pause()
        screen = _screen(app)
        job = screen.current_job()
        assert job in ("81234", "81240")
        await pilot.press("c")
        assert isinstance(app.screen, ConfirmCancel)
        await pilot.press("n")  # keep it running
        assert not isinstance(app.screen, ConfirmCancel) and calls == []
        await pilot.press("c")
        assert isinstance(app.screen, ConfirmCancel) and app.screen.job_id == job
        await pilot.press("y")
        await settle(pilot)
    snap = screen.snapshot_of(job)
    assert snap is not None and calls == [(job, Path(snap.job_dir))]
    cancelled = {id(m): m for m in messages if isinstance(m, JobCancelled)}  # the hook sees it per node it reaches
    assert [m.job_id for m in cancelled.values()] == [job]


async def test_read_only_hides_cancel() -> None:
    calls: list[str] = []
    app = frozen_app([frozen.nvidia()], read_only=True, canceller=lambda job, path: calls.append(job))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert "c" not in app.screen.active_bindings
        await pilot.press("c")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmCancel) and calls == []


def _showing(screen: MonitorScreen) -> str:
    """The Monitor's view shown: the jobs list or a job's."""
    return str(screen.query_one(ContentSwitcher).current)


async def test_filter_sort_open_and_back() -> None:
    app = frozen_app(frozen.fleet())
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = _screen(app)
        await pilot.press("slash", *"mi3")
        app.screen.query_one("#jobs-filter", Input).value = "mi300x"
        await pilot.press("enter")  # opens the highlighted match; the list stays filtered behind it
        table: DataTable[Any] = app.screen.query_one("#jobs-table", DataTable)
        opened = screen.snapshot_of(screen.selected)
        assert screen.in_job_view and opened is not None and opened.profile == "amd-mi300x"
        assert table.row_count == 2
        await pilot.press("escape")  # back to the filtered list
        assert _showing(screen) == "jobs-view" and table.row_count == 2
        await pilot.press("escape")
        assert table.row_count == 5
        await pilot.press("slash")
        app.screen.query_one("#jobs-filter", Input).value = "!failed !pending"
        await pilot.press("tab")  # the keys to the list, the filter kept
        assert table.row_count == 3 and _showing(screen) == "jobs-view"
        await pilot.press("escape", "s")
        assert screen.sort == "job"
        await pilot.press("enter")
        assert screen.in_job_view and screen.selected == screen.query_one("#jobs-view").highlighted_job  # type: ignore[attr-defined]
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, LogViewerScreen)
        await pilot.press("escape")  # closes the log viewer first
        await settle(pilot)
        assert app.screen is screen and screen.in_job_view
        await pilot.press("escape")
        assert not screen.in_job_view


class SlowFeed:
    """A feed whose refresh takes ``delay`` seconds; records overlapping calls."""

    def __init__(self, snaps: list[JobSnapshot], delay: float) -> None:
        self.inner = FrozenFeed(snaps)
        self.delay = delay
        self.active = 0
        self.max_active = 0
        self.calls = 0

    async def refresh(self, jobs: Mapping[str, Path]) -> list[JobSnapshot]:
        self.active += 1
        self.calls += 1
        self.max_active = max(self.max_active, self.active)
        await asyncio.sleep(self.delay)
        self.active -= 1
        return await self.inner.refresh(jobs)

    async def aclose(self) -> None:
        pass


async def test_polls_never_overlap_and_keys_work_during_a_slow_refresh() -> None:
    snaps = frozen.fleet()
    feed = SlowFeed(snaps, delay=0.4)
    app = fed_app(feed, {s.job_id: Path(s.job_dir) for s in snaps}, interval=0.05)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = _screen(app)
        for _ in range(6):  # `r` while a poll runs asks for one more after it, never a parallel one
            await pilot.press("r")
            await pilot.pause(0.1)
        while not screen._polling:
            await pilot.pause(0.01)
        key = events.Key("s", "s")  # straight to the driver, as a terminal key arrives
        key.set_sender(app)
        started = time.monotonic()
        assert app._driver is not None
        app._driver.send_message(key)
        while screen.sort != "job" and time.monotonic() - started < 5:
            await asyncio.sleep(0.002)
        handled = time.monotonic() - started
        assert screen._polling, "the key was handled while the feed was still blocked"
        await pilot.pause(1.0)
    assert feed.max_active == 1
    assert feed.calls >= 2 and screen.polls >= 2
    assert handled < 0.25, f"a key took {handled:.2f}s during a refresh"


async def test_add_a_job_launched_elsewhere_by_directory(tmp_path: Path) -> None:
    from srt_tui.state.jobindex import known_jobs

    job_dir = tmp_path / "777001"
    job_dir.mkdir()
    (job_dir / "job.json").write_text('{"job_id": "777001", "name": "elsewhere"}')
    app = frozen_app([frozen.nvidia()])
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = _screen(app)
        await pilot.press("a")
        await settle(pilot)  # the prompt is a screen of its own
        app.screen.query_one(Input).value = str(job_dir)  # typing it key by key only slows the test
        await pilot.press("enter")
        await settle(pilot)
        assert screen.tracked.get("777001") == job_dir.resolve()
    assert known_jobs().get("777001") == job_dir.resolve()  # remembered for `srt-tui status` too


async def test_a_failed_job_opens_on_the_worker_that_failed_it() -> None:
    """The cursor, the problems panel and `l` lead to the failing worker's log, not the first row's."""
    from dataclasses import replace

    from srt_tui.tui.monitor.worker_table import WorkerTable

    failed = frozen.nvidia("failed", "81299")
    culprit = failed.workers[-1]  # decode_0, not the first row
    failed = replace(failed, failure_log=culprit.log,
                     stage_detail=f"worker {culprit.name} exited with code 3; log: {culprit.log}")  # fmt: skip
    app = frozen_app([failed], open_job="81299")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = _screen(app)
        assert screen.in_job_view
        assert screen.query_one(WorkerTable).highlighted_worker == culprit.name
        await pilot.press("l")
        await settle(pilot)
        viewer = app.screen
        assert isinstance(viewer, LogViewerScreen) and viewer.ref.path == culprit.log


async def test_the_log_of_a_failed_job_opens_readable_at_80x24() -> None:
    """At 80×24 `l` opens the log full screen: rows to read, and Esc returns to the job view as it was."""
    from srt_tui.tui.logs.log_view import LogView

    failed = frozen.nvidia("failed", "81299")
    app = frozen_app([failed], open_job="81299")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = _screen(app)
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, LogViewerScreen)
        assert app.screen.query_one(LogView).scrollable_content_region.height >= 18
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and screen.query_one("#job-top").display


@pytest.mark.parametrize("vendor", ["nvidia", "amd"])
async def test_80x24_job_view_keeps_the_numbers_and_the_masks(vendor: str) -> None:
    """The counters line shows req, req/s and errors, and the Workers table its mask column (CUDA or ROCR)."""
    from srt_tui.tui.monitor.job_view import JobSummary
    from srt_tui.tui.monitor.worker_table import WorkerTable

    snap = getattr(frozen, vendor)("degraded")
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        summary = _screen(app).query_one(JobSummary)
        line = "".join(seg.text for seg in summary.render_line(2))
        assert "requests " in line and "/s" in line and "errors " in line, line
        table = _screen(app).query_one(WorkerTable)
        headers = [str(c.label) for c in table.columns.values()]
        env = "CUDA" if vendor == "nvidia" else "ROCR"
        assert env in headers  # the mask column, named for CUDA_ or ROCR_VISIBLE_DEVICES
        assert sum(c.get_render_width(table) for c in table.columns.values()) <= table.scrollable_content_region.width


async def test_sorting_reorders_the_rows_in_place() -> None:
    """A sort key re-orders the table's rows and relabels the header without rebuilding the table (issue 22:
    at 64 jobs a rebuild and re-layout per key press was most of the key latency); every order shown is the
    model's."""
    from textual.coordinate import Coordinate

    from srt_tui.tui.monitor import jobs_model
    from srt_tui.tui.monitor.jobs_view import JobsView

    app = frozen_app(frozen.fleet())
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = _screen(app)
        view = screen.query_one(JobsView)
        table = view.table
        for _ in range(4):
            await pilot.press("s")
            await pilot.press("r")
            await pilot.pause()
            rows = jobs_model.arrange(screen.snapshots, "", screen.sort, screen.reverse, screen.now())
            want = [s.job_id for s in rows]
            shown = [table.coordinate_to_cell_key(Coordinate(row, 0)).row_key.value for row in range(table.row_count)]
            assert shown == want, (screen.sort, screen.reverse)
            arrows = [str(c.label) for c in table.columns.values() if str(c.label).endswith(("↑", "↓"))]
            assert arrows and arrows[0].endswith("↓" if screen.reverse else "↑") and len(arrows) == 1, arrows


async def test_a_sort_that_widens_a_header_resizes_its_column_in_place() -> None:
    """The sort arrow widens a header narrower than its values (`REQ/S ↓`): the columns take their new widths in
    place, as drawn as a rebuilt table (issue 22: every other sort key cleared the table and measured each cell
    again, a third of the key's time at 64 jobs)."""
    from srt_tui.tui.monitor.jobs_model import SORTS
    from srt_tui.tui.monitor.jobs_view import JobsView

    app = frozen_app(frozen.fleet())
    async with app.run_test(size=(140, 36)) as pilot:  # wide enough that no column gives way to an arrow
        await pilot.pause()
        screen = _screen(app)
        view = screen.query_one(JobsView)
        table = view.table
        resized = 0
        for _ in range(len(SORTS)):
            rows, widths = dict(table.rows), [c.width for c in table.columns.values()]
            await pilot.press("s")
            await pilot.pause()
            assert all(table.rows[key] is row for key, row in rows.items()), screen.sort  # not rebuilt
            resized += [c.width for c in table.columns.values()] != widths
            drawn = [table.render_line(y).text for y in range(table.size.height)]
            virtual = table.virtual_size
            view._header = ()  # the next redraw rebuilds the table: what it draws is the reference
            screen.redraw()
            await pilot.pause()
            assert [table.render_line(y).text for y in range(table.size.height)] == drawn, screen.sort
            assert table.virtual_size == virtual, screen.sort
        assert resized >= 2, resized  # the arrow came to a narrow header and left it


@pytest.mark.parametrize("width", [64, 80, 120])
async def test_s_steps_through_the_columns_on_screen(width: int) -> None:
    """Operator pass (issue 21): at 80 columns `s` sorted by ELAPSED, which had given way: no header showed the
    arrow. `s` steps through the columns shown (and submission time, which has none)."""
    from srt_tui.tui.monitor.jobs_model import SORTS
    from srt_tui.tui.monitor.jobs_view import JobsView

    app = frozen_app(frozen.fleet())
    async with app.run_test(size=(width, 24)) as pilot:
        await pilot.pause()
        screen = _screen(app)
        view = screen.query_one(JobsView)
        seen = []
        for _ in range(len(SORTS) + 1):
            await pilot.press("s")
            await pilot.pause()
            seen.append(screen.sort)
            # the order chosen is one the operator can see: its column, arrow and all, is on screen
            assert screen.sort == "submitted" or screen.sort in view.shown_columns, (screen.sort, view.shown_columns)
        assert "submitted" in seen and len(set(seen)) > 3, seen


async def test_cancelling_a_queued_job_offers_to_keep_it_queued() -> None:
    """Operator pass (issue 21): cancelling a PENDING job offered `Keep running (n)`; nothing runs yet."""
    from textual.widgets import Button

    pending = next(s for s in frozen.fleet() if s.slurm_state == "PENDING")
    app = frozen_app([pending], open_job=pending.job_id)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        dialog = app.screen
        assert isinstance(dialog, ConfirmCancel)
        assert str(dialog.query_one("#confirm-no", Button).label) == "Keep it queued (n)"
        assert "leaves Slurm's queue" in str(dialog.query_one("#confirm-note").render())
