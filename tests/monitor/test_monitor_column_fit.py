"""The Monitor's jobs table and worker table at 80×24, 100×30, 120×36 and 132×43 (issue 21, defect 4): every
column header whole, the row inside the screen, units shown (`44m37s`, not `44`), and columns giving way by
priority — with the long values of the local launcher (`local-12`, `local RUNNING`) that cut the wide table
at 120 columns. Snapshots of both views at the four sizes."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest
from textual.widgets import DataTable

from srt_tui.monitor.model import JobSnapshot
from srt_tui.tui.monitor import jobs_model
from srt_tui.tui.monitor.screen import MonitorScreen
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app

SIZES = [
    pytest.param((80, 24), id="80x24"),
    pytest.param((100, 30), id="100x30"),
    pytest.param((120, 36), id="120x36"),
    pytest.param((132, 43), id="132x43"),
]
#: every header either table may show, whole
HEADERS = {"", " ", "JOB", "NAME", "PROFILE", "TOPO", "STATE", "STAGE", "HEALTHY", "ROUTER", "REQ/S", "ERR", "ELAPSED",
           "WORKER", "ROLE", "NODE", "GPUS", "CUDA", "ROCR", "MASK", "PORT", "HEALTH", "SRC", "RTR", "REQ", "OK",
           "FAIL", "RUN", "Q", "TREND"}  # fmt: skip
#: a duration with its unit; a queued job's says so (`queued 7m30s`, or `queued` where that does not fit)
UNIT = re.compile(r"^(-|(queued |q )?(\d+s|\d+m\d\ds|\d+h\d\dm|\d+d\d\dh)|queued)$")


def mixed_fleet() -> list[JobSnapshot]:
    """The frozen fleet plus two local-launcher jobs: the longest ids and states the table shows."""
    fleet = frozen.fleet()
    local = [
        replace(fleet[0], job_id="local-12", launcher="local"),
        replace(fleet[2], job_id="local-13", launcher="local", name="mocker-2p1d-telemetry"),
    ]
    return [*fleet, *local]


def _headers(table: DataTable[Any]) -> list[str]:
    return [str(c.label).removesuffix(" ↑").removesuffix(" ↓") for c in table.columns.values()]


def _fits(table: DataTable[Any], width: int) -> None:
    headers = _headers(table)
    assert set(headers) <= HEADERS, f"a header was cut: {headers}"
    for column in table.columns.values():
        assert column.get_render_width(table) - 2 >= len(str(column.label)), f"{column.label} drawn narrower"
    assert sum(c.get_render_width(table) for c in table.columns.values()) <= width, headers


@pytest.mark.parametrize("size", SIZES)
async def test_jobs_table_headers_whole_and_units_shown(size: tuple[int, int]) -> None:
    app = frozen_app(mixed_fleet())
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#jobs-table", DataTable)
        _fits(table, size[0])
        headers = _headers(table)
        for must in ("JOB", "NAME", "STATE", "STAGE", "HEALTHY", "REQ/S"):  # the most important never leave
            assert must in headers, headers
        if size[0] >= 100:
            assert "ELAPSED" in headers and "ERR" in headers, headers
        if "ELAPSED" in headers:
            column = headers.index("ELAPSED")
            values = [str(table.get_row_at(r)[column]) for r in range(table.row_count)]
            assert all(UNIT.match(v) for v in values), values
        column = headers.index("STATE")
        states = {str(table.get_row_at(r)[1]): str(table.get_row_at(r)[column]).rstrip() for r in
                  range(table.row_count)}  # fmt: skip
        # whole, not `local RUNN…`: `local RUNNING`, or the state alone (`local-12`, its id, names the launcher), in
        # every local row alike; the launcher's word only with width left over (NAME has it first)
        local = {state for job, state in states.items() if job.startswith("local-")}
        assert local in ({"RUNNING"}, {"local RUNNING"}), states


def cancelled_fleet() -> list[JobSnapshot]:
    """The mixed fleet plus a local job cancelled (`local CANCELLED`, STATE's longest wording) with a long name."""
    fleet = mixed_fleet()
    gone = replace(fleet[0], job_id="local-14", launcher="local", slurm_state="CANCELLED", stage="cancelled",
                   name="mocker-2p1d-sglang-router")  # fmt: skip
    return [*fleet, gone]


@pytest.mark.parametrize("fleet", [mixed_fleet, cancelled_fleet])
@pytest.mark.parametrize("size", SIZES)
async def test_the_width_left_over_goes_to_the_name_cut(size: tuple[int, int], fleet: Any) -> None:
    """Operator pass (op11): at 100 and 120 columns NAME was cut (`mocker-2p1d-…`) while the row had cells to spare
    and STATE was as wide as its longest wording (`local CANCELLED`, where the id `local-14` names the launcher).
    Columns give way by priority; what is left over goes to the column that is cut, NAME first: a name is cut only
    where the cells left could not show more of it, and STATE's launcher word only takes what NAME does not need."""
    from srt_tui.widgets.fit_columns import fit_value

    snaps = fleet()
    app = frozen_app(snaps)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#jobs-table", DataTable)
        _fits(table, size[0])
        spare = size[0] - jobs_model.SCROLLBAR - sum(c.get_render_width(table) for c in table.columns.values())
        names = {s.job_id: s.name for s in snaps}
        width = table.columns[next(k for k in table.columns if k.value == "name")].width
        for row_key in table.rows:
            shown, name = str(table.get_cell(row_key, "name")).rstrip(), names[str(row_key.value)]
            assert shown == fit_value(name, width), (shown, name)
            assert len(fit_value(name, width + spare)) == len(shown), f"{shown!r} of {name!r} with {spare} cells spare"
        states = [str(table.get_cell(k, "slurm")).rstrip() for k in table.rows]
        if any(s.startswith("local ") for s in states):  # the launcher's word only once no name is cut
            assert all(not str(table.get_cell(k, "name")).endswith("…") for k in table.rows), states
        if size[0] >= 120 and fleet is mixed_fleet:
            assert "mocker-2p1d-telemetry" in [str(table.get_cell(k, "name")).rstrip() for k in table.rows]


@pytest.mark.parametrize("size", SIZES)
async def test_a_queued_job_pushes_no_column_out(size: tuple[int, int]) -> None:
    """Operator pass (op11): at 120 columns PROFILE left the jobs table while a queued job was listed (its ELAPSED
    `queued 7m30s` and its STAGE's reason were wider). Its longer wordings take only the width left over: the same
    columns are shown with it as without it, PROFILE at 120 included, and its ELAPSED keeps the figure and says it
    is a wait (`q 7m30s`) where `queued 7m30s` does not fit."""
    fleet = frozen.fleet()
    running = [s for s in fleet if s.stage != "pending"]
    shown: list[list[str]] = []
    for snaps in (fleet, running):
        app = frozen_app(snaps)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            table = app.screen.query_one("#jobs-table", DataTable)
            _fits(table, size[0])
            shown.append(_headers(table))
            if snaps is fleet:
                elapsed = str(table.get_cell("81262", "elapsed")).rstrip()
                assert elapsed in ("q 7m30s", "queued 7m30s"), elapsed
    assert shown[0] == shown[1], shown
    assert ("PROFILE" in shown[0]) == (size[0] >= 120), shown


async def test_an_ended_local_row_keeps_elapsed_at_80x24() -> None:
    """New-operator pass (2026-12-07), 80x24: once a `local CANCELLED` row was listed, STATE took 16 columns and
    ELAPSED left while REQ/S (which outranks it, for live jobs) stayed. Narrow, a local job's STATE is its state
    alone (its id, `local-14`, names the launcher), so ELAPSED stays beside REQ/S."""
    fleet = mixed_fleet()
    ended = replace(fleet[0], job_id="local-14", launcher="local", slurm_state="CANCELLED", stage="cancelled")
    app = frozen_app([*fleet, ended])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#jobs-table", DataTable)
        _fits(table, 80)
        headers = _headers(table)
        assert {"STATE", "REQ/S", "ELAPSED"} <= set(headers), headers
        states = [str(table.get_row_at(r)[headers.index("STATE")]) for r in range(table.row_count)]
        assert "CANCELLED" in states, states


@pytest.mark.parametrize("size", SIZES)
async def test_worker_table_gives_way_by_priority(size: tuple[int, int]) -> None:
    snap = frozen.nvidia("degraded")
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.pause()
        table = app.screen.query_one("#job-workers", DataTable)
        _fits(table, size[0])
        headers = _headers(table)
        for must in ("WORKER", "NODE", "CUDA", "HEALTH", "FAIL", "REQ/S"):
            assert must in headers, headers
        if size[0] >= 100:  # ~30 columns were left free at 100 while ROLE, GPUS and PORT were hidden
            assert {"ROLE", "GPUS", "PORT"} <= set(headers), headers
        if size[0] >= 120:
            assert "TREND" in headers, headers


@pytest.mark.parametrize("size", SIZES)
def test_jobs_table_snapshot_sizes(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(frozen_app(mixed_fleet()), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_job_view_snapshot_sizes(snap_compare: Any, size: tuple[int, int]) -> None:
    snap = frozen.nvidia("degraded")
    assert snap_compare(frozen_app([snap], open_job=snap.job_id), terminal_size=size)


async def test_the_list_cursor_follows_the_job_just_watched() -> None:
    """Issue 21 defect 5: back from a job (opened by submit, or from the list), the cursor was on another
    row, and `R`/`l`/`c` acted on that one."""
    from srt_tui.tui.monitor.jobs_view import JobsView
    from srt_tui.tui.monitor.screen import MonitorScreen

    fleet = mixed_fleet()
    watched = fleet[-1].job_id
    app = frozen_app(fleet, open_job=watched)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MonitorScreen) and screen.in_job_view
        await pilot.press("escape")
        await pilot.pause()
        assert not screen.in_job_view
        assert screen.query_one(JobsView).highlighted_job == watched
        await pilot.press("g", "enter", "escape")  # another job opened from the list: the cursor stays on it
        await pilot.pause()
        first = screen.query_one(JobsView).highlighted_job
        assert first is not None and first != watched


async def test_relayed_mark_is_explained_and_the_stage_is_said_once() -> None:
    """Issue 21 defect 12: `down*` was never explained; the summary read `stage serving serving at …`."""
    from srt_tui.tui.monitor.worker_table import WorkerTable

    relayed = frozen.fleet()[2]
    assert relayed.relayed
    app = frozen_app([relayed], open_job=relayed.job_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(WorkerTable)
        assert "SRC" not in _headers(table)
        assert any(str(table.get_row_at(r)[_headers(table).index("HEALTH")]).endswith("*") for r in range(2))
        assert str(table.border_subtitle) == "* health relayed by the job: its nodes do not answer from here"
        summary = str(app.screen.query_one("#job-summary").render())
        assert "serving serving" not in summary


@pytest.mark.parametrize(
    ("relayed", "said"),
    [
        (("decode_0",), "* health relayed by the job: decode_0 does not answer from here"),
        (("prefill_0", "decode_0"), "* health relayed by the job: 2 workers do not answer from here"),
    ],
)
async def test_the_relay_legend_says_which_workers_do_not_answer(relayed: tuple[str, ...], said: str) -> None:
    """Operator pass (op11): one relayed row (its worker alone did not answer, the job's other workers did) was
    explained as the whole job's, `its nodes do not answer from here`. The line names what is marked."""
    from srt_tui.tui.monitor.worker_table import WorkerTable

    snap = frozen.nvidia("healthy")
    workers = tuple(replace(w, source="relay") if w.name in relayed else w for w in snap.workers)
    snap = replace(snap, workers=workers)
    assert not snap.relayed
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(WorkerTable)
        healths = [str(table.get_row_at(r)[_headers(table).index("HEALTH")]) for r in range(table.row_count)]
        assert sum(h.endswith("*") for h in healths) == len(relayed), healths
        assert str(table.border_subtitle) == said


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_the_job_views_state_line_shows_the_stage_whole_at_80_columns(size: tuple[int, int]) -> None:
    """Issue 21 review: at 80 columns the summary read `Local RUNNING · requests 0 (router) · … · stage se…`:
    the stage (is it serving yet?) was the word cut. State and stage have their line, the counters the next;
    what a line loses at its end is the stage's detail and the sources (a failing one is in Problems too)."""
    from textual.geometry import Region

    snap = mixed_fleet()[5]  # local-12: the longest state and a router's request counter
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        widget = app.screen.query_one("#job-summary")
        shown = [s.text for s in widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))]
        assert shown[1].strip().startswith(f"local RUNNING · stage {snap.stage} "), shown
        assert re.match(r" elapsed \d+m\d\ds · requests 3.6k, errors 4 \(router\) · 5.5 req/s · ", shown[2]), shown


def test_a_benchmarks_state_line_says_its_progress_not_the_stages_name_again() -> None:
    """Operator pass (issue 21): `stage benchmark c=4 (2/2) done, 30/30 req running the benchmark` said
    `benchmark` twice; the event's detail goes when the progress is shown, and stays without it."""
    from rich.style import Style

    from srt_tui.core.results.progress import BenchProgress
    from srt_tui.tui.monitor.job_view import state_line

    running = replace(frozen.nvidia("healthy", "81234"), stage="benchmark", stage_detail="running the benchmark")
    progress = BenchProgress("measure", 2, 3, 4, 10, 40, 20, 100, 20.0, 80.0)
    with_progress = state_line(replace(running, bench=progress), lambda _: Style(), 80).plain
    assert with_progress == f"Slurm RUNNING · stage benchmark {progress.text()}", with_progress
    assert state_line(running, lambda _: Style(), 80).plain.endswith("benchmark running the benchmark")


async def test_the_jobs_status_line_keeps_the_all_jobs_hint_whole_at_80_columns() -> None:
    """Issue 21 review: at 80 columns the line under the jobs table ended `… every 2 s · A: all`: the hint an
    operator needs was cut, the refresh timing kept. The timing goes last."""
    from textual.geometry import Region

    app = frozen_app(frozen.fleet())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen: Any = app.screen
        screen.poll_interval, screen.last_took_s = 2.0, 0.01  # as after a refresh of the live Monitor
        await pilot.pause()
        widget = app.screen.query_one("#jobs-status")
        line = widget.render_lines(Region(0, 0, widget.size.width, 1))[0].text
        assert "A: all my Slurm jobs" in line, line


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_the_jobs_status_line_leaves_parts_out_whole(size: tuple[int, int]) -> None:
    """Operator pass (issue 21): at 80 columns the status line ended `refreshed in 0.04 s every 2`, a number
    without its unit. What does not fit is left out whole: the refresh timing first, never cut."""
    from textual.geometry import Region

    app = frozen_app(frozen.fleet())
    async with app.run_test(size=size) as pilot:
        screen: Any = app.screen
        screen.poll_interval, screen.last_took_s = 2.0, 0.04
        await pilot.pause()
        widget = app.screen.query_one("#jobs-status")
        line = widget.render_lines(Region(0, 0, widget.size.width, 1))[0].text.rstrip()
        assert "…" not in line and "A: all my Slurm jobs" in line, line
        assert line.endswith(("A: all my Slurm jobs", "every 2 s")), line
        assert ("refreshed in 0.04 s every 2 s" in line) == (size[0] >= 100), line


async def test_the_job_title_and_forward_line_fit_80_columns_whole() -> None:
    """Issue 21 polish: at 80 columns the title ended `2 n…` and the port-forward line `(y:…`. The title drops
    whole facts (profile, then nodes); the forward goes on its own line; the tooltip keeps everything."""
    from textual.geometry import Region

    snap = frozen.nvidia("healthy")
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        widget: Any = app.screen.query_one("#job-summary")
        widget.login = "operator@login-node-01.example.org"
        app.screen.query_one("#job-view").login = widget.login  # type: ignore[attr-defined]
        app.screen.redraw()  # type: ignore[attr-defined]
        await pilot.pause()
        shown = [s.text.rstrip() for s in widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))]
        assert all("…" not in line for line in shown), shown
        assert shown[0].strip().startswith(f"{snap.job_id} {snap.name}  {snap.topology} · "), shown
        forward = next(line for line in shown if "ssh -N -L" in line)
        assert forward.strip().startswith("forward ssh -N -L") and forward.endswith(widget.login), shown
        tooltip = str(widget.tooltip)
        assert f"profile {snap.profile}" in tooltip and "(y: copy)" in tooltip, tooltip


