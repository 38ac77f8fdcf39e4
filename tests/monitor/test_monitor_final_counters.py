"""A finished job keeps its answer in the Monitor: the last counters it saw while the worker answered,
then the benchmark's own count once its results are in the job directory (real mock worker, no Slurm)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from srt_tui.monitor import cells
from srt_tui.monitor.snapshot.collect import Monitor
from tests.core.test_core_results import srtctl_level
from tests.mock.mockprocs import Launcher
from tests.monitor.jobdirs import describe, refresh_until, send, write_agg_job


async def test_an_ended_job_keeps_its_requests(tmp_path: Path, monitor: Monitor) -> None:
    launcher = Launcher(tmp_path)
    try:
        (worker,) = launcher.workers(("regular", "agg_0"))
        job_dir = write_agg_job(tmp_path / "job", "local-final", [(worker, 0)], nodes=1)
        jobs = {"local-final": job_dir}
        send(worker.url, 7)
        snap, _ = await refresh_until(lambda: monitor.refresh(jobs), lambda s: s.requests == 7, 20)
        worker.proc.stop()
        with open(job_dir / "status.jsonl", "a") as fh:
            fh.write(json.dumps({"stage": "completed", "time": "2026-03-01T11:05:00Z", "detail": ""}) + "\n")
        (snap,) = await monitor.refresh(jobs)
        assert snap.is_final and snap.requests == 7 and snap.workers[0].requests_total == 7, describe(snap)
        # the benchmark's results, once written, are the job's final answer (its measured requests only)
        run = job_dir / "logs" / "sa-bench_isl_64_osl_8"
        run.mkdir(parents=True)
        level = srtctl_level(2, 9, [""] * 9 + ["HTTP 503"], 5.0)
        (run / "results_concurrency_2_gpus_8.json").write_text(json.dumps(level))
        (snap,) = await monitor.refresh(jobs)
        assert (snap.requests, snap.errors) == (10, 1), describe(snap)
    finally:
        launcher.close()


async def test_a_fresh_monitor_reads_an_ended_jobs_final_scrape(tmp_path: Path, monitor: Monitor) -> None:
    """No history in this monitor (a new `srt-tui status` long after the end): the counters come from what
    the job relayed last, its final scrape of the worker's /metrics (here the real worker's answer)."""
    launcher = Launcher(tmp_path)
    try:
        (worker,) = launcher.workers(("regular", "agg_0"))
        job_dir = write_agg_job(tmp_path / "job", "local-scraped", [(worker, 0)], nodes=1)
        send(worker.url, 5)
        metrics = httpx.get(worker.url + "/metrics", timeout=10).text
        (job_dir / "relay").mkdir()
        (job_dir / "relay" / "agg_0.metrics").write_text("HTTP/1.0 200 OK\nContent-Type: text/plain\n\n" + metrics)
        worker.proc.stop()
        with open(job_dir / "status.jsonl", "a") as fh:
            fh.write(json.dumps({"stage": "cancelled", "time": "2026-03-01T11:05:00Z", "detail": ""}) + "\n")
        (snap,) = await monitor.refresh({"local-scraped": job_dir})
        assert snap.is_final and snap.requests == 5 and snap.workers[0].requests_total == 5, describe(snap)
        assert snap.workers[0].source == "relay" and snap.workers[0].health == "down"
        assert not snap.relayed and cells.stage_cell(snap) == "cancelled" and cells.healthy_cell(snap) == "-"
    finally:
        launcher.close()
