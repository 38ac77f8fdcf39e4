"""Helpers of the shared-node tests: a quiet one-worker mock job, and the CLI run as an operator would."""

from __future__ import annotations

import os
import subprocess
import sys

#: one mock worker serving directly, no router, no benchmark: the cheapest job that keeps running
QUIET_RECIPE = """name: quiet
model: {path: mock-model}
engine: mocker
roles:
  agg: {nodes: 1, workers: 1}
frontend: {type: none}
"""


def srt(*args: str, umask: int | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`srt-tui ARGS` in a fresh process (``umask``: run under that umask)."""

    def preexec() -> None:
        if umask is not None:
            os.umask(umask)

    return subprocess.run([sys.executable, "-m", "srt_tui.cli", *args], capture_output=True, text=True,
                          timeout=timeout, preexec_fn=preexec)  # fmt: skip
