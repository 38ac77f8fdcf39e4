"""Failure diagnosis and an ended job's last figures on the real local Slurm (issue 21, operator pass 9): mocker jobs
behind the real sglang-router, watched by the real Monitor as the TUI watches them, and `srt-tui status`.

- a worker killed by SIGKILL (`kill -9` on its engine, in its srun step): the reason line says its log explains
  nothing and what killed it (it quoted `ready: agg_1 serving …`), its health history says `killed (signal 9)`
  (it said `the job has ended`), its REQ/OK/FAIL agree;
- a benchmark that runs between two refreshes: the ended job's last figures are its requests' (they read 0 tok/s
  and `-`), from the job's final scrape.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from srt_tui.monitor import cells
from srt_tui.monitor.model import READY_STAGES, JobSnapshot
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.slurm.select import get_client
from tests.conftest import REPO
from tests.e2e.jobtools import apply, job_story, send_requests, srt, status, wait_ready

pytestmark = [pytest.mark.slurm, pytest.mark.routers]
MOCKER = REPO / "recipes" / "mocker"


def _engine_pid(job_id: str, name: str) -> int:
    """The pid of worker ``name``'s mock engine: the process Slurm started in its step (not srun, not the shell)."""
    for proc in Path("/proc").iterdir():
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            env = (proc / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        mine = f"SLURM_JOB_ID={job_id}".encode() in env
        if mine and argv[:3] == [b"python3", b"-m", b"srt_tui.mock"] and name.encode() in argv:
            return int(proc.name)
    raise AssertionError(f"no engine process of {name} in job {job_id}")


async def _refresh_until(monitor: Monitor, job_id: str, job_dir: Path, done: Any, limit_s: float) -> JobSnapshot:
    """Refresh every second (the TUI's pace or faster) until ``done(snapshot)``."""
    deadline = time.monotonic() + limit_s
    while True:
        (snap,) = await monitor.refresh({job_id: job_dir})
        if done(snap):
            return snap
        if time.monotonic() > deadline:
            raise AssertionError(f"job {job_id}: not within {limit_s} s: {snap.stage}\n{job_story(job_dir)}")
        await asyncio.sleep(1.0)


def test_a_worker_killed_by_sigkill_is_diagnosed_by_what_the_job_recorded(cluster: Any, jobs: list[str]) -> None:
    job_id, job_dir = apply(str(MOCKER / "mocker-agg2.yaml"), "-p", "local", "--launcher", "slurm")
    jobs.append(job_id)
    wait_ready(job_id)
    router = json.loads((job_dir / "endpoints.json").read_text())["router"]["url"]
    send_requests(router, 20)  # round robin: 10 each

    async def watch() -> JobSnapshot:
        monitor = Monitor(get_client())
        try:
            before = await _refresh_until(
                monitor, job_id, job_dir, lambda s: all(w.requests_total == 10 for w in s.workers), 60
            )
            assert all(w.health == "healthy" for w in before.workers), before.workers
            os.kill(_engine_pid(job_id, "agg_1"), signal.SIGKILL)
            return await _refresh_until(monitor, job_id, job_dir, lambda s: s.is_final, 90)
        finally:
            await monitor.aclose()

    snap = asyncio.run(watch())
    assert snap.stage == "failed" and snap.stage_detail.startswith("worker agg_1 was killed (signal 9); log: ")
    killed = next(w for w in snap.workers if w.name == "agg_1")
    last = killed.health_history[-1]
    assert (last.health, last.detail) == ("down", "killed (signal 9)"), killed.health_history
    assert all(c.detail != "the job has ended" for c in killed.health_history), killed.health_history
    assert (killed.requests_total, killed.requests_ok, killed.requests_failed) == (10, 10, 0), killed
    # `srt-tui status`: the line under the failure explains, or says the log does not
    out = srt("status", job_id).stdout.splitlines()
    failed = next(i for i, line in enumerate(out) if line.startswith(f"{job_id}: failed: worker agg_1 was killed"))
    assert out[failed + 1] == (
        f"{job_id}:   no error in its log; it was killed by signal 9 (SIGKILL: out of memory? scancel? kill -9?)"
    ), out
    assert not any("ready:" in line for line in out), out
    # a one-shot `status` has no history of its own: the cause is its one entry, stamped when the job recorded it
    (shown,) = [w for w in status(job_id)["workers"] if w["name"] == "agg_1"]
    recorded = json.loads((job_dir / "status.jsonl").read_text().splitlines()[-1])
    assert [(c["health"], c["detail"]) for c in shown["health_history"]] == [("down", "killed (signal 9)")], shown
    assert shown["health_history"][0]["at"] == recorded["time"][:19] + "Z", (shown, recorded)


def _generated(job_dir: Path, worker: str) -> float:
    """The output tokens in the job's final scrape of ``worker`` (its relay file)."""
    raw = (job_dir / "relay" / f"{worker}.metrics").read_text()
    body = raw.split("\n\n", 1)[1]
    families = text_string_to_metric_families(body)
    return sum(s.value for f in families for s in f.samples if s.name == "sglang:generation_tokens_total")


def test_a_benchmark_between_refreshes_is_in_the_ended_jobs_last_figures(cluster: Any, jobs: list[str]) -> None:
    """The Monitor samples the workers before the benchmark, then not until the job has ended (op9: sa-bench's 1 s
    between two 2 s refreshes): its last figures are the benchmark's, from the job's final scrape, over a window
    that says so."""
    job_id, job_dir = apply(str(MOCKER / "mocker-1p1d.yaml"), "-p", "local", "--launcher", "slurm")
    jobs.append(job_id)

    async def watch() -> tuple[JobSnapshot, JobSnapshot]:
        monitor = Monitor(get_client())
        try:
            # two samples of idle workers: before the router is ready, nothing is sent to them
            seen: list[JobSnapshot] = []
            while len(seen) < 2:
                snap = await _refresh_until(
                    monitor, job_id, job_dir, lambda s: any(w.serving is not None for w in s.workers), 90
                )
                seen.append(snap)
                await asyncio.sleep(0.3)
            assert seen[-1].stage not in READY_STAGES, f"sampled after the router was ready\n{job_story(job_dir)}"
            proc = await asyncio.to_thread(srt, "wait", job_id, "--for", "done", "--timeout", "120", "-q", check=False)
            assert proc.returncode == 0, f"{proc.stderr}\n{job_story(job_dir)}"
            (ended,) = await monitor.refresh({job_id: job_dir})
            return seen[-1], ended
        finally:
            await monitor.aclose()

    before, ended = asyncio.run(watch())
    assert all(w.requests_total in (0, None) for w in before.workers), before.workers
    assert ended.stage == "completed", ended.stage_detail
    decode = next(w for w in ended.workers if w.name == "decode_0")
    s = decode.serving
    assert s is not None and s.window_s is not None and s.output_tok_per_s is not None, decode
    # the window runs from the first idle sample to the final scrape: every token the decode generated is in it
    assert s.output_tok_per_s * s.window_s == pytest.approx(_generated(job_dir, "decode_0"), rel=1e-6), s
    assert _generated(job_dir, "decode_0") > 0 and s.e2e_mean_s is not None and s.itl_p50_s is not None, s
    assert ended.serving is not None and ended.serving.output_tok_per_s == pytest.approx(s.output_tok_per_s)
    assert cells.serving_span(s).startswith("over the last"), cells.serving_span(s)
