"""What an ended job's workers say (issue 21, operator pass 9), through the real Monitor against a real mock worker:
the worker whose end failed the job is down for the cause the job recorded, in its health history too."""

from __future__ import annotations

import json
import os
import signal
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from srt_tui.monitor.model import iso_utc
from srt_tui.monitor.snapshot.collect import Monitor
from tests.mock.mockprocs import Launcher
from tests.monitor.jobdirs import describe, refresh_until, write_agg_job


def _event(job_dir: Path, stage: str, detail: str = "", at: float | None = None) -> float:
    """Append an event as the launch script writes it (millisecond ISO time); returns its time."""
    at = time.time() if at is None else at
    stamp = datetime.fromtimestamp(at, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    with open(job_dir / "status.jsonl", "a") as fh:
        fh.write(json.dumps({"stage": stage, "time": stamp, "detail": detail}) + "\n")
    return at


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
