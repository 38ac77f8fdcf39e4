"""`srt-tui status`'s REQ and ERR count one thing in every row (s35, issue 21 leftovers): the requests the deployment
served and failed by its own counters (the router's, else its serving workers'), live or last seen. An ended job's
REQ read its benchmark's measured count (30) while a running job's read the router's total (43, warm-up and smoke
requests too): the benchmark's own figures are a line of their own, as the job view's summary says them."""

from __future__ import annotations

import contextlib
import io
import json
import re
from datetime import datetime, timezone
from pathlib import Path

from srt_tui.cli.jobs import print_table
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.tui.monitor import jobs_model
from srt_tui.tui.monitor.job_view import requests_words
from tests.core.test_core_results import srtctl_level
from tests.mock.mockprocs import Launcher
from tests.monitor.jobdirs import describe, refresh_until, send, write_agg_job


def _row(table: str, job_id: str) -> dict[str, str]:
    """One job's cells under each header of `status`'s table (a pipe's: every column whole)."""
    header, *rows = table.splitlines()
    names = re.split(r"\s{2,}", header.strip())
    (row,) = [r for r in rows if r.startswith(job_id + " ")]
    return dict(zip(names, re.split(r"\s{2,}", row.strip())))


def _status(snaps: list[object]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print_table(snaps, None, width=None)
    return out.getvalue()


async def test_req_and_err_count_what_the_deployment_served_also_after_a_benchmark(
    tmp_path: Path, monitor: Monitor
) -> None:
    launcher = Launcher(tmp_path)
    try:
        (worker,) = launcher.workers(("regular", "agg_0"))
        job_dir = write_agg_job(tmp_path / "job", "local-counts", [(worker, 0)], nodes=1)
        jobs = {"local-counts": job_dir}
        send(worker.url, 12)  # a warm-up and the benchmark's requests, as the worker counts them
        snap, _ = await refresh_until(lambda: monitor.refresh(jobs), lambda s: s.requests == 12, 20)
        running = _row(_status([snap]), "local-counts")
        assert (running["REQ"], running["ERR"]) == ("12", "0"), running
        worker.proc.stop()
        with open(job_dir / "status.jsonl", "a") as fh:
            fh.write(json.dumps({"stage": "completed", "time": "2026-03-01T11:05:00Z", "detail": ""}) + "\n")
        run = job_dir / "logs" / "sa-bench_isl_64_osl_8"
        run.mkdir(parents=True)
        level = srtctl_level(2, 9, [""] * 9 + ["HTTP 503"], 5.0)  # it measured 10: 9 completed, 1 failed
        (run / "results_concurrency_2_gpus_8.json").write_text(json.dumps(level))
        (snap,) = await monitor.refresh(jobs)
        assert snap.is_final and snap.requests_from == "benchmark", describe(snap)
        table = _status([snap])
        ended = _row(table, "local-counts")
        # the same counters as while it ran (the last seen), not the benchmark's 10 and 1
        assert (ended["REQ"], ended["ERR"]) == ("12", "0"), table
        assert "local-counts: benchmark 9/10 completed, 1 failed (srt-tui results local-counts)" in table, table
        # the Monitor's jobs list counts the same in its ERR; its job view names the benchmark's, as that line does
        assert jobs_model.cell(snap, "errors", datetime.now(timezone.utc), False) == "0"
        assert requests_words(snap) == "benchmark 9/10 completed, 1 failed"
    finally:
        launcher.close()
