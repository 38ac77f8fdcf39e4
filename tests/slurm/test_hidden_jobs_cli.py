"""Removing ended jobs from the lists from the CLI: `status` without JOB leaves hidden jobs out, `jobs
--unhide` brings them back, an id that was not hidden is said (exit 1), and one nothing knows is refused as an
unknown JOB (exit 2)."""

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
    assert main(["jobs", "--unhide", "local-1", "local-2"]) == 1  # some were not hidden: not done
    captured = capsys.readouterr()
    assert "shown again: local-1" in captured.out and "not hidden: local-2" in captured.err
    assert hidden_jobs() == frozenset()
    assert main(["jobs", "--unhide", "local-2"]) == 1


def test_hide_and_unhide_refuse_ids_never_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """Issue 21: `jobs --unhide A B` exited 0 when B was not hidden, and `jobs --hide` hid ids it had never seen
    (a typo then hid nothing anyone knew). An id nothing knows is an unknown JOB, as in `status A B`: one line
    each with the closest id, the known ones acted on, exit 2."""
    monkeypatch.setenv("SRT_TUI_STATE_DIR", str(tmp_path / "state"))
    for job_id in ("local-1", "local-2"):
        job_dir = tmp_path / job_id
        (job_dir / "logs").mkdir(parents=True)
        write_job_meta(job_dir, JobMeta(job_id, name=job_id, launcher="local"))
        remember_job(job_id, job_dir)
    assert main(["jobs", "--hide", "local-1", "lcoal-2", "local-77"]) == 2
    said = capsys.readouterr()
    assert "hidden: local-1 " in said.out, said
    err = said.err.splitlines()
    assert err[0].startswith("srt-tui: error: JOB: no job known as `lcoal-2`") and "did you mean `local-2`?" in err[0]
    assert err[1].startswith("srt-tui: error: JOB: no job known as `local-77`") and len(err) == 2, err
    assert hidden_jobs() == frozenset({"local-1"})  # the typo was not hidden
    assert main(["jobs", "--unhide", "local-1", "local-9"]) == 2
    said = capsys.readouterr()
    assert "shown again: local-1" in said.out and "no job known as `local-9`" in said.err, said
    assert "not hidden" not in said.err and hidden_jobs() == frozenset()


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
