"""Commands that take several JOBs act on those they know and say each one they do not (issue 21, new-operator pass
op12): `srt-tui status 26 22` printed nothing of job 26 when 22 was unknown, exit 2 with 22's error only; `cancel A
nope B` stopped at `nope`, B never cancelled. As squeue and kubectl do: the known JOBs printed (or cancelled), an
`srt-tui: error:` line on stderr per unknown one, and exit 2 (bad input, as one unknown JOB alone). Real processes,
local job directories (no Slurm asked)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.cli

UNKNOWN = "srt-tui: error: JOB: no job directory found for `nope22`"


def _job(tmp_path: Path, job_id: str) -> Path:
    job_dir = tmp_path / job_id
    job_dir.mkdir()
    (job_dir / "job.json").write_text(json.dumps({"version": 1, "job_id": job_id, "name": "mocker-1p1d"}))
    (job_dir / "status.jsonl").write_text(
        '{"stage": "submitted", "time": "2026-03-01T11:00:00.000Z", "detail": "local job"}\n'
    )
    return job_dir


def _srt_tui(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "SRT_TUI_STATE_DIR": str(tmp_path / "state")}
    cmd = [sys.executable, "-m", "srt_tui", *args]
    return subprocess.run(cmd, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("json_out", [False, True], ids=["table", "json"])
def test_status_prints_the_known_jobs_and_an_error_per_unknown_one(tmp_path: Path, json_out: bool) -> None:
    job = _job(tmp_path, "local-26")
    proc = _srt_tui(tmp_path, "status", str(job), "nope22", *(["--json"] if json_out else []))
    assert proc.returncode == 2, proc.stderr
    if json_out:
        assert [j["job_id"] for j in json.loads(proc.stdout)] == ["local-26"]
    else:
        assert proc.stdout.splitlines()[1].split()[:2] == ["local-26", "mocker-1p1d"]
    [error] = [line for line in proc.stderr.splitlines() if line.startswith("srt-tui: error:")]
    assert error.startswith(UNKNOWN), proc.stderr


def test_status_of_unknown_jobs_only_prints_their_errors(tmp_path: Path) -> None:
    proc = _srt_tui(tmp_path, "status", "nope22", "nope33")
    assert proc.returncode == 2 and proc.stdout == ""
    assert [line.split(" (fix:")[0] for line in proc.stderr.splitlines()] == [UNKNOWN, UNKNOWN.replace("22", "33")]


def test_events_prints_the_known_jobs_and_an_error_per_unknown_one(tmp_path: Path) -> None:
    job = _job(tmp_path, "local-26")
    proc = _srt_tui(tmp_path, "events", "nope22", str(job))
    assert proc.returncode == 2
    assert proc.stdout.startswith("local-26 mocker-1p1d") and "submitted" in proc.stdout
    assert proc.stderr.startswith(UNKNOWN), proc.stderr


def test_results_reads_the_known_jobs_and_says_each_unknown_one(tmp_path: Path) -> None:
    job = _job(tmp_path, "local-26")
    proc = _srt_tui(tmp_path, "results", str(job), "nope22")
    assert proc.returncode == 2  # an unknown JOB (bad input) over a job without results yet (1)
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("srt-tui: error: local-26: no benchmark results yet"), lines
    assert lines[1].startswith("srt-tui: error: JOB: `nope22` is no job directory"), lines


def test_cancel_goes_on_past_an_unknown_job(tmp_path: Path) -> None:
    """`cancel nope22 JOB`: the JOB after the unknown one is still acted on (here a local job with nothing running:
    said so), then the unknown one's error; exit 2."""
    job = _job(tmp_path, "local-26")
    proc = _srt_tui(tmp_path, "cancel", "nope22", str(job))
    assert proc.returncode == 2
    assert proc.stdout.startswith("local-26: nothing running"), proc.stdout  # as an ended Slurm job's (s35-cli2)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(UNKNOWN), lines