def test_the_smoke_tests_figures_wrap_whole_within_the_width() -> None:
    """Issue 21 polish: at 80 columns the smoke line lost its TTFT at the edge; its figures wrap whole."""
    from datetime import datetime, timezone

    from rich.style import Style

    from srt_tui.tui.monitor.job_view import summary

    smoke = "✓ 20/20 ok, 0 failed · latency p50 31 ms p99 58 ms · TTFT p50 12 ms p99 20 ms · 412.5 tok/s in 0.61 s"
    text = summary(frozen.nvidia("healthy"), datetime.now(timezone.utc), lambda _: Style(), smoke=smoke, width=78)
    lines = text.plain.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("smoke test "))
    shown = lines[at:]
    assert len(shown) > 1 and all(len(line) <= 78 for line in shown), shown
    assert any(line.lstrip().startswith("TTFT p50 12 ms p99 20 ms") for line in shown), shown


async def test_every_worker_is_reachable_at_80x24() -> None:
    """Operator pass (issue 21): at 80x24 a 3-worker job with its serving panel and a smoke test showed one
    worker row; `j` moved the cursor onto rows below the screen's edge. The table keeps its rows and the job
    view scrolls to the cursor; it opens at the summary, and `k` on the first worker goes back to it."""
    from srt_tui.tui.monitor.job_view import JobView

    snap = frozen.with_serving(frozen.nvidia("healthy"))
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view = app.screen.query_one(JobView)
        view.smoke[snap.job_id] = "✓ 20/20 ok, 0 failed · latency p50 54 ms p99 67 ms · TTFT p50 45 ms p99 57 ms"
        app.screen.redraw()  # type: ignore[attr-defined]
        await pilot.pause()
        table: DataTable[Any] = app.screen.query_one("#job-workers", DataTable)
        assert view.scroll_y == 0  # the summary first
        assert table.row_count == len(snap.workers) == 3
        await pilot.press("j", "j")
        await pilot.pause()
        footer_top = app.size.height - 1
        assert table.cursor_row == 2
        assert table.region.height >= table.row_count + 3, table.region  # border, header and every row
        assert table.region.bottom <= footer_top, (table.region, footer_top)
        await pilot.press("k", "k", "k")
        await pilot.pause()
        assert table.cursor_row == 0 and view.scroll_y == 0


