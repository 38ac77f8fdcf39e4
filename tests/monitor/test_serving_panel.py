"""The Serving panel of the job view (TTFT/TPOT/E2E p50 and p99, tok/s, running/waiting, KV %, sparklines,
units on every figure) from a frozen snapshot under load at common terminal sizes, hidden for a job whose
engine exports no serving metrics; the same figures in a worker's detail and in `srt-tui status`."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import DataTable, Static

from srt_tui.monitor import cells
from srt_tui.tui.monitor.serving_panel import ServingPanel
from srt_tui.tui.monitor.worker_detail import WorkerDetail
from tests.monitor import frozen, serving_faces
from tests.monitor.tui_apps import frozen_app, highlighted_worker_detail

SIZES = [pytest.param((120, 36), id="120x36"), pytest.param((80, 24), id="80x24")]


@pytest.mark.parametrize("size", SIZES)
def test_job_view_serving_panel_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    snap = frozen.with_serving(frozen.nvidia())
    assert snap_compare(frozen_app([snap], open_job=snap.job_id), terminal_size=size)


async def test_the_panel_shows_every_figure_with_its_unit_and_hides_without_serving_metrics() -> None:
    loaded, plain = frozen.with_serving(frozen.nvidia()), frozen.amd()
    app = frozen_app([loaded], open_job=loaded.job_id)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        panel = app.screen.query_one(ServingPanel)
        assert panel.display
        shown = " ".join("".join(seg.text for seg in strip) for strip in panel.render_lines(panel.region.reset_offset))
        for figure in ("TTFT p50 305 ms p99 520 ms", "TPOT p50 4.1 ms p99 16 ms", "E2E p50 610 ms p99 950 ms"):
            assert figure in shown
        for figure in ("in 824 tok/s", "out 1.6k tok/s", "running 12", "waiting 2", "KV 37 %", "last 60 s"):
            assert figure in shown
    app = frozen_app([plain], open_job=plain.job_id)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert not app.screen.query_one(ServingPanel).display


async def test_the_worker_detail_shows_its_own_figures() -> None:
    snap = frozen.with_serving(frozen.nvidia())
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#job-workers", DataTable)
        table.focus()
        decode = next(i for i, w in enumerate(snap.workers) if w.role == "decode")
        table.move_cursor(row=decode)
        await pilot.press("enter")
        await pilot.pause()
        detail = app.screen
        assert isinstance(detail, WorkerDetail)
        body = str(detail.query_one("#worker-detail-text", Static).render())
        assert "serving" in body and "TPOT p50 4.1 ms p99 16 ms" in body and "out 825 tok/s" in body
        assert "KV 37 %" in body and "over the last 60 s" in body


def test_status_line_carries_the_figures_with_units_and_their_span() -> None:
    """Operator pass: `status` read `in 788 tok/s` beside the Monitor's `in 274 tok/s … (over the last 61 s)`, saying
    nothing of its own span (since the previous run, 2 s before); it says it as the panel does, or what it waits for."""
    from dataclasses import replace

    serving = frozen.with_serving(frozen.nvidia()).serving
    assert serving is not None
    line = cells.serving_line(serving)
    assert line == (
        "TTFT p50 305 ms p99 520 ms · TPOT p50 4.1 ms p99 16 ms · E2E p50 610 ms p99 950 ms · "
        "in 824 tok/s out 1.6k tok/s · running 12 waiting 2 · KV 37 % (over the last 60 s)"
    )
    assert cells.serving_line(replace(serving, window_s=2.04)).endswith("KV 37 % (over the last 2.0 s)")
    first = cells.serving_line(replace(serving, window_s=None), "rates: run `status` again within a minute")
    assert first.endswith("KV 37 % (rates: run `status` again within a minute)")
    assert cells.serving_line(frozen.amd().serving) == ""


async def test_the_panel_and_status_say_the_same_figures_over_the_same_span() -> None:
    """One snapshot, two faces: the Serving panel and `status`'s serving line show the same figures, in the same
    order, and the same span (the operator found the two disagreeing, one of them not saying over what)."""
    snap = frozen.with_serving(frozen.nvidia())
    line, shown = serving_faces.status_line(snap), await serving_faces.panel_text(snap)
    said = serving_faces.figures(line)
    assert said == serving_faces.figures(shown), (line, shown)
    assert said[-1] == "over the last 60 s" and len(said) == 10, said


@pytest.mark.parametrize(("requests_from", "points_to_results"), [("benchmark", True), ("last seen", False)])
async def test_an_ended_jobs_panel_says_it_ended_instead_of_waiting_for_scrapes(
    requests_from: str, points_to_results: bool
) -> None:
    """Issue 21 review: after the demo's job ended the panel still read `(latency after two scrapes)`, which
    never come; it says the job ended, and where its measured figures are when its benchmark wrote any (a
    manual job's `R` has nothing to show: the operator pass found the note pointing there)."""
    from dataclasses import replace

    snap = frozen.with_serving(frozen.nvidia())
    assert snap.serving is not None
    ended = replace(
        snap,
        stage="completed",
        slurm_state="COMPLETED",
        serving=replace(snap.serving, window_s=None),
        requests=30.0,
        requests_from=requests_from,
    )
    app = frozen_app([ended], open_job=ended.job_id)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        panel = app.screen.query_one(ServingPanel)
        shown = " ".join("".join(seg.text for seg in strip) for strip in panel.render_lines(panel.region.reset_offset))
        assert "two scrapes" not in shown and "the job has ended" in shown, shown
        assert ("R: what its benchmark measured" in shown) is points_to_results, shown


async def test_an_ended_job_first_seen_after_its_end_shows_no_panel_of_dashes() -> None:
    """Operator pass (issue 21): a job that had ended before this TUI started showed `TTFT p50 - p99 - …
    in - out -` over `(the job has ended: its last figures …)`: only its last gauges were known. Without a
    rate or latency the panel is hidden for an ended job (R has what it measured); a running one keeps it."""
    from dataclasses import replace

    from srt_tui.monitor.model import Serving

    gauges = Serving(running=0.0, waiting=0.0, kv_usage=0.0)
    snap = replace(frozen.nvidia(), serving=gauges)
    for final, shown in ((True, False), (False, True)):
        job = replace(snap, stage="completed", slurm_state="COMPLETED") if final else snap
        app = frozen_app([job], open_job=job.job_id)
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            assert app.screen.query_one(ServingPanel).display is shown


async def test_an_ended_jobs_worker_detail_says_it_ended_too() -> None:
    """It says the job ended, and what window its last figures cover (issue 21, operator pass 9)."""
    from dataclasses import replace

    snap = frozen.with_serving(frozen.nvidia())
    body = await highlighted_worker_detail(replace(snap, stage="completed", slurm_state="COMPLETED"))
    assert "(the job has ended: its last figures, over the last 60 s)" in body, body
    assert "serving  (from its own metrics)" in body and "last minute" not in body, body  # the note says its window


@pytest.mark.parametrize("vendor", ["nvidia", "amd"])
async def test_at_80x24_the_panels_keep_to_key_figures_and_every_worker_is_on_the_first_screen(vendor: str) -> None:
    """A short terminal: the Serving panel shows the medians (its title says `p50`) and the output rate (no p99,
    E2E or note) and the router panel does not repeat the summary's URL, so the worker table's rows are on screen
    without scrolling."""
    from srt_tui.tui.monitor.job_view import JobView
    from srt_tui.tui.monitor.router_panel import RouterPanel
    from srt_tui.tui.monitor.worker_table import WorkerTable

    snap = frozen.with_serving(getattr(frozen, vendor)("degraded"))
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        panel = app.screen.query_one(ServingPanel)
        shown = " ".join("".join(seg.text for seg in strip) for strip in panel.render_lines(panel.region.reset_offset))
        assert "TTFT 305 ms" in shown and "out 1.6k tok/s" in shown, shown
        # no room for the note on one line: the title says the medians' span
        assert "Serving · p50 · over the last 60 s" in shown, shown
        assert "p99" not in shown and "E2E" not in shown
        router = app.screen.query_one(RouterPanel)
        said = " ".join("".join(seg.text for seg in strip) for strip in router.render_lines(router.region.reset_offset))
        assert "routed 3.6k" in said and snap.router is not None and snap.router.url, said
        assert snap.router.url not in said, said
        view, table = app.screen.query_one(JobView), app.screen.query_one(WorkerTable)
        assert view.scroll_y == 0
        rows_end = table.region.y + 2 + table.row_count  # border and header, then one line per worker
        assert rows_end <= view.region.bottom, (rows_end, view.region)
    async with frozen_app([snap], open_job=snap.job_id).run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        panel = pilot.app.screen.query_one(ServingPanel)
        shown = " ".join("".join(seg.text for seg in strip) for strip in panel.render_lines(panel.region.reset_offset))
        assert "p99" in shown and "E2E" in shown  # a tall terminal: every figure


def test_panel_leads_with_the_mean_and_says_what_sglang_router_adds() -> None:
    """The Serving panel of the new-operator pass's job (mocker-1p2d behind sglang-router): the TTFT group reads
    the window's mean first, and what a client through sglang-router sees beyond it, on the wide face and the
    short one (80x24: medians only)."""
    from rich.style import Style

    from srt_tui.monitor.model import Serving
    from srt_tui.tui.monitor.serving_panel import serving_pairs

    s = Serving(
        ttft_p50_s=0.05,
        ttft_p99_s=0.099,
        ttft_mean_s=0.0064,
        itl_p50_s=0.003,
        itl_p99_s=0.005,
        output_tok_per_s=100.0,
        window_s=61.0,
        below_first_bucket=(("ttft_p50_s", 0.1), ("ttft_p99_s", 0.1)),
        client_ttft_added_s=0.04,
        client_ttft_router="sglang-router",
    )
    wide = [t.plain for t in serving_pairs(s, lambda _: Style(), sparks=False)]
    assert wide[0] == "TTFT mean 6.4 ms (p50, p99 <100 ms), clients see up to +40 ms"
    assert wide[-1] == "(over the last 61 s · +40 ms: sglang-router sets no TCP_NODELAY)"  # why, once
    brief = [t.plain for t in serving_pairs(s, lambda _: Style(), sparks=False, brief=True)]
    assert brief[0] == "TTFT mean 6.4 ms, clients see up to +40 ms"


@pytest.mark.parametrize(
    ("size", "ttft"),
    [
        ((80, 24), "TTFT mean 6.4 ms, clients see up to +40 ms"),
        ((80, 30), "TTFT mean 6.4 ms (p50, p99 <100 ms), clients see up to +40 ms"),
    ],
)
async def test_at_80_columns_what_clients_see_stays_on_its_figures_line(size: tuple[int, int], ttft: str) -> None:
    """`TTFT mean 6.4 ms (p50, p99 <100 ms) clients +≤40 ms (sglang-router: no TCP_NODELAY)` was wider than the panel
    at 80 columns (the new-operator pass's mocker-1p2d behind sglang-router), and cryptic: its note broke onto the
    next line. The note stays on its figures' line, on the short face (80x24) and the full one (80x30), and the full
    one says why once under the figures."""
    from dataclasses import replace

    from srt_tui.monitor.model import Serving

    serving = Serving(
        ttft_p50_s=0.05, ttft_p99_s=0.099, ttft_mean_s=0.0064, itl_p50_s=0.003, itl_p99_s=0.005,
        e2e_p50_s=0.05, e2e_p99_s=0.183, e2e_mean_s=0.075, input_tok_per_s=1234.0, output_tok_per_s=12345.0,
        running=3.0, waiting=0.0, kv_usage=0.12, window_s=61.0,
        below_first_bucket=(("ttft_p50_s", 0.1), ("ttft_p99_s", 0.1), ("e2e_p50_s", 0.1)),
        client_ttft_added_s=0.04, client_ttft_router="sglang-router",
    )  # fmt: skip
    snap = replace(frozen.nvidia(), serving=serving)
    async with frozen_app([snap], open_job=snap.job_id).run_test(size=size) as pilot:
        await pilot.pause()
        panel = pilot.app.screen.query_one(ServingPanel)
        lines = ["".join(s.text for s in strip).strip("│ ") for strip in panel.render_lines(panel.region.reset_offset)]
        assert any(line.startswith(ttft) for line in lines), lines
        if size[1] >= 30:
            assert "E2E mean 75 ms p50 <100 ms p99 183 ms, clients see up to +40 ms" in lines, lines
            assert "(over the last 61 s · +40 ms: sglang-router sets no TCP_NODELAY)" in lines, lines


def test_the_e2e_group_carries_what_a_client_through_the_router_adds_as_ttft_does() -> None:
    """New-operator pass (2026-12-07): `smoke test ✓ 20/20 ok … latency p50 84 ms` beside `E2E mean 44 ms (p50,
    p99 <100 ms)` with no note: sglang-router's held first chunk (no TCP_NODELAY) is in a client's E2E as in its
    TTFT, so the E2E group says `clients see up to +40 ms` too (the reason once, under the figures); not behind
    other routers."""
    from dataclasses import replace

    from rich.style import Style

    from srt_tui.monitor.model import Serving
    from srt_tui.tui.monitor.serving_panel import serving_pairs

    s = Serving(
        ttft_p50_s=0.05,
        ttft_p99_s=0.099,
        ttft_mean_s=0.0064,
        e2e_p50_s=0.05,
        e2e_p99_s=0.099,
        e2e_mean_s=0.044,
        window_s=61.0,
        below_first_bucket=(("ttft_p50_s", 0.1), ("ttft_p99_s", 0.1), ("e2e_p50_s", 0.1), ("e2e_p99_s", 0.1)),
        client_ttft_added_s=0.04,
        client_ttft_router="sglang-router",
    )
    wide = [t.plain for t in serving_pairs(s, lambda _: Style(), sparks=False)]
    assert "E2E mean 44 ms (p50, p99 <100 ms), clients see up to +40 ms" in wide, wide
    plain = replace(s, client_ttft_added_s=0.0, client_ttft_router="")
    assert "E2E mean 44 ms (p50, p99 <100 ms)" in [t.plain for t in serving_pairs(plain, lambda _: Style())]


def test_what_a_client_adds_is_said_only_beside_a_measured_figure() -> None:
    """New-operator pass op11 (2026-12-07): a job behind sglang-router that had served nothing read `TTFT -
    clients +≤40 ms` in the panel and `TTFT p50 - p99 - clients +≤40 ms (sglang-router: no TCP_NODELAY)` in `status`:
    a note on a figure that is not there. It comes with the first TTFT (and E2E) figure."""
    from dataclasses import replace

    from rich.style import Style

    from srt_tui.monitor import cells
    from srt_tui.monitor.model import Serving
    from srt_tui.tui.monitor.serving_panel import serving_pairs

    idle = Serving(running=0.0, window_s=61.0, client_ttft_added_s=0.04, client_ttft_router="sglang-router")
    lines = [t.plain for t in serving_pairs(idle, lambda _: Style(), sparks=False)]
    assert not any("clients" in line for line in lines), lines
    assert "clients" not in cells.serving_line(idle), cells.serving_line(idle)
    served = replace(idle, ttft_p50_s=0.05, ttft_p99_s=0.08, e2e_mean_s=0.06)
    assert "TTFT p50 50 ms p99 80 ms, clients see up to +40 ms (sglang-router sets" in cells.serving_line(served)
    assert "clients see up to +40 ms" in cells.serving_line(served).split("E2E")[1]


async def test_an_ended_jobs_worker_detail_unwatched_says_no_figures_were_recorded() -> None:
    """Operator pass (issue 21, 2026-12-07): a finished job's worker detail showed `(the job has ended: its last
    figures)` over dashes and zeros when its run was not watched: they were no figures of its run. It says none
    were recorded while it ran; a watched run keeps `its last figures`."""
    from dataclasses import replace

    from srt_tui.monitor.model import Serving

    snap = replace(frozen.nvidia(), stage="completed", slurm_state="COMPLETED")
    gauges = Serving(running=0.0, waiting=0.0, kv_usage=0.0)
    workers = tuple(replace(w, serving=gauges) for w in snap.workers)
    body = await highlighted_worker_detail(replace(snap, workers=workers))
    assert "no figures were recorded while it ran" in body and "its last figures" not in body, body
    watched = frozen.with_serving(frozen.nvidia())
    body = await highlighted_worker_detail(replace(watched, stage="completed", slurm_state="COMPLETED"))
    assert "its last figures" in body and "no figures were recorded" not in body, body


def test_a_latency_whose_median_the_buckets_cannot_resolve_draws_no_sparkline() -> None:
    """op10: full bars beside `TTFT mean 0.0 ms (p50, p99 <100 ms)`: each bar was the slot's median interpolated in
    the first bucket (~50 ms), not the latency. Such a latency draws no line; a resolved one (TPOT here) keeps its."""
    from rich.style import Style

    from srt_tui.monitor.model import Serving
    from srt_tui.tui.monitor.serving_panel import serving_pairs

    s = Serving(
        ttft_p50_s=0.05,
        ttft_p99_s=0.099,
        ttft_mean_s=0.00004,
        itl_p50_s=0.003,
        itl_p99_s=0.005,
        output_tok_per_s=100.0,
        window_s=61.0,
        below_first_bucket=(("ttft_p50_s", 0.1), ("ttft_p99_s", 0.1)),
        spark_ttft_s=(0.05,) * 12,
        spark_itl_s=(0.003,) * 12,
    )
    ttft, tpot = (t.plain for t in serving_pairs(s, lambda _: Style(), sparks=True)[:2])
    assert ttft.startswith("TTFT mean 0.0 ms") and not any(c in ttft for c in cells.SPARK_CHARS), ttft
    assert tpot.endswith(" " + "█" * 12), tpot
