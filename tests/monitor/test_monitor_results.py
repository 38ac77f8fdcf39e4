"""The Monitor's Results view (R): snapshots of one job and of a 3-member sweep (Pareto frontier marked) at
120×36 and 80×24 from result files built in the test, a job without results, and R/Esc opening and closing it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from srt_tui.tui.help_screen import HelpScreen
from srt_tui.tui.monitor import results_view
from srt_tui.tui.monitor.results_load import Comparison, load_comparison, pareto_frontier
from srt_tui.tui.monitor.results_view import ResultsScreen
from srt_tui.tui.monitor.screen import MonitorScreen
from tests.monitor import frozen, resultdirs
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import settle

SIZES = [pytest.param((120, 36), id="120x36"), pytest.param((80, 24), id="80x24")]
RECIPE = ("nvidia/h100-2p1d-sglang.yaml", "nvidia-h100")


async def _open_results(pilot: Any) -> None:
    await pilot.pause()
    await pilot.press("R")
    await settle(pilot)


@pytest.mark.parametrize("size", SIZES)
def test_results_view_single_job(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    path = resultdirs.single(tmp_path)
    snap = frozen.frozen_job("81234", *RECIPE, job_dir=path)
    assert snap_compare(frozen_app([snap], open_job="81234"), terminal_size=size, run_before=_open_results)


@pytest.mark.parametrize("size", SIZES)
def test_results_view_sweep(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    snaps = [frozen.frozen_job(job, *RECIPE, job_dir=path) for job, path in resultdirs.sweep(tmp_path)]
    assert snap_compare(frozen_app(snaps, open_job="81301"), terminal_size=size, run_before=_open_results)


async def test_r_opens_the_view_and_esc_closes_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`?` lists R; R opens the view, whose files are read off the UI thread; Esc goes back to the Monitor."""
    threads: list[threading.Thread] = []

    def recording(*args: Any) -> Comparison:
        threads.append(threading.current_thread())
        return load_comparison(*args)

    monkeypatch.setattr(results_view, "load_comparison", recording)
    path = resultdirs.single(tmp_path)
    app = frozen_app([frozen.frozen_job("81234", *RECIPE, job_dir=path)])
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, MonitorScreen)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert {(r.scope, r.description): r.key for r in app.screen.rows}[("this screen", "Results")] == "R"
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("R")  # from the jobs table: the highlighted job
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ResultsScreen) and screen.job_id == "81234"
        assert screen.query_one(DataTable).row_count == len(resultdirs.CONCURRENCIES)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MonitorScreen)
    assert len(threads) == 1 and threads[0] is not threading.main_thread()


async def test_a_job_without_results_says_so(tmp_path: Path) -> None:
    path = resultdirs.job_dir(tmp_path, "81234", "h100-2p1d-sglang")
    app = frozen_app([frozen.frozen_job("81234", *RECIPE, job_dir=path)], open_job="81234")
    async with app.run_test(size=(120, 36)) as pilot:
        await _open_results(pilot)
        screen = app.screen
        assert isinstance(screen, ResultsScreen)
        assert "no benchmark results yet" in str(screen.query_one("#results-title", Static).render())
        assert screen.query_one(DataTable).row_count == 0


async def test_a_manual_benchmark_job_says_it_runs_none(tmp_path: Path) -> None:
    """`R` on a job whose benchmark is manual says that none runs and what measures it instead (`b`, `srt-tui
    bench`), not "no results yet" as if waiting would bring them; and draws no empty table and plot frames under
    that (operator pass 9: two empty plots across the screen)."""
    from tests.conftest import REPO
    from tests.core.core_helpers import cli

    path = tmp_path / "81234"
    made = cli(
        "dry-run", "-f", str(REPO / "recipes/mocker/mocker-1p2d.yaml"), "-p", "local", "-o", str(path), cwd=tmp_path
    )
    assert made.returncode == 0, made.stderr
    app = frozen_app([frozen.frozen_job("81234", *RECIPE, job_dir=path)], open_job="81234")
    async with app.run_test(size=(120, 36)) as pilot:
        await _open_results(pilot)
        screen = app.screen
        assert isinstance(screen, ResultsScreen)
        title = str(screen.query_one("#results-title", Static).render())
        assert "no results: this job runs no benchmark (benchmark: manual)" in title, title
        assert "`b` in its job view sends a smoke test (`srt-tui bench 81234`" in title, title
        shown = app.export_screenshot()
        assert "tok/s/GPU" not in shown and "latency (ms)" not in shown and "CONC" not in shown
        assert not screen.query_one("#results-plots").display and not screen.query_one(DataTable).display


