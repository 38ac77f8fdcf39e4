"""`python -m srt_tui` is the `srt-tui` command (operator pass op9, 17: it failed with "No module named
srt_tui.__main__")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.core.core_helpers import console_script


def test_python_dash_m_runs_the_console_script_entry_point(tmp_path: Path) -> None:
    env = {**os.environ, "SRT_TUI_CONFIG_DIR": str(tmp_path / "config")}

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)

    module = run(sys.executable, "-m", "srt_tui", "--help")
    script = run(str(console_script()), "--help")
    assert module.returncode == 0 and module.stderr == "", module.stderr
    assert module.stdout.startswith("usage: srt-tui ") and module.stdout == script.stdout
    # a subcommand's exit code and message come through too
    module = run(sys.executable, "-m", "srt_tui", "stauts")
    assert module.returncode == 2 and "did you mean `status`?" in module.stderr