async def test_down_from_the_last_worker_shows_the_problems_at_80x24() -> None:
    """The Problems panel under the workers was cut at 80x24 with no way to see its end: `j` from the last
    worker scrolls the job view to it."""
    snap = frozen.amd("degraded")
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        problems = app.screen.query_one("#job-problems")
        assert problems.display and problems.region.bottom > app.size.height - 1  # cut at first
        await pilot.press(*["j"] * (len(snap.workers) + 1))
        await pilot.pause()
        assert problems.region.bottom <= app.size.height - 1, problems.region


async def test_the_jobs_status_line_names_the_sort_and_filter_keys() -> None:
    """Operator pass (issue 21): `s` (sort) and `/` (filter) were only in `?` help. The line that shows the sort
    names its key; with room, the filter's too; an active filter is shown whole at 80 columns."""
    from textual.geometry import Region

    app = frozen_app(frozen.fleet())
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        widget = app.screen.query_one("#jobs-status")
        line = widget.render_lines(Region(0, 0, widget.size.width, 1))[0].text
        assert "s sort submitted" in line and "/ filter" in line, line
    app = frozen_app(frozen.fleet())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("slash", *"812")
        await pilot.pause()
        widget = app.screen.query_one("#jobs-status")
        line = widget.render_lines(Region(0, 0, widget.size.width, 1))[0].text
        assert "filter '812'" in line and "/ filter" not in line, line


