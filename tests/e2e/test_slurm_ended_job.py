"""A Slurm job after its end (operator pass 9): `shell` refuses before running srun, whose only words were Slurm's
`job N has expired`, and `cancel` asks nothing, so off a terminal it never waits on stdin."""

from __future__ import annotations

import subprocess
import time
from typing import Any

import pytest

from tests.conftest import REPO
from tests.e2e.jobtools import SRT, apply, srt, status, wait_ready

pytestmark = [pytest.mark.slurm, pytest.mark.routers]


def test_shell_opens_on_a_running_job_and_refuses_once_it_has_ended(cluster: Any, jobs: list[str]) -> None:
    job_id, job_dir = apply(str(REPO / "recipes/mocker/mocker-1p2d.yaml"), "-p", "local", "--launcher", "slurm")
    jobs.append(job_id)
    wait_ready(job_id)
    running = srt("shell", job_id, "decode_1", "--print")
    assert running.stdout.startswith(f"srun --jobid {job_id} --overlap --pty "), running.stdout
    # its stdin open and silent, as a script's or a CI runner's: `cancel` reads none of it
    cancel = subprocess.Popen([*SRT, "cancel", job_id], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert cancel.wait(timeout=60) == 0  # a guard against a hang, not a timing
        assert cancel.stdout is not None and cancel.stdout.read() == f"cancelled {job_id}\n"
    finally:
        cancel.kill()
        assert cancel.stdin is not None
        cancel.stdin.close()
    snap = status(job_id)
    deadline = time.monotonic() + 30
    while (snap["stage"] != "cancelled" or snap["slurm_state"] == "COMPLETING") and time.monotonic() < deadline:
        time.sleep(0.5)
        snap = status(job_id)
    assert snap["slurm_state"] == "CANCELLED", snap
    ended = subprocess.run([*SRT, "shell", job_id], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=60)  # fmt: skip
    assert ended.returncode == 1 and not ended.stdout, ended
    said = ended.stderr.strip()
    assert said.startswith(f"srt-tui: error: job {job_id} has ended (cancelled at "), said
    assert f"it holds no node to open a shell on (fix: read its log instead: {job_dir}/logs/prefill_0.log" in said
    assert len(said.splitlines()) == 1 and "srun" not in said, said  # srun never ran: not its `has expired`
