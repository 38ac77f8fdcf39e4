"""A hung worker's load and trend through the real Monitor (issue 21, the operator's cockpit, items 1, 2 and 5): two
real mock workers (SGLang's serving families) on one node, refreshes 2 s apart on the injected clock, then one of
them stopped (`SIGSTOP`: it takes connections and never replies). Its TREND went on showing its last line as if it
were steady and its requests `running 0 waiting 0`, and the Q column said `-` beside the Serving panel's
`waiting 0`: two readings of one queue. Its worker detail showed its last minute's latencies and token rates as
current (s34): they say their age."""

from __future__ import annotations

import json
import os
import signal
from dataclasses import replace
from pathlib import Path
from typing import Any

from srt_tui.core.engines.mocker import Mocker
from srt_tui.core.engines.serving import SGLANG
from srt_tui.monitor import cells
from srt_tui.monitor.model import JobSnapshot, WorkerStatus
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.monitor.statuses.history import SPARK_POINTS
from tests.mock.mockprocs import Launcher
from tests.monitor.jobdirs import describe, send, write_agg_job
from tests.monitor.tui_apps import highlighted_worker_detail


def _w(snap: JobSnapshot, name: str) -> WorkerStatus:
    return next(w for w in snap.workers if w.name == name)


def _monitor(mono: list[float]) -> Monitor:
    """The real Monitor with short timeouts, on the injected clock ``mono``."""
    return Monitor(None, http_timeout=0.3, connect_timeout=0.3, budget_s=0.5, backoff_base=0.05, backoff_cap=0.1,
                   clock=lambda: mono[0])  # fmt: skip


def _agg_job(tmp_path: Path, job_id: str, ok: Any, hung: Any) -> dict[str, Path]:
    """An aggregated job of the two workers on one node, with a mocker's (`--flavor sglang`) metrics contracts as the
    planner writes them."""
    job_dir = write_agg_job(tmp_path / "job", job_id, [(ok, 0), (hung, 0)], nodes=1)
    plan = json.loads((job_dir / "plan.json").read_text())
    for proc in plan["processes"]:
        proc["metrics"], proc["serving"] = Mocker.metrics, SGLANG
    (job_dir / "plan.json").write_text(json.dumps(plan))
    return {job_id: job_dir}


async def test_a_hung_workers_load_is_unknown_and_its_trend_goes_blank(tmp_path: Path) -> None:
    launcher = Launcher(tmp_path)
    mono = [1000.0]
    monitor = _monitor(mono)
    ok, hung = launcher.workers(("regular", "agg_0"), ("regular", "agg_1"))
    try:
        jobs = _agg_job(tmp_path, "local-hl", ok, hung)
        for _ in range(4):
            send(ok.url, 2)
            send(hung.url, 2)
            snap = (await monitor.refresh(jobs))[0]
            mono[0] += 2.0
        # one reading of the queue: each worker's RUN and Q are its Serving's, and the job's are their sums
        for w in snap.workers:
            assert w.serving is not None and w.queued == w.serving.waiting == 0.0, describe(snap)
            assert w.running == w.serving.running and not w.unread
        assert snap.serving is not None and snap.serving.waiting == sum(w.queued or 0.0 for w in snap.workers)
        assert len(_w(snap, "agg_1").spark) == SPARK_POINTS and _w(snap, "agg_1").spark[-1] is not None
        read_at = mono[0] - 2.0  # its last reading: the refresh just before it stopped
        before = _w(snap, "agg_1").serving
        assert before is not None and before.age_s is None  # current figures: no age

        os.kill(hung.proc.popen.pid, signal.SIGSTOP)
        for _ in range(12):
            snap = (await monitor.refresh(jobs))[0]
            mono[0] += 2.0
            if _w(snap, "agg_1").health == "hung":
                break
        for _ in range(2):  # 20 s on: what it served is 20 s old
            mono[0] += 10.0
            snap = (await monitor.refresh(jobs))[0]
        stopped, answering = _w(snap, "agg_1"), _w(snap, "agg_0")
        assert stopped.health == "hung", describe(snap)
        # its requests: unknown, and why (a zero read as idle)
        assert stopped.running is None and stopped.queued is None and stopped.unread == "hung"
        assert cells.load(stopped.queued, bool(stopped.unread)) == "?"
        assert snap.serving is not None and snap.serving.unread == ("agg_1 hung",)
        assert "running ? waiting ? (agg_1 hung)" in cells.serving_line(snap.serving)
        assert stopped.serving is not None and stopped.serving.unread == ("agg_1 hung",)
        # its trend: blanks since it stopped answering, on the same time axis as its neighbour's, which goes on
        assert stopped.spark[-4:] == (None,) * 4, stopped.spark
        assert any(v is not None for v in stopped.spark), stopped.spark  # what it served before, still shown
        assert all(v is not None for v in answering.spark[-4:]), answering.spark
        # its latencies and token rates are its last minute's (s34: the worker detail showed them as current): they
        # say how old they are, on the Monitor's clock; its neighbour's are current
        assert stopped.serving.age_s == mono[0] - read_at >= 20.0, (stopped.serving.age_s, mono[0], read_at)
        assert stopped.serving.output_tok_per_s is not None and answering.serving is not None
        assert answering.serving.age_s is None
        age = f"{(mono[0] - read_at):.0f} s ago"
        assert cells.serving_span(stopped.serving).endswith(f"up to its last reading, {age}")
        moved = replace(snap, workers=(stopped, *(w for w in snap.workers if w is not stopped)))
        detail = await highlighted_worker_detail(moved)
        assert f"serving  (not current: read {age}, before it hung)" in detail, detail
        assert "last minute" not in detail and "over the last" not in detail, detail
    finally:
        os.kill(hung.proc.popen.pid, signal.SIGCONT)
        await monitor.aclose()
        launcher.close()


