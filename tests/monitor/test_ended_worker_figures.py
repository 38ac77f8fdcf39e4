"""What an ended job's workers say (issue 21, operator pass 9), through the real Monitor against a real mock worker:
the worker whose end failed the job is down for the cause the job recorded, in its health history too; the last
serving figures reach the job's final counters (a benchmark that ran between two refreshes read 0 tok/s and `-`)
and say their window; REQ, OK and FAIL come from one sample (REQ `1.5k` beside OK `-`)."""

from __future__ import annotations

import json
import os
import signal
import time
from datetime import datetime, timezone
from pathlib import Path

import httpx
import pytest

from srt_tui.core.engines.serving import SGLANG
from srt_tui.monitor import cells
from srt_tui.monitor.model import iso_utc
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.monitor.statuses.history import SAME_READING_S
from tests.mock.mockprocs import Launcher, Worker
from tests.monitor.jobdirs import describe, refresh_until, send, write_agg_job


def _event(job_dir: Path, stage: str, detail: str = "", at: float | None = None) -> float:
    """Append an event as the launch script writes it (millisecond ISO time); returns its time."""
    at = time.time() if at is None else at
    stamp = datetime.fromtimestamp(at, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    with open(job_dir / "status.jsonl", "a") as fh:
        fh.write(json.dumps({"stage": stage, "time": stamp, "detail": detail}) + "\n")
    return at


def _final_scrape(job_dir: Path, worker: Worker) -> None:
    """The job's last scrape of the worker's /metrics into relay/, as runtime.sh's `srt_relay` stores it."""
    metrics = httpx.get(worker.url + "/metrics", timeout=10, trust_env=False).text
    (job_dir / "relay").mkdir(exist_ok=True)
    tmp = job_dir / "relay" / ".m.tmp"
    tmp.write_text("HTTP/1.0 200 OK\nContent-Type: text/plain\n\n" + metrics)
    tmp.replace(job_dir / "relay" / f"{worker.name}.metrics")


def _with_serving_families(job_dir: Path) -> None:
    """plan.json's workers declare SGLang's serving families (the mock worker exports them as SGLang does)."""
    plan = json.loads((job_dir / "plan.json").read_text())
    for proc in plan["processes"]:
        proc["serving"] = SGLANG
    (job_dir / "plan.json").write_text(json.dumps(plan))


@pytest.mark.parametrize("seen_down_first", [False, True], ids=["ended-at-once", "refused-first"])
async def test_the_killed_worker_is_down_for_its_recorded_cause(
    tmp_path: Path, monitor: Monitor, seen_down_first: bool
) -> None:
    """Its history read `down  the job has ended`, though it ended the job: now `killed (signal 9)`, stamped when the
    job recorded it, also when a refresh had seen it refuse connections a moment before (same health word)."""
    launcher = Launcher(tmp_path)
    try:
        (worker,) = launcher.workers(("regular", "agg_0"))
        job_dir = write_agg_job(tmp_path / "job", "local-kill", [(worker, 0)], nodes=1)
        jobs = {"local-kill": job_dir}
        await refresh_until(lambda: monitor.refresh(jobs), lambda s: s.workers[0].health == "healthy", 20)
        os.kill(worker.proc.popen.pid, signal.SIGKILL)
        worker.proc.popen.wait(timeout=10)
        if seen_down_first:
            await refresh_until(lambda: monitor.refresh(jobs), lambda s: s.workers[0].health == "down", 20)
        log = job_dir / "logs" / "agg_0.log"
        at = _event(job_dir, "failed", f"worker agg_0 exited with code 137; log: {log}")
        (snap,) = await monitor.refresh(jobs)
        (w,) = snap.workers
        assert snap.is_final and w.health == "down" and w.detail == "killed (signal 9)", describe(snap)
        assert (w.health_history[-1].health, w.health_history[-1].detail) == ("down", "killed (signal 9)")
        assert w.health_history[-1].at == iso_utc(at)
        assert not any(c.detail == "the job has ended" for c in w.health_history), w.health_history
    finally:
        launcher.close()


async def test_a_benchmark_between_two_refreshes_is_in_the_last_figures(tmp_path: Path, monitor: Monitor) -> None:
    """The whole load ran after the last refresh (op9: a 1 s benchmark between 2 s refreshes); the job's final
    scrape holds it: the ended worker's figures are those requests', over a window that says so, not `0 tok/s`."""
    launcher = Launcher(tmp_path)
    try:
        (worker,) = launcher.workers(("regular", "agg_0"))
        job_dir = write_agg_job(tmp_path / "job", "local-bench", [(worker, 0)], nodes=1)
        _with_serving_families(job_dir)
        jobs = {"local-bench": job_dir}
        for _ in range(2):  # two idle samples: a window, with nothing in it (further apart than one re-read reading)
            (snap,) = await monitor.refresh(jobs)
            time.sleep(SAME_READING_S + 0.1)
        assert snap.workers[0].serving is not None and snap.workers[0].serving.output_tok_per_s == 0, describe(snap)
        send(worker.url, 6)  # 2 tokens each
        _final_scrape(job_dir, worker)
        worker.proc.stop()
        _event(job_dir, "completed", "benchmark finished")
        (snap,) = await monitor.refresh(jobs)
        s = snap.workers[0].serving
        assert snap.is_final and s is not None and s.window_s is not None, describe(snap)
        assert s.output_tok_per_s is not None and s.output_tok_per_s * s.window_s == pytest.approx(12), s
        assert s.e2e_mean_s is not None and cells.serving_span(s).startswith("over the last"), s
        assert snap.serving is not None and snap.serving.output_tok_per_s == pytest.approx(s.output_tok_per_s)
    finally:
        launcher.close()


async def test_a_job_first_seen_after_its_end_counts_its_final_counters_since_it_was_ready(
    tmp_path: Path, monitor: Monitor
) -> None:
    """Nothing watched it (a new TUI, a later `status`): its final counters count from zero, over the time since it
    was ready, and say so (`over the 20 s it served`)."""
    launcher = Launcher(tmp_path)
    try:
        (worker,) = launcher.workers(("regular", "agg_0"))
        job_dir = write_agg_job(tmp_path / "job", "local-late", [(worker, 0)], nodes=1, stages=("submitted",))
        _with_serving_families(job_dir)
        ready = _event(job_dir, "serving", "serving at " + worker.url, at=time.time() - 20)
        send(worker.url, 5)
        _final_scrape(job_dir, worker)
        scraped = (job_dir / "relay" / "agg_0.metrics").stat().st_mtime
        worker.proc.stop()
        _event(job_dir, "completed", "benchmark finished")
        (snap,) = await monitor.refresh({"local-late": job_dir})
        s = snap.workers[0].serving
        assert s is not None and s.since_ready and s.window_s is not None, s
        assert s.window_s == pytest.approx(scraped - ready, abs=0.1), s  # wall to monotonic: ms apart under load
        assert s.output_tok_per_s is not None and s.output_tok_per_s * s.window_s == pytest.approx(10), s
        assert cells.serving_span(s) == f"over the {s.window_s:.0f} s it served", cells.serving_span(s)
    finally:
        launcher.close()


@pytest.mark.parametrize("relayed", [0, 3], ids=["no-final-scrape", "older-scrape"])
async def test_req_ok_and_fail_come_from_one_sample(tmp_path: Path, monitor: Monitor, relayed: int) -> None:
    """A killed worker's final scrape is missing (or older than this monitor's last sample): REQ came from this
    monitor's history and OK/FAIL from the scrape, `1.5k` beside `-` (or beside fewer)."""
    launcher = Launcher(tmp_path)
    try:
        (worker,) = launcher.workers(("regular", "agg_0"))
        job_dir = write_agg_job(tmp_path / "job", "local-req", [(worker, 0)], nodes=1)
        jobs = {"local-req": job_dir}
        send(worker.url, relayed)
        if relayed:
            _final_scrape(job_dir, worker)  # the job's last periodic relay of it, before more requests came
        send(worker.url, 7 - relayed)
        await refresh_until(lambda: monitor.refresh(jobs), lambda s: s.workers[0].requests_total == 7, 20)
        os.kill(worker.proc.popen.pid, signal.SIGKILL)
        worker.proc.popen.wait(timeout=10)
        _event(job_dir, "failed", f"worker agg_0 exited with code 137; log: {job_dir / 'logs' / 'agg_0.log'}")
        (snap,) = await monitor.refresh(jobs)
        w = snap.workers[0]
        assert snap.is_final and (w.requests_total, w.requests_ok, w.requests_failed) == (7, 7, 0), describe(snap)
    finally:
        launcher.close()