def test_a_sweep_member_brings_its_tracked_siblings_in_member_order(tmp_path: Path) -> None:
    members = resultdirs.sweep(tmp_path)
    other = resultdirs.single(tmp_path)  # tracked, but not in the group
    tracked = {job: path for job, path in reversed(members)} | {"81234": other}
    c = load_comparison("81301", members[1][1], tracked)
    assert c.group == "sweep-81300"
    assert [j.job for j in c.jobs] == ["81300", "81301", "81302"]
    assert load_comparison("81234", other, tracked).group is None


def test_an_osl_sweep_is_ordered_by_osl_with_its_column(tmp_path: Path) -> None:
    members = resultdirs.osl_sweep(tmp_path)  # osl 1024, 128, 512 in member order
    c = load_comparison("81500", members[0][1], dict(members))
    assert c.params == ("osl",)
    assert [j.job for j in c.jobs] == ["81501", "81502", "81500"]
    assert [dict(v) for v in c.values] == [{"osl": 128}, {"osl": 512}, {"osl": 1024}]


@pytest.mark.parametrize("size", SIZES)
def test_results_view_osl_sweep(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    """An osl sweep at one concurrency: an OSL column, rows by osl, latency drawn against osl."""
    snaps = [frozen.frozen_job(job, *RECIPE, job_dir=path) for job, path in resultdirs.osl_sweep(tmp_path)]
    assert snap_compare(frozen_app(snaps, open_job="81500"), terminal_size=size, run_before=_open_results)


def test_pareto_frontier_keeps_only_undominated_points() -> None:
    points = [(10.0, 100.0), (20.0, 80.0), (15.0, 70.0), (30.0, 20.0), (5.0, 90.0)]
    assert pareto_frontier(points) == [(10.0, 100.0), (20.0, 80.0), (30.0, 20.0)]


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (120, 36), (132, 43)])
@pytest.mark.parametrize("sweep", [True, False], ids=["sweep", "one-job"])
async def test_the_table_fits_the_width_with_whole_headers(tmp_path: Path, size: tuple[int, int], sweep: bool) -> None:
    """Operator pass (issue 21): at 80 columns the header ran off the screen (`TTFT p50/p99  TPO`); then TPOT and
    ITL gave way whole and E2E was never shown. Columns give way whole by priority; the throughput and every
    latency an operator compares stay: both figures where they fit, else each latency's median (`TPOT p50`); one
    job's table gives up its JOB column first (the title names the job), a sweep's keeps it."""
    if sweep:
        snaps = [frozen.frozen_job(job, *RECIPE, job_dir=path) for job, path in resultdirs.sweep(tmp_path)]
        app = frozen_app(snaps, open_job="81301")
    else:
        app = frozen_app([frozen.frozen_job("81234", *RECIPE, job_dir=resultdirs.single(tmp_path))], open_job="81234")
    async with app.run_test(size=size) as pilot:
        await _open_results(pilot)
        table = app.screen.query_one(DataTable)
        headers = [str(c.label) for c in table.columns.values()]
        assert sum(c.get_render_width(table) for c in table.columns.values()) <= size[0], headers
        figures = " p50/p99" if size[0] >= (120 if sweep else 100) else " p50"  # a sweep's JOB takes room
        latencies = {f"{name}{figures}" for name in ("TTFT", "TPOT", "ITL", "E2E")}
        assert {"CONC", "TOK/S/GPU", "TOK/S/USER", *latencies} <= set(headers), headers
        assert ("JOB" in headers) == (sweep or size[0] >= 120), headers  # one job's title names it
        assert ("FAIL" in headers) == (not sweep or size[0] > 80), headers  # beside a sweep's JOB it gives way
        assert (len(headers) == len(results_view.columns(sweep, True))) == (size[0] >= 132), headers
        for row in range(table.row_count):  # each cell whole: no figure loses digits to its column
            for cell, column in zip(table.get_row_at(row), table.ordered_columns, strict=True):
                assert len(str(cell)) <= column.width, (cell, column.label)


def test_points_a_hair_apart_are_not_spread_over_the_whole_axis() -> None:
    """Operator pass (issue 21): one job's output rates 393.96 and 394.39 tok/s filled the Pareto plot's x axis
    with six-digit ticks, as if they differed. The axis spans at least a twentieth of the values either side."""
    low, high = results_view._padded([393.96, 394.39])
    assert high - low >= 0.1 * 394 and low < 393.96 and high > 394.39
    low, high = results_view._padded([10.0, 200.0])  # a real spread keeps its own tenth
    assert (low, high) == (0.0, 219.0)