def short_named(fleet: list[JobSnapshot]) -> list[JobSnapshot]:
    """``fleet`` with names that fit NAME's cap (`mocker-1p1d`): the width left over goes to the longer wordings."""
    return [replace(s, name="mocker-1p1d") for s in fleet]


@pytest.mark.parametrize(
    ("size", "names", "expected"),
    [
        ((80, 24), "long", "est. ~10m"),
        ((120, 36), "long", "Slurm est. ~10m"),  # the width left over goes to the names cut first
        ((132, 43), "long", "Slurm est. ~10m"),
        ((120, 36), "short", "Resources, est. ~10m"),
        ((132, 43), "short", "Resources, est. ~10m"),
    ],
)
async def test_a_pending_jobs_row_says_what_it_waits_for(size: tuple[int, int], names: str, expected: str) -> None:
    """Operator pass (issue 21): the jobs list said `PENDING · pending` with no reason (only the job view said
    `PENDING (Priority)`); the STAGE cell says the reason, whole (STATE beside it says PENDING), and Slurm's estimate
    of the start, as `status` and the job view do (`Slurm estimates start in ~10m`; s34: `~9m51s` read as a fact),
    with the width left over once every column that fits is in and the names cut are whole (op11); else the estimate
    alone (the reason is in the job view). PROFILE stays at 120 while the queued job is listed (op11)."""
    fleet = frozen.fleet() if names == "long" else short_named(frozen.fleet())
    app = frozen_app(fleet)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        table: DataTable[Any] = app.screen.query_one("#jobs-table", DataTable)
        pending = next(s for s in fleet if s.stage == "pending")
        assert pending.slurm_reason == "Resources"
        assert str(table.get_cell(pending.job_id, "stage")).rstrip() == expected
        assert (size[0] >= 120) == ("PROFILE" in [str(c.label) for c in table.columns.values()])
        assert str(table.get_cell(pending.job_id, "slurm")) == "PENDING"
        screen = app.screen
        assert isinstance(screen, MonitorScreen)
        screen.snapshots = [replace(pending, expected_start_at="")]  # Slurm made no estimate yet: the reason alone
        await pilot.pause()
        assert str(table.get_cell(pending.job_id, "stage")) == "Resources"


