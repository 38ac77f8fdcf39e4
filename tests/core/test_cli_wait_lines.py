"""`srt-tui wait` prints each stage once: a stage whose detail starts with it reads `serving at http://…`; any
other detail follows its stage after a colon, as `srt-tui status` prints it."""

from __future__ import annotations

import pytest

from srt_tui.cli.jobs import progress_line


@pytest.mark.parametrize(
    ("stage", "detail", "line"),
    [
        ("serving", "serving at http://10.0.0.1:8000", "serving at http://10.0.0.1:8000"),
        ("workers healthy", "", "workers healthy"),
        ("failed", "router prefill_0 exited with code 1", "failed: router prefill_0 exited with code 1"),
        ("infra starting", "nats, etcd", "infra starting: nats, etcd"),
        ("cancelled", "stopped by a signal", "cancelled: stopped by a signal"),  # as `status` says it
    ],
)
def test_each_stage_is_said_once(stage: str, detail: str, line: str) -> None:
    assert progress_line(stage, detail) == line