async def test_the_jobs_figures_leave_a_hung_worker_out(tmp_path: Path) -> None:
    """The job's TTFT, TPOT and tok/s sum current readings only (s35): a hung worker's last minute stayed in them for
    up to 5 min, as if it still served; its figures are left out, and said to be (`1 worker not current, left out`)."""
    launcher = Launcher(tmp_path)
    mono = [1000.0]
    monitor = _monitor(mono)
    ok, hung = launcher.workers(("regular", "agg_0"), ("regular", "agg_1"))
    try:
        jobs = _agg_job(tmp_path, "local-lo", ok, hung)
        for _ in range(4):
            send(ok.url, 2)
            send(hung.url, 6)  # the busier one: its frozen share would dominate the sum
            snap = (await monitor.refresh(jobs))[0]
            mono[0] += 2.0
        both = snap.serving
        assert both is not None and both.output_tok_per_s is not None and not both.unread, describe(snap)
        os.kill(hung.proc.popen.pid, signal.SIGSTOP)
        for _ in range(12):
            snap = (await monitor.refresh(jobs))[0]
            mono[0] += 2.0
            if _w(snap, "agg_1").health == "hung":
                break
        mono[0] += 10.0
        snap = (await monitor.refresh(jobs))[0]
        stopped, answering = _w(snap, "agg_1"), _w(snap, "agg_0")
        assert stopped.health == "hung" and answering.health == "healthy", describe(snap)
        job, mine = snap.serving, answering.serving
        assert job is not None and mine is not None and mine.output_tok_per_s, describe(snap)
        # the hung worker's figures are still its own (aged), never the job's
        assert stopped.serving is not None and stopped.serving.output_tok_per_s and stopped.serving.age_s
        assert job.output_tok_per_s == mine.output_tok_per_s, (job, mine)
        assert job.input_tok_per_s == mine.input_tok_per_s and job.ttft_mean_s == mine.ttft_mean_s, (job, mine)
        assert job.window_s == mine.window_s and job.unread == ("agg_1 hung",)
        line = cells.serving_line(job)
        assert f"({cells.serving_span(mine)} · 1 worker not current, left out)" in line, line
        assert "(agg_1 hung)" in line, line
        # a worker's own figures say their age instead (its detail: `not current: read … ago`)
        assert cells.left_out(stopped.serving) == "" and cells.left_out(mine) == ""
    finally:
        os.kill(hung.proc.popen.pid, signal.SIGCONT)
        await monitor.aclose()
        launcher.close()
