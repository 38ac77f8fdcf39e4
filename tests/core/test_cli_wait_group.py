"""`srt-tui wait GROUP` waits for every member of a sweep (new-operator pass: it refused the group, `is a group of 3
jobs (fix: wait for each …)`, though `status`, `results` and `cancel` take it). Its exit status is the worst of its
members' as a lone `wait` gives them: 1 (one ended otherwise) over 124 (one timed out) over 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from srt_tui.cli.jobs import worst_wait
from srt_tui.cli.main import main
from srt_tui.state.jobindex import remember_job
from tests.monitor import resultdirs

GROUP = "osl-81500"


@pytest.fixture
def members(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """The osl sweep's three members (81500-81502), indexed as `apply` leaves them, none ended yet."""
    monkeypatch.setenv("SRT_TUI_STATE_DIR", str(tmp_path / "state"))
    out = dict(resultdirs.osl_sweep(tmp_path / "outputs"))
    for job_id, path in out.items():
        remember_job(job_id, path)
    return out


def _ended(job_dir: Path, stage: str, detail: str) -> None:
    """The job's own events say it ended (`stage`)."""
    with open(job_dir / "status.jsonl", "a") as fh:
        fh.write(json.dumps({"stage": stage, "time": "2026-03-01T11:05:00Z", "detail": detail}) + "\n")


def _wait(capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    rc = main(["wait", GROUP, "--for", "done", "--timeout", "1", "--interval", "0.5"])
    return rc, capsys.readouterr().err


def test_wait_on_a_group_waits_for_every_member_and_exits_with_the_worst(
    members: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _ended(members["81500"], "completed", "benchmark done")
    rc, said = _wait(capsys)
    assert rc == 124, said  # two still submitted: timed out
    assert "is a group" not in said and "81501: timed out after 1s waiting for done" in said, said
    assert "81502: timed out after 1s waiting for done" in said, said
    _ended(members["81502"], "completed", "benchmark done")
    _ended(members["81501"], "failed", "worker decode_0 exited with code 3")
    rc, said = _wait(capsys)
    assert rc == 1, said  # one failed: worse than one timed out
    assert "81501 ended (failed): worker decode_0 exited with code 3" in said, said


def test_a_group_has_no_single_log_to_follow(members: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["wait", GROUP, "--log-file", "x.log"]) == 2
    assert "`osl-81500` is a group of 3 jobs" in capsys.readouterr().err


def test_the_worst_outcome_is_a_job_that_ended_otherwise_then_a_timeout() -> None:
    assert worst_wait([0, 124, 1, 0]) == 1
    assert worst_wait([0, 124, 0]) == 124
    assert worst_wait([0, 0]) == 0
