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


def test_cancel_exits_0_for_a_job_that_already_ended_as_scancel_and_1_for_an_unknown_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Operator pass (issue 21, 2026-12-07): `cancel` on an ended job said "nothing to cancel" and exited 1. As
    scancel (srtctl has no cancel of its own), a job that had ended counts as done: said on stdout, exit 0; a job
    nothing knows is still 1 on stderr (scancel is silent there). `cancel --help` says so."""
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
    unknown = tmp_path / "local-4"  # its directory, but no launch record: no job to cancel
    unknown.mkdir()
    write_job_meta(unknown, JobMeta("local-4", name="mocker-agg", launcher="local"))
    assert main(["cancel", str(unknown)]) == 1
    said = capsys.readouterr()
    assert "nothing" in said.err and not said.out, said
    with pytest.raises(SystemExit):
        main(["cancel", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "had already ended" in text and "0 when every JOB named was cancelled or had already ended" in text, text
