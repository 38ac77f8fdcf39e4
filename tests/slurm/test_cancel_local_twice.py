"""`cancel` on a local job that already ended says so instead of "cancelled" (issue 11, item 6)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

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