@pytest.mark.parametrize(
    ("text", "width", "expected"),
    [
        ("serving", 11, "serving"),  # fits: whole
        ("workers healthy", 11, "workers …"),  # whole words, and a blank before `…`
        ("serving (relayed)", 11, "serving …"),
        ("workers healthy 1/2 (relayed)", 18, "workers healthy …"),  # a count is one word
        ("h100-1p2d-sglang", 12, "h100-1p2d-…"),  # a name gives way by its parts
        ("mocker-2p1d-telemetry", 12, "mocker-2p1d…"),  # its `-` too when that keeps one more part
        ("local RUNNING", 9, "local …"),
        ("averyveryverylongname", 12, "averyveryve…"),  # one word, nothing to cut between: its start
        ("ab", 1, "…"),
        ("ab", 0, ""),
    ],
)
def test_a_value_gives_way_by_whole_words(text: str, width: int, expected: str) -> None:
    """New-operator pass (issue 21): at 80×24 the jobs list read `workers he…` and `router sta…`."""
    from srt_tui.widgets.fit_columns import fit_value

    assert fit_value(text, width) == expected


def test_the_width_left_over_goes_by_priority_and_a_wording_whole() -> None:
    """`widen`: the cells left over go to the most important column that wants more (NAME before STATE, whatever their
    order), a column of whole wordings takes all it wants or nothing, and a name still cut is only as wide as its
    value cut at a word (`mocker-2p1d-…`: the cells it cannot fill go on to the next column)."""
    from srt_tui.widgets.fit_columns import FitColumn, Fitted, widen

    columns = [FitColumn("state", "STATE", 2), FitColumn("name", "NAME", 1), FitColumn("elapsed", "ELAPSED", 4)]
    fitted = (Fitted("state", "STATE", 7), Fitted("name", "NAME", 12), Fitted("elapsed", "ELAPSED", 7))
    rows = [{"state": "local RUNNING", "name": "mocker-2p1d-telemetry", "elapsed": "queued 7m30s"}]
    room = 32 + 6  # the three columns and their padding, and 6 cells over

    def widths(extra: int) -> list[int]:
        return [f.width for f in widen(fitted, columns, rows, room + extra, {"state", "elapsed"})]

    # NAME first, as wide as `mocker-2p1d-…`; of the 5 left STATE's 6 do not fit whole, ELAPSED's 5 do
    assert widths(0) == [7, 13, 12]
    assert widths(8) == [7, 21, 12]  # NAME whole; 5 left: ELAPSED's, STATE's 6 not
    assert widths(9) == [13, 21, 7]  # 6 left: STATE's `local RUNNING` (priority 2) before ELAPSED's `queued` (4)
    assert widths(14) == [13, 21, 12]


