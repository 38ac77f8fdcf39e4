"""`cancel` on a local job that already ended says so instead of "cancelled" (issue 11, item 6)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from srt_tui.core.jobdir.events import append_event
from srt_tui.slurm.cancel import cancel_job
from srt_tui.slurm.procs import start_time


def test_cancelling_an_ended_local_job_says_it_already_ended(tmp_path: Path) -> None:
    proc = subprocess.Popen(["sleep", "5"])  # a real process that has exited: the job's script is gone
    start = start_time(proc.pid)
    proc.kill()
    proc.wait()
    (tmp_path / "local.json").write_text(json.dumps({"pid": proc.pid, "start": start, "started": 0}) + "\n")
    append_event(tmp_path, "cancelled", "cancelled by the operator")
    outcome = cancel_job("local-3", tmp_path)
    assert not outcome.cancelled
    assert outcome.describe() == "local-3 already ended (CANCELLED): nothing to cancel"


def test_a_local_job_without_a_launch_record_is_not_reported_cancelled(tmp_path: Path) -> None:
    outcome = cancel_job("local-4", tmp_path)
    assert not outcome.cancelled and "nothing to cancel" in outcome.describe()


def test_a_local_job_with_nothing_running_is_not_said_unknown_to_slurm(tmp_path: Path) -> None:
    """Issue 21: `cancel local-3` of a local job with no process recorded said "Slurm does not know this job":
    a local job is not Slurm's. It says nothing runs, with what its last event says of its end."""
    append_event(tmp_path, "failed", "worker exited")
    outcome = cancel_job("local-3", tmp_path)
    said = outcome.describe()
    assert not outcome.cancelled and outcome.ended, outcome
    assert said.startswith("local-3: nothing running (it ended; last event: failed at "), said
    assert "Slurm" not in said and said.endswith("UTC): nothing to cancel"), said
    assert cancel_job("local-4", tmp_path / "none").describe() == (
        "local-4: nothing running (it ended, or never started): nothing to cancel"
    )


def test_cancel_exits_0_for_a_job_that_already_ended_as_scancel_and_for_a_local_one_with_nothing_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Operator pass (issue 21, 2026-12-07): `cancel` on an ended job said "nothing to cancel" and exited 1. As
    scancel (srtctl has no cancel of its own), a job that had ended counts as done: said on stdout, exit 0. A local
    job with a directory and no process recorded has ended too (issue 21): 0, as an ended Slurm job, not 1 with
    "Slurm does not know this job". `cancel --help` says so."""
    from srt_tui.cli.main import main
    from srt_tui.core.jobdir.contract import JobMeta, write_job_meta

    job = tmp_path / "local-3"
    job.mkdir()
    write_job_meta(job, JobMeta("local-3", name="mocker-agg", launcher="local"))
    proc = subprocess.Popen(["sleep", "5"])
    start = start_time(proc.pid)
    proc.kill()
    proc.wait()
    (job / "local.json").write_text(json.dumps({"pid": proc.pid, "start": start, "started": 0}) + "\n")
    append_event(job, "completed", "the benchmark ended")
    assert main(["cancel", str(job)]) == 0
    said = capsys.readouterr()
    assert "local-3 already ended (COMPLETED): nothing to cancel" in said.out and not said.err, said
    gone = tmp_path / "local-4"  # its directory, but no launch record: nothing runs
    gone.mkdir()
    write_job_meta(gone, JobMeta("local-4", name="mocker-agg", launcher="local"))
    assert main(["cancel", str(gone)]) == 0
    said = capsys.readouterr()
    assert "local-4: nothing running (it ended, or never started)" in said.out and not said.err, said
    with pytest.raises(SystemExit):
        main(["cancel", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "had already ended" in text and "0 when every JOB named was cancelled or had already ended" in text, text
