"""Layering: the monitor core imports neither Textual nor the mocker (layers point down)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO


def test_monitor_core_imports_no_textual_and_no_mock() -> None:
    code = (
        "import sys\n"
        "import srt_tui.monitor.snapshot.collect, srt_tui.monitor.cells\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'httpx') or m.startswith('srt_tui.mock')"
        " or m.startswith('srt_tui.tui') or m.startswith('srt_tui.widgets'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
