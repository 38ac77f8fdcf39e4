"""`srt-tui wait --for ready` on a job that ended before the wait looked: a fast benchmark serves and finishes
between two polls (operator pass, issue 21: it said "ended before it was ready" although its log says ready)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from srt_tui.cli.jobs import _wait_outcome
from tests.monitor import frozen


def _ended(tmp_path: Path, stages: list[str], end: str) -> object:
    with open(tmp_path / "status.jsonl", "w") as fh:
        for i, stage in enumerate(stages):
            fh.write(json.dumps({"stage": stage, "time": f"2026-03-01T11:00:0{i}Z", "detail": ""}) + "\n")
    return replace(frozen.nvidia("healthy"), job_dir=str(tmp_path), stage=end, stage_detail="benchmark finished")


def test_a_job_that_was_ready_then_completed_is_done_for_ready(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snap = _ended(tmp_path, ["submitted", "starting", "router ready", "benchmark", "completed"], "completed")
    assert _wait_outcome(snap, "ready", None, None) == 0
    said = capsys.readouterr().err
    assert "81234 was ready at 2026-03-01T11:00:02Z, then ended (completed)" in said and "before" not in said


def test_a_job_that_was_ready_then_failed_says_so_and_is_not_done(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snap = _ended(tmp_path, ["submitted", "starting", "serving", "failed"], "failed")
    assert _wait_outcome(snap, "ready", None, None) == 1
    assert "was ready at 2026-03-01T11:00:02Z, then ended (failed)" in capsys.readouterr().err


def test_a_job_that_never_got_ready_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snap = _ended(tmp_path, ["submitted", "starting", "workers healthy", "failed"], "failed")
    assert _wait_outcome(snap, "ready", None, None) == 1
    assert "81234 ended (failed) before it was ready" in capsys.readouterr().err
