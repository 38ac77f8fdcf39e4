"""A mistyped option gets one `srt-tui: error:` line with the nearest option of that command (issue 21,
defect 12: `--jsn` got argparse's usage dump and no "did you mean")."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO


def _srt(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "srt_tui.cli", *args], capture_output=True, text=True, env=env,
                          timeout=60)  # fmt: skip


def test_a_mistyped_option_names_the_nearest_one() -> None:
    proc = _srt("status", "--jsn")
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == ["srt-tui: error: unrecognized arguments: --jsn: did you mean `--json`?"]
    far = _srt("dry-run", "-f", "x.yaml", "--nope")
    assert far.returncode == 2 and far.stderr.splitlines() == [
        "srt-tui: error: unrecognized arguments: --nope (see `srt-tui dry-run --help`)"
    ]


def test_a_mistyped_value_or_a_missing_argument_is_one_line_too() -> None:
    """Issue 21 review: `wait JOB --for redy` printed argparse's four-line usage before its error, and no
    "did you mean"; a missing `-f` the same."""
    proc = _srt("wait", "local-1", "--for", "redy")
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "srt-tui: error: argument --for: invalid choice: 'redy' (choose from 'ready', 'done'): did you mean `ready`?"
    ]
    missing = _srt("dry-run")
    assert missing.returncode == 2 and missing.stderr.splitlines() == [
        "srt-tui: error: the following arguments are required: -f/--file (see `srt-tui dry-run --help`)"
    ]
