"""The job view at 80x24 (operator pass): a 1P2D job showed `prefill_0` and `decode_0` with `decode_1` below
`↓ more below`, a failed one cut its failure sentence (`worker decode_0 exited with cod…`) and needed ctrl+d for
its Problems panel and failing row, and the router's URL wrapped mid-token. Built from frozen snapshots of the
operator's job: a 1P2D mocker job (no GPU exporter) on a cluster whose addresses are longer than the fixtures'."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from rich.style import Style
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget

from srt_tui.monitor.model import JobSnapshot
from srt_tui.monitor.statuses.stage import exit_words
from srt_tui.tui.monitor.job_view import JobView, ProblemsPanel, sources_wordings, state_line
from srt_tui.tui.monitor.router_panel import RouterPanel
from srt_tui.tui.monitor.serving_panel import ServingPanel
from srt_tui.tui.monitor.worker_table import WorkerTable
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app

#: the operator's cluster (`http://10.251.0.11:8000` is two characters longer than the fixtures' URL)
NET = "10.251.0"
#: the job view's smoke test line (`b`), as the Monitor writes it
SMOKE = "✓ 20/20 ok, 0 failed · latency p50 612 ms p99 948 ms · TTFT p50 301 ms p99 517 ms · 31 tok/s in 2.05 s"


def running_1p2d(job_id: str = "81251", topology: str | None = None) -> JobSnapshot:
    """The operator's 1P2D job serving under load (or another ``topology`` of its recipe): serving figures, no
    GPU exporter."""
    snap = frozen.frozen_job(job_id, "nvidia/h100-1p2d-sglang.yaml", "nvidia-h100", net=NET, topology=topology)
    snap = frozen.with_serving(snap)
    return replace(snap, gpus=(), sources=tuple(s for s in snap.sources if s.name != "gpu exporter"))


def failed_1p2d(job_id: str = "81252", topology: str | None = None) -> JobSnapshot:
    """The same job after the operator killed `decode_0` (it stopped cleanly: code 0): its benchmark measured 30
    requests, none failed, of the router's 43 (warm-up and smoke included); the engines failed 4 (retried)."""
    snap = running_1p2d(job_id, topology)
    culprit = next(w for w in snap.workers if w.name == "decode_0")
    counts = {"prefill_0": (43.0, 4.0), "decode_0": (21.0, 4.0)}
    workers = tuple(
        replace(w, health="down", detail="the job has ended", rate_per_s=None, running=0.0, source="relay",
                router_healthy=None, requests_total=counts.get(w.name, (22.0, 0.0))[0],
                requests_ok=counts.get(w.name, (22.0, 0.0))[0] - counts.get(w.name, (22.0, 0.0))[1],
                requests_failed=counts.get(w.name, (22.0, 0.0))[1],
                log_tail=("[2026-03-01 11:39:58] POST /generate 200", f"stopped: {w.name}"))
        for w in snap.workers
    )  # fmt: skip
    assert snap.router is not None
    return replace(
        snap,
        stage="failed",
        slurm_state="FAILED",
        stage_detail=exit_words(f"worker decode_0 exited with code 0; log: {culprit.log}", True),
        ended_at="2026-03-01T11:40:00Z",
        workers=workers,
        router=replace(snap.router, requests=43.0, errors=0.0, retries=4.0),
        requests=30.0,
        errors=0.0,
        requests_from="benchmark",
        rate_per_s=None,
        failure_log=culprit.log,
        failure_line=f"stopped: {culprit.name}",
        sources=snap.sources[:2],
    )


async def _with_smoke(pilot: Pilot[Any]) -> None:
    """The job view after `b`: its smoke test's line under the summary."""
    screen: Any = pilot.app.screen
    view = screen.query_one(JobView)
    if view.snapshot is not None and not view.snapshot.is_final:
        view.smoke[view.snapshot.job_id] = SMOKE
        screen.redraw()
    await pilot.pause()


