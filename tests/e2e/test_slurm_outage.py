"""A controller outage on the real local Slurm: slurmctld is stopped for a few seconds (jobs keep
running under slurmd) and started again exactly as start.sh starts it (scripts/local-slurm/ctld.sh).

`status` says the real cause once; a `wait` started during the outage sees Slurm again afterwards
and reports the outcome only Slurm knows (the batch script SIGKILLed: no event of its own)."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.e2e.jobtools import SRT, apply, srt, wait_ready

pytestmark = [pytest.mark.slurm, pytest.mark.routers]
MOCKER = REPO / "recipes" / "mocker"
CTLD = REPO / "scripts" / "local-slurm" / "ctld.sh"


def _ctld(action: str) -> None:
    subprocess.run(["bash", str(CTLD), action], check=True, capture_output=True, timeout=90)


@pytest.fixture
def outage(cluster: Any) -> Iterator[Any]:
    """Stops slurmctld on demand; whatever happens, it runs again when the test ends (shared cluster)."""
    yield _ctld
    _ctld("start")


def test_status_says_why_once_and_a_wait_started_in_an_outage_sees_the_real_end(
    cluster: Any, outage: Any, tmp_path: Path
) -> None:
    serving, serving_dir = apply(str(MOCKER / "mocker-agg2.yaml"), "-p", "local", "--launcher", "slurm")
    done, _ = apply(str(MOCKER / "mocker-agg-direct.yaml"), "-p", "local", "--launcher", "slurm")
    waiter: subprocess.Popen[str] | None = None
    follower: subprocess.Popen[str] | None = None
    try:
        wait_ready(serving)
        srt("wait", done, "--for", "done", "--timeout", "90", "-q", timeout=120)
        started = time.monotonic()
        outage("stop")
        try:
            text = srt("status", serving, done, check=False)
            snaps = json.loads(srt("status", serving, done, "--json", check=False).stdout)
            waiter = subprocess.Popen(
                [*SRT, "wait", serving, "--for", "done", "--timeout", "120", "--interval", "0.5"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            log = serving_dir / "logs" / f"sweep_{serving}.log"  # srtctl's wait, as the launcher calls it
            follower = subprocess.Popen(
                [*SRT, "wait", serving, "--log-file", str(log), "--interval", "0.5"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            time.sleep(3)  # the waits poll a controller that is down
        finally:
            outage("start")
        assert time.monotonic() - started < 30  # the cluster is shared: the outage stays short
        assert text.returncode == 3, text.stderr  # the table is printed, and the exit code says Slurm did not answer
        said = [line for line in text.stderr.splitlines() if line.startswith("slurm:")]
        assert len(said) == 1 and "is DOWN" in said[0], text.stderr  # scontrol ping's own words, once
        assert "no Slurm transport available" not in text.stdout + text.stderr
        assert "source slurm" not in text.stdout  # not repeated per job
        for snap in snaps:
            slurm_src = next(s for s in snap["sources"] if s["name"] == "slurm")
            assert not slurm_src["ok"] and "is DOWN" in slurm_src["error"]

        # the end only Slurm sees: the batch script and its steps SIGKILLed write no event
        subprocess.run(["scancel", "--full", "--signal=KILL", serving], check=True, timeout=30)
        out, err = waiter.communicate(timeout=150)
        assert waiter.returncode == 1, err  # not 124 (timed out, blind) and not 0
        assert follower is not None
        streamed, said_follow = follower.communicate(timeout=90)
        assert follower.returncode == 1, said_follow
        assert streamed == log.read_text() and "stage: serving" in streamed  # the whole log, across the outage
        assert f"{serving} ended (failed)" in err or f"{serving} ended (cancelled)" in err, err
        final = json.loads(srt("status", serving, "--json").stdout)[0]
        assert final["final"] and final["stage"] in ("failed", "cancelled"), final  # what the wait said
        assert (serving_dir / "job.json").is_file()
    finally:
        for proc in (waiter, follower):
            if proc is not None and proc.poll() is None:
                proc.kill()
        for job_id in (serving, done):
            srt("cancel", job_id, check=False)