def stage_fleet() -> list[JobSnapshot]:
    """The mixed fleet plus one job at each stage a running job goes through (the pass's `workers he…` rows)."""
    from srt_tui.monitor.model import STAGES

    base = frozen.fleet()[0]
    running = [s for s in STAGES[2:11] if s != "benchmark"]
    detail = {"workers healthy": "1/2"}
    at = [
        replace(base, job_id=str(10 + i), name="mocker-1p1d", stage=stage, stage_detail=detail.get(stage, ""))
        for i, stage in enumerate(running)
    ]
    return [*mixed_fleet(), *at]


async def test_no_jobs_table_value_is_cut_mid_word_at_80x24() -> None:
    """Every cell at 80×24 is whole, a short stage word (`healthy 1/2`, `router`), or whole words and `…`."""
    app = frozen_app(stage_fleet())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#jobs-table", DataTable)
        headers = _headers(table)
        stages = [str(table.get_row_at(r)[headers.index("STAGE")]) for r in range(table.row_count)]
        for stage in ("healthy 1/2", "router", "ready", "workers", "infra", "resolving"):
            assert stage in stages, stages
        snaps = {s.job_id: s for s in stage_fleet()}
        for row_key in table.rows:
            snap = snaps[str(row_key.value)]
            for column_key in table.columns:
                value = str(table.get_cell(row_key, column_key))
                if len(value) > 1 and value.endswith("…"):  # (`…` alone: the status of a job that waits)
                    full = jobs_model.cell(snap, str(column_key.value), frozen.fixed_clock(), True)
                    head = value[:-1].rstrip(" -_")
                    assert full.startswith(head) and full[len(head)] in " -_", f"cut mid-word: {value!r} of {full!r}"
        words = {w for s in stages for w in s.split()}
        assert not words & {"he…", "sta…", "rea…"}, stages