def _lines(widget: Widget) -> list[str]:
    """What a widget draws, line by line (its padding included: `size` alone would cut its last columns)."""
    return [s.text.rstrip() for s in widget.render_lines(Region(0, 0, widget.region.width, widget.region.height))]


def _on_screen(view: JobView, widget: Widget) -> bool:
    """Whether all of ``widget`` is on the job view's first screen (not scrolled, not under `↓ more below`)."""
    return view.scroll_y == 0 and widget.region.bottom <= view.region.bottom and not view.query_one("#job-more").display


async def test_no_url_is_cut_mid_token() -> None:
    """The router panel shows its URL whole or not at all (a failed job's narrow panel wrapped it as
    `http://10.251.0.11:80` over `00`); the summary's are whole."""
    url = f"http://{NET}.11:8000"
    for snap in (failed_1p2d(), running_1p2d()):
        app = frozen_app([snap], open_job=snap.job_id)
        async with app.run_test(size=(80, 24)) as pilot:
            await _with_smoke(pilot)
            summary, router = _lines(app.screen.query_one("#job-summary")), _lines(app.screen.query_one(RouterPanel))
            shown = [line for line in summary + router if "http://" in line]  # not the sources line's `http ✓`
            assert all(url in line for line in shown) and (shown or snap.is_final), shown


@pytest.mark.parametrize(
    "make",
    [running_1p2d, failed_1p2d, lambda: frozen.nvidia("degraded"), lambda: frozen.nvidia("exporter-down")],
    ids=["running", "failed", "degraded", "exporter-down"],
)
async def test_the_sources_are_whole_at_80_columns(make: Callable[[], JobSnapshot]) -> None:
    """Operator pass: at 80x24 the summary's counters line ended `· sources slurm ✓  j…`, the sources cut. They take
    the first wording that fits beside the counters (`sources all ✓`, or the failing ones, `sources ✗ http`: the
    Problems panel says why), else a line of their own; the whole line is the tooltip."""
    snap = make()
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.pause()
        summary = app.screen.query_one("#job-summary")
        lines = _lines(summary)
        said = next(line for line in lines if "sources " in line).split("sources ", 1)[1]
        assert said in {w.plain.removeprefix("sources ") for w in sources_wordings(snap, lambda _: Style())}, lines
        failing = [s.name for s in snap.sources if not s.ok]
        assert all(name in said for name in failing) and ("✗" in said if failing else "✓" in said), said
        assert "sources slurm ✓" in str(summary.tooltip)


async def test_the_failure_sentence_is_whole_on_the_state_line() -> None:
    """`worker decode_0 exited with cod…` was cut at 80 columns: `Slurm FAILED` no longer repeats as `stage failed`
    when the line is short of room, and the log's path is the Problems panel's."""
    snap = failed_1p2d()
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        summary = _lines(app.screen.query_one("#job-summary"))
        assert summary[1].strip() == "Slurm FAILED · worker decode_0 exited (code 0) while the job was serving"


def test_a_long_failure_wraps_whole_words_rather_than_being_cut() -> None:
    snap = replace(failed_1p2d(), slurm_state="COMPLETED", stage_detail="the job ended at stage `workers healthy`")
    for width in (78, 40, 30):
        lines = state_line(snap, lambda _: Style(), width).plain.split("\n")
        assert all(len(line) <= width for line in lines), lines
        assert " ".join(line.strip() for line in lines).endswith(snap.stage_detail), lines


async def test_the_problems_panel_names_the_failing_log_once() -> None:
    """The panel repeated the summary's sentence with the log's path wrapped over two lines, then the path again
    over the log's last lines, and the last lines of every worker that merely stopped with the job."""
    snap = failed_1p2d()
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        text = str(app.screen.query_one(ProblemsPanel).render())
        assert text.count(snap.failure_log) == 1 and "stopped: decode_0" in text, text
        assert "exited" not in text and "prefill_0" not in text and "decode_1" not in text, text


