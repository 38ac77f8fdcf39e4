"""srt-tui says when it cancelled a job (operator report): a cancel from the Monitor or `srt-tui cancel` read
"stopped by a signal (scancel, srt-tui cancel or time limit)". Both now leave `cancel.json` in the job's own
directory before the job is signalled, and the job's end reads `cancelled with srt-tui cancel at 12:03 UTC`;
a job stopped by anything else keeps the guess."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import cast

import pytest

from srt_tui.core.jobdir.contract import JobMeta, parse_cancel, write_job_meta
from srt_tui.monitor.files.jobfiles import Event
from srt_tui.monitor.statuses.stage import derive_stage
from srt_tui.slurm.cancel import cancel_job
from srt_tui.slurm.client import JobState, SlurmClient
from srt_tui.slurm.procs import start_time

GUESS = "stopped by a signal (scancel, srt-tui cancel or time limit)"


class QueuedJob:
    """A Slurm that knows one queued job: what `cancel_job` asks of a client (its state, then scancel)."""

    def __init__(self, job_dir: Path, fail: bool = False) -> None:
        self.job_dir = job_dir
        self.fail = fail
        #: whether cancel.json was already there when scancel ran
        self.recorded_first: list[bool] = []

    def query(self, job_ids: Sequence[str]) -> dict[str, JobState]:
        return {j: JobState(j, "mocker-1p1d", "PENDING") for j in job_ids}

    def cancel(self, job_id: str) -> None:
        self.recorded_first.append((self.job_dir / "cancel.json").exists())
        if self.fail:
            raise RuntimeError("scancel: Unable to contact slurm controller")


def _job_dir(tmp_path: Path, job_id: str) -> Path:
    job = tmp_path / job_id
    job.mkdir(mode=0o700)
    write_job_meta(job, JobMeta(job_id, name="mocker-1p1d", submitted_at="2026-03-01T11:59:00Z"))
    return job


def test_srt_tui_cancel_records_itself_before_scancel(tmp_path: Path) -> None:
    job = _job_dir(tmp_path, "4242")
    slurm = QueuedJob(job)
    assert cancel_job("4242", job, client=cast(SlurmClient, slurm)).cancelled
    assert slurm.recorded_first == [True]
    record = job / "cancel.json"
    assert stat.S_IMODE(os.lstat(record).st_mode) == 0o600 and os.lstat(record).st_uid == os.geteuid()
    doc = parse_cancel(record, record.read_bytes())
    assert doc.by == "srt-tui cancel" and doc.at.endswith("Z")
    # Slurm's CANCELLED of a job that never started (no event of the job's own): what cancelled it, and when
    stage, _, detail = derive_stage([Event("submitted", "", "")], JobState("4242", "mocker-1p1d", "CANCELLED"), doc)
    assert (stage, detail) == ("cancelled", f"cancelled with srt-tui cancel at {doc.at[11:16]} UTC")


def test_a_failed_scancel_leaves_no_record(tmp_path: Path) -> None:
    job = _job_dir(tmp_path, "4243")
    with pytest.raises(RuntimeError):
        cancel_job("4243", job, client=cast(SlurmClient, QueuedJob(job, fail=True)))
    assert not (job / "cancel.json").exists()  # the job runs on: a later end is not srt-tui's cancel


def test_only_the_jobs_own_directory_gets_the_record(tmp_path: Path) -> None:
    """A directory whose job.json names another job (the working directory, for a job launched elsewhere) is
    left alone; the cancel goes on."""
    other = _job_dir(tmp_path, "4000")
    slurm = QueuedJob(other)
    assert cancel_job("4244", other, client=cast(SlurmClient, slurm)).cancelled
    assert slurm.recorded_first == [False] and not (other / "cancel.json").exists()


def test_the_job_ends_in_its_own_words_only_when_srt_tui_did_not_cancel_it(tmp_path: Path) -> None:
    events = [Event("starting", "t0", ""), Event("cancelled", "t1", GUESS)]
    assert derive_stage(events, None)[2] == GUESS  # scancel by hand, the time limit: the job's guess
    record = tmp_path / "cancel.json"
    record.write_text(json.dumps({"version": 1, "by": "the srt-tui Monitor", "at": "2026-03-01T12:03:09Z"}))
    doc = parse_cancel(record, record.read_bytes())
    assert derive_stage(events, None, doc) == ("cancelled", "t1", "cancelled with the srt-tui Monitor at 12:03 UTC")
    preempted = JobState("1", "x", "PREEMPTED")  # Slurm's own doing, whatever was asked
    assert derive_stage([Event("submitted", "", "")], preempted, doc)[2] == "Slurm: PREEMPTED"
    timeout = JobState("1", "x", "TIMEOUT")
    assert derive_stage(events, timeout, doc)[:1] == ("timed out",)


def test_the_monitors_cancel_is_recorded_as_the_monitors(tmp_path: Path) -> None:
    """`c` in the Monitor goes through `default_cancel`: a local job's process group is signalled after the record."""
    from srt_tui.tui.monitor.feed import default_cancel

    job = _job_dir(tmp_path, "local-9")
    script = subprocess.Popen(["sleep", "30"], start_new_session=True)  # the job's launch script, its own group
    try:
        (job / "local.json").write_text(json.dumps({"pid": script.pid, "start": start_time(script.pid), "started": 0}))
        assert default_cancel("local-9", job) == "cancelled local-9"
        assert script.wait(timeout=30) != 0
    finally:
        script.kill()
        script.wait()
    doc = parse_cancel(job / "cancel.json", (job / "cancel.json").read_bytes())
    assert doc.by == "the srt-tui Monitor"
