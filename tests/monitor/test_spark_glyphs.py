"""One meaning per sparkline glyph (issue 21, leftovers of the new-operator passes): a blank is a slot with no reading,
`▁` a reading of zero, `▂`-`█` a reading above zero. A mock job's workers read before their first request drew a
blank TREND (their request counter has no series until then: read as not read) beside the Serving panel's idle
`▁▁▁▁` from the same scrapes, and a reading near zero drew `▁`, the idle bar, in every line. Real mock workers
(SGLang's serving families, the planner's contracts) read by the real Monitor on its injected clock."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from srt_tui.core.engines.mocker import Mocker
from srt_tui.core.engines.serving import SGLANG
from srt_tui.monitor import cells
from srt_tui.monitor.probes import selectors
from srt_tui.monitor.probes.prom import WORKER_SAMPLES, SampleCache, worker_counters
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.tui.monitor.screen import MonitorScreen
from tests.mock.mockprocs import Launcher
from tests.monitor.jobdirs import describe, send, write_agg_job
from tests.monitor.test_job_view_80 import running_1p2d
from tests.monitor.tui_apps import frozen_app

#: a minute watched: not read (before the Monitor first read it), idle, then a trickle beside the load
POINTS = (None, None, None, 0.0, 0.0, 0.0, 0.0, 0.02, 0.04, 1.0, 2.0, 2.0)


def _glyphs(line: str) -> str:
    """A sparkline by meaning: `_` no reading, `0` zero, `+` above zero."""
    return "".join("_" if c == " " else "0" if c == "▁" else "+" for c in line)


def test_a_reading_above_zero_never_draws_the_idle_bar() -> None:
    assert cells.sparkline((None, 0.0, 0.01, 1.0)) == " ▁▂█"  # 1 % of the line's highest: low, not idle
    assert cells.sparkline((0.00004, 0.0), floor=cells.SPARK_FLOOR_LATENCY_S) == "▂▁"  # 40 µs below the scale's floor
    assert cells.sparkline((0.0, 0.0, None)) == "▁▁ "  # idle, then not read


def test_a_declared_request_counter_without_a_sample_reads_zero() -> None:
    """A labelled counter's series appear at its first increment: before it, the scrape declares the family (`# TYPE`)
    and has no sample of the selection, which has counted nothing (0), not "not read" (None: `-`, a blank TREND)."""
    contract = Mocker.metrics
    health = 'srt_mock_requests_total{path="/health",status="ok"} 3\n'
    for text, total in [
        ("# TYPE srt_mock_requests_total counter\n" + health, 0.0),
        ("# TYPE srt_mock_requests counter\n" + health, 0.0),  # OpenMetrics names the family without `_total`
        (health, None),  # not declared: an engine that does not export it says nothing
    ]:
        samples = SampleCache().samples(text, WORKER_SAMPLES + selectors.names(contract))
        assert worker_counters(samples, contract, text).total == total, text


def test_help_says_what_each_glyph_means() -> None:
    legend = MonitorScreen.HELP_LEGEND
    assert "a blank bar: nothing was read then" in legend and "▁: read, and zero" in legend, legend
    assert "▂ to █: above zero" in legend, legend


async def test_an_idle_worker_draws_the_same_glyphs_in_trend_and_serving(tmp_path: Path) -> None:
    """Before its first request a worker that answers reads 0 requests and draws `▁` where it was read, blanks before
    (as the Serving panel's output line from the same scrapes); once it serves, both lines rise in that slot."""
    launcher = Launcher(tmp_path)
    mono = [1000.0]
    monitor = Monitor(None, http_timeout=1.0, connect_timeout=0.5, budget_s=1.0, backoff_base=0.05,
                      backoff_cap=0.1, clock=lambda: mono[0])  # fmt: skip
    (worker,) = launcher.workers(("regular", "agg_0"))
    try:
        job_dir = write_agg_job(tmp_path / "job", "local-sg", [(worker, 0)], nodes=1)
        plan = json.loads((job_dir / "plan.json").read_text())
        for proc in plan["processes"]:  # as the planner writes a mocker's (`--flavor sglang`) contracts
            proc["metrics"], proc["serving"] = Mocker.metrics, SGLANG
        (job_dir / "plan.json").write_text(json.dumps(plan))
        jobs = {"local-sg": job_dir}
        for _ in range(5):  # 20 s read, nothing sent
            snap = (await monitor.refresh(jobs))[0]
            mono[0] += 5.0
        (w,) = snap.workers
        assert w.health == "healthy" and snap.serving is not None, describe(snap)
        trend, served = cells.sparkline(w.spark), cells.sparkline(snap.serving.spark_output_tok)
        assert _glyphs(trend) == _glyphs(served), (trend, served)
        assert _glyphs(trend).endswith("0000") and _glyphs(trend).startswith("_"), trend
        assert w.requests_total == 0.0 and cells.worker_counts(w) == "0/0", describe(snap)  # REQ says it too

        send(worker.url, 4)
        snap = (await monitor.refresh(jobs))[0]
        (w,) = snap.workers
        assert snap.serving is not None
        trend, served = cells.sparkline(w.spark), cells.sparkline(snap.serving.spark_output_tok)
        assert _glyphs(trend) == _glyphs(served) and _glyphs(trend).endswith("+"), (trend, served)
    finally:
        await monitor.aclose()
        launcher.close()


def test_job_view_sparklines_snapshot(snap_compare: Any) -> None:
    """The Serving panel's lines and TREND, each read by its glyphs: blanks, then idle `▁`, then a trickle `▂` (it
    drew `▁`, as idle) below the load."""
    snap = running_1p2d("81270")
    assert snap.serving is not None
    serving = replace(snap.serving, spark_ttft_s=POINTS, spark_itl_s=tuple(p and p / 70 for p in POINTS),
                      spark_output_tok=tuple(p and p * 800 for p in POINTS))  # fmt: skip
    snap = replace(snap, serving=serving, workers=tuple(replace(w, spark=POINTS) for w in snap.workers))
    assert snap_compare(frozen_app([snap], open_job=snap.job_id), terminal_size=(120, 36))
