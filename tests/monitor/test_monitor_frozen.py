"""Ended jobs cost nothing (issue 22): a final job's snapshot is reused, its files not read again, until one of
them changes; a running job is read every refresh (real job directory, real mock worker, no Slurm)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from srt_tui.monitor.snapshot.collect import Monitor
from tests.mock.mockprocs import Launcher
from tests.monitor.jobdirs import write_agg_job


def _event(job_dir: Path, stage: str) -> None:
    with open(job_dir / "status.jsonl", "a") as fh:
        fh.write(json.dumps({"stage": stage, "time": "2026-03-01T11:05:00Z", "detail": ""}) + "\n")


async def test_an_ended_job_is_not_read_again_until_its_files_change(
    tmp_path: Path, monitor: Monitor, monkeypatch: pytest.MonkeyPatch
) -> None:
    launcher = Launcher(tmp_path)
    try:
        (worker,) = launcher.workers(("regular", "agg_0"))
        ended = write_agg_job(tmp_path / "ended", "local-ended", [(worker, 0)], nodes=1)
        running = write_agg_job(tmp_path / "running", "local-running", [(worker, 0)], nodes=1)
        _event(ended, "completed")
        reads: list[str] = []
        real = monitor._read_job

        def counted(j: str, d: Path) -> Any:
            reads.append(j)
            return real(j, d)

        monkeypatch.setattr(monitor, "_read_job", counted)
        jobs = {"local-ended": ended, "local-running": running}
        monitor.frozen.every = 1  # stamp every refresh here (the Monitor's default spreads them over 5)
        first = await monitor.refresh(jobs)
        assert [s.stage for s in first][0] == "completed" and first[1].stage not in ("completed",)
        reads.clear()
        again = await monitor.refresh(jobs)
        assert again[0] is first[0]  # the same snapshot, not rebuilt
        assert reads == ["local-running"]  # and its files not read
        (ended / "logs" / "late.log").write_text("a file arrives after the end\n")
        reads.clear()
        changed = await monitor.refresh(jobs)
        assert reads == ["local-ended", "local-running"] and changed[0] is not first[0]
        _event(ended, "failed")  # status.jsonl changes in place: read again, and it says so
        (last, _) = await monitor.refresh(jobs)
        assert last.stage == "failed"
        monitor.frozen.prune({"local-running"})
        assert len(monitor.frozen) == 0
    finally:
        launcher.close()


async def test_a_local_job_is_not_frozen_while_its_launch_script_still_runs(tmp_path: Path, monitor: Monitor) -> None:
    """The launch script writes its final stage, then stops its steps: a refresh in that moment sees the final
    stage while the script lives (RUNNING). That snapshot must not be kept, or the Monitor says RUNNING for a
    job that ended (the demo's first job did, with its elapsed time stopped)."""
    import subprocess

    from srt_tui.slurm.procs import ProcRecord

    job = write_agg_job(tmp_path / "job", "local-7", [], nodes=1)
    script = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        rec = ProcRecord.of(script.pid)
        assert rec is not None
        (job / "local.json").write_text(json.dumps({"pid": rec.pid, "start": rec.start, "started": 0}) + "\n")
        _event(job, "completed")
        (during,) = await monitor.refresh({"local-7": job})
        assert (during.stage, during.slurm_state) == ("completed", "RUNNING")
        script.terminate()
        script.wait()
        (after,) = await monitor.refresh({"local-7": job})
        assert after.slurm_state == "COMPLETED"
    finally:
        script.kill()
        script.wait()