def test_jobs_table_every_stage_snapshot_80x24(snap_compare: Any) -> None:
    assert snap_compare(frozen_app(stage_fleet()), terminal_size=(80, 24))


async def test_a_long_problem_wraps_in_its_value_column_at_80x24() -> None:
    """New-operator pass (2026-12-07), 80x24: a Problems line longer than the panel wrapped to column 0, where it
    read as a problem of its own; its wrapped lines stay in its value column, after its subject (`decode_1 `), as
    the worker detail's health history wraps."""
    from textual.geometry import Region

    snap = frozen.amd("degraded")
    said = "connection refused: its node answers on its other ports, so this worker is hung or still loading weights"
    sick = replace(snap.workers[-1], health="hung", detail=said)
    snap = replace(snap, workers=(*snap.workers[:-1], sick))
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(80, 40)) as pilot:
        await pilot.pause()
        await pilot.resize_terminal(80, 24)  # a resize wraps again to the new width
        await pilot.press(*["j"] * (len(snap.workers) + 1))
        await pilot.pause()
        panel = app.screen.query_one("#job-problems")
        box = Region(0, 0, panel.outer_size.width, panel.outer_size.height)
        lines = [s.text.removeprefix("│ ").rstrip(" │") for s in panel.render_lines(box)][1:-1]  # inside the border
        assert "" not in lines, lines  # no line left blank by a wrap
        head = next(i for i, line in enumerate(lines) if line.startswith(f"{sick.name} hung ("))
        assert len(lines) > head + 1 and "weights" not in lines[head], lines
        indent = " " * (len(sick.name) + 1)
        assert lines[head + 1].startswith(indent) and lines[head + 1][len(indent)] != " ", lines
