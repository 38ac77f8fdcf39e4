"""The Monitor keeps a sweep together: its members sit next to each other in member order under any sort,
bracketed by `┌ ├ └` before their names, found by group id with `/`; a running benchmark's step and
requests show in its STAGE cell (frozen snapshots, the real app)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from textual.widgets import Input

from srt_tui.core.results.progress import BenchProgress
from srt_tui.monitor.model import JobSnapshot
from srt_tui.tui.monitor import jobs_model
from srt_tui.tui.monitor.screen import MonitorScreen
from srt_tui.tui.monitor.sweep_rows import tree_marks
from tests.monitor import frozen
from tests.monitor.frozen import NOW
from tests.monitor.tui_apps import frozen_app

GROUP = "msweep-20260301-1130"
RUNNING = BenchProgress("measure", 2, 3, 4, 10, 40, 20, 100, 20.0, 80.0)


def sweep_fleet() -> list[JobSnapshot]:
    """Three members of one sweep, submitted apart so that sorting by submission interleaves another job;
    the second member is in its benchmark."""
    other = frozen.nvidia("healthy", "81300")
    members = []
    for i, (job, submitted) in enumerate((("81301", "11:40"), ("81303", "11:20"), ("81302", "11:30"))):
        snap = frozen.amd("healthy", job)
        members.append(
            replace(
                snap,
                name=f"msweep_osl{4 << i}",
                group=GROUP,
                group_member=f"sweep[{i}]",
                submitted_at=f"2026-03-01T{submitted}:00Z",
            )  # fmt: skip
        )
    members[1] = replace(members[1], stage="benchmark", bench=RUNNING)
    return [replace(other, submitted_at="2026-03-01T11:25:00Z"), *members]


def order(sort: str, reverse: bool = False) -> list[str]:
    return [s.job_id for s in jobs_model.arrange(sweep_fleet(), "", sort, reverse, NOW)]


def test_a_sweeps_members_stay_together_in_member_order() -> None:
    # by submission 81303 (11:20) comes first, then 81300 (11:25): the whole sweep goes where its first member is
    assert order("submitted") == ["81301", "81303", "81302", "81300"]
    assert order("submitted", reverse=True) == ["81301", "81303", "81302", "81300"]
    assert order("job", reverse=True) == ["81301", "81303", "81302", "81300"]
    assert order("job") == ["81300", "81301", "81303", "81302"]
    plain = [replace(s, group="", group_member="") for s in sweep_fleet()]
    assert [s.job_id for s in jobs_model.arrange(plain, "", "job", False, NOW)] == ["81300", "81301", "81302", "81303"]


async def test_the_jobs_table_brackets_the_sweep_and_shows_the_benchmark_progress() -> None:
    app = frozen_app(sweep_fleet())
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        table: Any = app.screen.query_one("#jobs-table")
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
        assert [(r[1], r[2]) for r in rows] == [
            ("81301", "┌ msweep_osl4"),
            ("81303", "├ msweep_osl8"),
            ("81302", "└ msweep_osl16"),
            ("81300", "h100-2p1d-sglang"),
        ]
        assert "bench 2/3 10/40" in rows[1]
        screen = app.screen
        assert isinstance(screen, MonitorScreen)
        await pilot.press("slash")
        screen.query_one("#jobs-filter", Input).value = GROUP  # the group id finds the whole sweep
        await pilot.press("enter")
        assert table.row_count == 3


async def test_the_job_view_shows_the_benchmarks_step_requests_and_eta() -> None:
    app = frozen_app(sweep_fleet(), open_job="81303")
    async with app.run_test(size=(160, 36)) as pilot:
        await pilot.pause()
        summary = str(app.screen.query_one("#job-summary").render())
        assert "stage benchmark c=4 (2/3) 10/40 req, ETA 1 min 20 s" in summary


def test_marks_only_join_adjacent_members() -> None:
    snaps = sweep_fleet()
    lone = replace(snaps[0], job_id="81400", group="other-sweep", group_member="sweep[0]")
    assert tree_marks([snaps[1], lone, snaps[2]]) == {}
    assert tree_marks([snaps[1], snaps[2]]) == {"81301": "┌ ", "81303": "└ "}


@pytest.mark.parametrize("size", [pytest.param((120, 36), id="120x36"), pytest.param((80, 24), id="80x24")])
def test_sweep_jobs_table_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(frozen_app(sweep_fleet()), terminal_size=size)


def _whole_parts(shown: str, name: str) -> bool:
    """Whether each piece of ``shown`` between `…`s is a run of whole parts of ``name`` (cut before `_`, `-`, `.`)."""
    bounds = {0, len(name)} | {i for i, ch in enumerate(name) if ch in "_-."}
    at = 0
    for piece in (p for p in shown.split("…") if p):
        start = name.find(piece, at)
        if start not in bounds or start + len(piece) not in bounds:
            return False
        at = start + len(piece)
    return True


@pytest.mark.parametrize("width", [8, 10, 14, 16, 20, 30])
def test_a_members_name_is_cut_between_parts_keeping_where_the_members_differ(width: int) -> None:
    """Operator pass (issue 21): a sweep member's name kept its last characters (`…sl1024_conc16`), cut inside a
    part. It is cut between parts, `…` where parts are left out, the part that tells the members apart in sight."""
    from srt_tui.tui.monitor.sweep_rows import member_name

    names = [f"deepseek-r1-h100_isl1024_osl1024_conc{c}" for c in (16, 64, 128)]
    for name in names:
        shown = member_name(name, names, width)
        assert len(shown) <= width and "…" in shown, shown
        assert name.rsplit("_", 1)[1] in shown, shown  # `conc16`: where the members differ
        if width > len("…_conc128"):
            assert _whole_parts(shown, name), shown
    isl = [f"big_isl{n}_osl1024_conc64" for n in (1024, 2048)]
    assert member_name(isl[0], isl, 20) == "big_isl1024_osl1024…"  # the differing part, not the common end
    assert member_name(isl[1], isl, 9) == "…isl2048…"  # narrower than its part: its characters, still in sight
    assert member_name("msweep_osl16", [], 20) == "msweep_osl16"


async def test_long_member_names_in_the_jobs_table_keep_where_they_differ() -> None:
    fleet = sweep_fleet()
    long = [replace(s, name=f"deepseek-r1-h100_isl1024_osl1024_conc{4 << i}") if s.group else s for i, s in
            enumerate(fleet)]  # fmt: skip
    app = frozen_app(long)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table: Any = app.screen.query_one("#jobs-table")
        cells = {str(table.get_row_at(i)[1]): str(table.get_row_at(i)[2]) for i in range(table.row_count)}
        for snap in long[1:]:
            shown = cells[snap.job_id][2:]
            assert shown.endswith("_conc" + snap.name.rsplit("conc", 1)[1]), cells
            assert _whole_parts(shown, snap.name), cells


@pytest.mark.parametrize(("size", "stem"), [((120, 30), "mocker-agg"), ((200, 30), "mocker-2p1d-vllm-router_isl1024")])
async def test_member_names_that_fit_the_room_left_are_shown_whole(size: tuple[int, int], stem: str) -> None:
    # the bracket (`┌ `) takes NAME's width too: the column sized to the names alone cut each by it (`mock…_osl8`)
    named = [replace(s, name=f"{stem}_osl{4 << i}") if s.group else s for i, s in enumerate(sweep_fleet())]
    app = frozen_app(named)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        table: Any = app.screen.query_one("#jobs-table")
        shown = {str(table.get_row_at(i)[1]): str(table.get_row_at(i)[2]) for i in range(table.row_count)}
        for snap in named[1:]:
            assert shown[snap.job_id][2:] == snap.name, shown
