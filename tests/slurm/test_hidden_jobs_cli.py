"""Removing ended jobs from the lists from the CLI: `status` without JOB leaves hidden jobs out, `jobs
--unhide` brings them back, and an id that was never hidden is said (exit 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from srt_tui.cli.main import main
from srt_tui.core.jobdir.contract import JobMeta, write_job_meta
from srt_tui.state.hidden import hidden_jobs, hide
from srt_tui.state.jobindex import remember_job


def test_status_leaves_hidden_jobs_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    monkeypatch.setenv("SRT_TUI_STATE_DIR", str(tmp_path / "state"))
    for job_id in ("local-1", "local-2"):  # local jobs: no Slurm needed to list them
        job_dir = tmp_path / job_id
        (job_dir / "logs").mkdir(parents=True)
        write_job_meta(job_dir, JobMeta(job_id, name=job_id, launcher="local"))
        remember_job(job_id, job_dir)
    hide(["local-1"])
    assert main(["status", "--json"]) == 0
    assert [s["job_id"] for s in json.loads(capsys.readouterr().out)] == ["local-2"]
    assert main(["status", "local-1", "--json"]) == 0  # named on purpose: shown
    assert [s["job_id"] for s in json.loads(capsys.readouterr().out)] == ["local-1"]
    assert main(["jobs", "--unhide", "local-1", "local-9"]) == 0
    captured = capsys.readouterr()
    assert "shown again: local-1" in captured.out and "not hidden: local-9" in captured.err
    assert hidden_jobs() == frozenset()
    assert main(["jobs", "--unhide", "local-9"]) == 1


def test_hide_refuses_a_running_local_job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """A local job whose process still runs stays listed; an ended one is hidden (no Slurm asked)."""
    import os
    import subprocess

    from srt_tui.slurm.procs import start_time

    monkeypatch.setenv("SRT_TUI_STATE_DIR", str(tmp_path / "state"))
    sleeper = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        for job_id, pid in (("local-5", sleeper.pid), ("local-6", 2**22 + 1)):
            job_dir = tmp_path / job_id
            (job_dir / "logs").mkdir(parents=True)
            write_job_meta(job_dir, JobMeta(job_id, name=job_id, launcher="local"))
            start = start_time(pid) or 0  # the launch record: pid and start time (a reused pid is no job's)
            (job_dir / "local.json").write_text(json.dumps({"pid": pid, "start": start, "started": 0}) + "\n")
            remember_job(job_id, job_dir)
        assert main(["jobs", "--hide", "local-5"]) == 1
        assert "still queued or running: local-5 (RUNNING)" in capsys.readouterr().err
        assert main(["jobs", "--hide", "local-6"]) == 0
        assert hidden_jobs() == frozenset({"local-6"})
    finally:
        os.killpg(sleeper.pid, 15)
        sleeper.wait()
