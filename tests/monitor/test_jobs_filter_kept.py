"""The Monitor's `/` filter reads what names a job and where it is, and a kept filter is seen (issue 21, new-operator
pass op11): `/8` Enter opened job 8, Esc back kept the filter `8` (as documented), and jobs 10 and 9 were listed only
because their ELAPSED read `18s`; seconds later they vanished (`4 of 21 jobs · filter '8'`, the one word in the line
under the list). Later the kept `8` hid job 14, just submitted from this TUI, so the cursor (and `c`, `l`, `R`) stayed
on another job. Now: the filter never matches a ticking time or another figure that moves by itself; a kept filter
frames the list, its title `filter '8' · 1 of 3 jobs · Esc clears`; a job just submitted that it would hide clears
it, and a toast says so."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Input

from srt_tui.core.results.progress import BenchProgress
from srt_tui.monitor.model import JobSnapshot, iso_utc
from srt_tui.tui.monitor import jobs_model
from srt_tui.tui.monitor.screen import MonitorScreen
from tests.monitor import frozen
from tests.monitor.tui_apps import FrozenFeed, fed_app, frozen_app
from tests.tui.scenarios import settle


def _job(job_id: str, started_s_ago: float, **changes: Any) -> JobSnapshot:
    """A running mocker job started ``started_s_ago`` seconds before the frozen clock, whose figures hold 8s (8 req/s,
    18 errors) and whose names do not."""
    base = frozen.nvidia("healthy", job_id)
    started = iso_utc((frozen.NOW - timedelta(seconds=started_s_ago)).timestamp())
    said: dict[str, Any] = {"name": "mocker-1p2d", "started_at": started, "submitted_at": started,
                            "rate_per_s": 8.0, "errors": 18.0, "served_errors": 18.0,
                            "job_dir": f"/scratch/out/{job_id}"}  # fmt: skip
    return replace(base, **(said | changes))


def _fleet() -> list[JobSnapshot]:
    """Job 8 (its id says 8), jobs 9 and 10 started 18 s ago (ELAPSED `18s`)."""
    return [_job("8", 600), _job("9", 18), _job("10", 18)]


def _esc_says(screen: MonitorScreen) -> str | None:
    """What the footer says Esc does."""
    from textual.widgets._footer import FooterKey

    return next((key.description for key in screen.query(FooterKey) if key.key_display == "esc"), None)


def _ids(rows: list[JobSnapshot]) -> list[str]:
    return sorted(s.job_id for s in rows)


def test_the_filter_never_matches_a_ticking_time_or_a_figure() -> None:
    now = frozen.NOW
    fleet = _fleet()
    assert jobs_model.cell(fleet[1], "elapsed", now) == "18s" and jobs_model.cell(fleet[1], "errors", now) == "18"
    for later in (0, 2, 30):  # seconds pass: the rows it keeps do not change
        assert _ids(jobs_model.arrange(fleet, "8", "submitted", True, now + timedelta(seconds=later))) == ["8"]
    # what names a job and where it is: id, name, sweep group, profile, engine, topology, state, stage
    swept = replace(fleet[2], group="msw-316509", group_member="sweep[1]")
    every = ["10", "8", "9"]
    named = [("mocker", every), ("1p2d", every), ("msw", ["10"]), ("nvidia-h100", every), ("running", every),
             ("serving", every), ("sglang", every), ("!8", ["10", "9"])]  # fmt: skip
    for query, expected in named:
        assert _ids(jobs_model.arrange([*fleet[:2], swept], query, "job", False, now)) == expected, query
    # a running benchmark's counts are figures too: its STAGE reads `bench 1/3 18/40`, the filter `benchmark`
    progress = BenchProgress("measure", 1, 3, 4, 18, 40, 18, 120, 30.0, 20.0)
    benching = replace(fleet[1], stage="benchmark", bench=progress)
    assert "18/40" in jobs_model.cell(benching, "stage", now)
    assert "18" not in jobs_model.filter_text(benching) and "benchmark" in jobs_model.filter_text(benching)


async def test_a_kept_filter_frames_the_list_with_its_count_and_how_to_clear_it() -> None:
    app = frozen_app(_fleet())
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MonitorScreen)
        table: DataTable[Any] = screen.query_one("#jobs-table", DataTable)
        assert table.row_count == 3 and not table.has_class("-filtered") and not table.border_title
        await pilot.press("slash", "8", "enter")  # opens job 8, the list filtered behind it
        await settle(pilot)
        assert screen.in_job_view and screen.selected == "8"
        assert _esc_says(screen) == "Back"  # the job view's Esc goes back to the list, the filter kept
        await pilot.press("escape")
        await settle(pilot)
        assert not screen.in_job_view and table.row_count == 1
        assert _esc_says(screen) == "Clear filter"  # what Esc does next (it said `Back`, and cleared the filter)
        # the field gave the keys back and left; the list's own frame says the filter, in the warning colour
        assert screen.query_one("#jobs-filter", Input).has_class("hidden")
        assert table.has_class("-filtered") and str(table.border_title) == " filter '8' · 1 of 3 jobs · Esc clears "
        assert table.styles.border_top[0] != "" and table.region.width == 100
        await pilot.press("slash")  # the field again, the filter in it to edit
        await settle(pilot)
        field = screen.query_one("#jobs-filter", Input)
        assert not field.has_class("hidden") and field.value == "8" and field.has_focus
        await pilot.press("tab")  # the keys to the list: the field goes, the frame stays
        await settle(pilot)
        assert field.has_class("hidden") and table.has_class("-filtered") and table.row_count == 1
        assert _esc_says(screen) == "Clear filter"
        await pilot.press("escape")
        await settle(pilot)
        assert table.row_count == 3 and not table.has_class("-filtered") and not table.border_title
        assert _esc_says(screen) is None  # the bare list: nothing for Esc to do


async def test_a_job_just_submitted_that_the_filter_would_hide_clears_it() -> None:
    feed = FrozenFeed(_fleet())
    app = fed_app(feed, {s.job_id: Path(s.job_dir) for s in feed.snapshots})
    async with app.run_test(size=(100, 24), notifications=True) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MonitorScreen)
        await pilot.press("slash", "8", "enter", "escape")
        await settle(pilot)
        assert screen.query_text == "8"
        # job 14 is submitted from Launch (the app calls focus_job); its first snapshot comes with a later refresh
        new = _job("14", 1, name="mocker-1p1d", rate_per_s=None, errors=None)
        feed.snapshots.append(new)
        screen.focus_job("14", Path(new.job_dir))
        for _ in range(50):
            await pilot.pause(0.1)
            if screen.snapshot_of("14") is not None:
                break
        await settle(pilot)
        said = [str(n.message) for n in app._notifications]
        assert screen.query_text == "" and "Filter '8' cleared: it would hide job 14, just submitted." in said, said
        assert screen.in_job_view and screen.selected == "14"
        await pilot.press("escape")  # back in the list: every job, the cursor on the new one
        await settle(pilot)
        table: DataTable[Any] = screen.query_one("#jobs-table", DataTable)
        assert table.row_count == 4 and screen.current_job() == "14" and not table.has_class("-filtered")


async def test_a_filter_that_lists_the_job_just_submitted_stays() -> None:
    new = _job("14", 1, name="mocker-1p1d")
    app = frozen_app([*_fleet(), new])
    async with app.run_test(size=(100, 24), notifications=True) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MonitorScreen)
        await pilot.press("slash", *"1p1d", "tab")
        await settle(pilot)
        screen.focus_job("14", Path(new.job_dir))
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert screen.query_text == "1p1d" and screen.current_job() == "14"
        assert not any("cleared" in str(n.message) for n in app._notifications)


def test_all_my_slurm_jobs_filter_never_matches_their_run_time() -> None:
    """The all-jobs view (A) read its TIME column into the filter the same way: `/42` kept `sleep-wrap` while it
    had run 42 s."""
    from srt_tui.monitor.alljobs.cells import arrange, cell
    from tests.monitor.alljobs_frozen import rows

    listed = rows()
    plain = next(j for j in listed if j.job_id == "81302")
    assert cell(plain, "time", frozen.NOW) == "42s"
    assert arrange(listed, "42", "squeue", frozen.NOW) == []
    assert [j.job_id for j in arrange(listed, "81302", "squeue", frozen.NOW)] == ["81302"]
    assert [j.job_id for j in arrange(listed, "wrap", "squeue", frozen.NOW)] == ["81302"]


async def _filter_812(pilot: Any) -> None:
    """`/812` Tab: the filter kept, the keys to the list."""
    await settle(pilot)
    await pilot.press("slash", *"812", "tab")
    await settle(pilot)


@pytest.mark.parametrize("size", [pytest.param((80, 24), id="80x24"), pytest.param((120, 36), id="120x36")])
def test_a_kept_filter_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    """The frame and its title in the warning colour; the columns as wide as unfiltered (the frame takes rows only)."""
    assert snap_compare(frozen_app(frozen.fleet()), terminal_size=size, run_before=_filter_812)