async def test_the_benchmarks_count_and_the_routers_are_told_apart() -> None:
    """s34 (issue 21 leftovers): after its benchmark the summary read `benchmark 30 of 43 routed, 0 failed` while the
    router panel and the workers' REQ read 43: two numbers for one thing. The summary says the benchmark's own
    requests, completed of its total (its results: 30 measured); the router's 43 reads `in all` (its warm-up and
    smoke requests too), and Help says what each counts, in the same words."""
    from textual.widgets import Static

    from srt_tui.tui.help_screen import HelpScreen

    snap = failed_1p2d()
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        summary = " ".join(_lines(app.screen.query_one("#job-summary")))
        router = " ".join(_lines(app.screen.query_one(RouterPanel)))
        assert "benchmark 30/30 completed ·" in summary and "43" not in summary and "routed" not in summary, summary
        assert "routed 43 in all" in router, router
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        legend = " ".join(str(app.screen.query_one("#help-legend", Static).render()).split())
    assert "`routed 43 in all` once a benchmark ended" in legend and "warm-up and smoke requests" in legend, legend
    assert "`benchmark 30/30 completed` counts the benchmark's own measured requests only" in legend, legend
    # while the job runs, the summary's count is the router's own, named so: the panel's `routed` needs no `in all`
    running = running_1p2d()
    app = frozen_app([running], open_job=running.job_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        summary = " ".join(_lines(app.screen.query_one("#job-summary")))
        router = " ".join(_lines(app.screen.query_one(RouterPanel)))
        assert "(router)" in summary and "routed 3.6k" in router and "in all" not in router, (summary, router)


SNAPS: list[Any] = [
    pytest.param(running_1p2d, id="running"),
    pytest.param(failed_1p2d, id="failed"),
]


@pytest.mark.parametrize("make", SNAPS)
def test_job_view_80x24_snapshot(snap_compare: Any, make: Callable[[], JobSnapshot]) -> None:
    snap = make()
    assert snap_compare(frozen_app([snap], open_job=snap.job_id), terminal_size=(80, 24), run_before=_with_smoke)


@pytest.mark.parametrize("topology", ["1P2D", "1P3D"])
@pytest.mark.parametrize("make", SNAPS)
async def test_every_worker_row_and_the_problems_are_on_the_first_screen(
    make: Callable[[str, str], JobSnapshot], topology: str
) -> None:
    """Up to four workers (on as many nodes, with a smoke test's line): every row, and a failed job's Problems
    panel with the cursor on the worker that failed it. The panels above keep to one line where they can: the
    Serving figures' medians under a title rule (an ended job's last figures give way), the GPU legend in its
    panel's border, the smoke test's first figures, the forward line without the URL the state line shows."""
    snap = make("81260", topology)
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await _with_smoke(pilot)
        view, table = app.screen.query_one(JobView), app.screen.query_one(WorkerTable)
        assert table.row_count == len(snap.workers) and _on_screen(view, table), (table.region, view.region)
        if snap.is_final:
            assert _on_screen(view, app.screen.query_one(ProblemsPanel))
            assert table.highlighted_worker == "decode_0"


async def test_a_completed_jobs_last_figures_stay_at_80x24_and_give_way_to_problems() -> None:
    """op10: an ended job's Serving panel was hidden at 80x24 with rows to spare (its last figures were found only at
    120 columns). A job that ended with nothing to read in Problems keeps them on their one line; a failed job's
    figures still give way to its Problems."""
    failed = failed_1p2d()
    done = replace(
        failed, stage="completed", slurm_state="COMPLETED", stage_detail="", failure_log="", failure_line="",
        workers=tuple(replace(w, log_tail=()) for w in failed.workers),
    )  # fmt: skip
    for snap, shown in ((done, True), (failed, False)):
        app = frozen_app([snap], open_job=snap.job_id)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            view = app.screen.query_one(JobView)
            problems, serving = view.query_one(ProblemsPanel), view.query_one(ServingPanel)
            assert bool(problems.display) is not shown, snap.stage
            assert bool(serving.display) is shown and (not shown or _on_screen(view, serving)), snap.stage
