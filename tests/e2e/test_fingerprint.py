"""The fingerprint each worker step writes: whichever vendor tool answers, or a plain note that none did."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from srt_tui.core.render import _template
from tests.setup.standins import amd_tools, nvidia_tools


def _fingerprint(tmp_path: Path, tools: Path | None) -> dict[str, object]:
    out = tmp_path / "fp.json"
    path = f"{tools}:{os.environ['PATH']}" if tools else "/usr/bin:/bin"
    env = {"PATH": path, "ROCR_VISIBLE_DEVICES": "0,1", "HF_TOKEN": "hf_secret_value"}
    subprocess.run([sys.executable, "-c", _template("fingerprint.py"), str(out)], env=env, check=True, timeout=60)
    doc: dict[str, object] = json.loads(out.read_text())
    return doc


@pytest.mark.parametrize(("vendor", "tool"), [("nvidia", "nvidia-smi"), ("amd", "amd-smi")])
def test_fingerprint_records_the_tool_that_answered(tmp_path: Path, vendor: str, tool: str) -> None:
    tools = (nvidia_tools if vendor == "nvidia" else amd_tools)(tmp_path / "bin")
    doc = _fingerprint(tmp_path, tools)
    assert doc["gpu_tool"] == tool
    gpu = doc["gpu"]
    assert isinstance(gpu, dict) and gpu[tool]["rc"] == 0 and gpu[tool]["out"]
    assert doc["gpu_note"] is None
    assert doc["env"] == {"ROCR_VISIBLE_DEVICES": "0,1"}  # secrets are not collected at all


def test_fingerprint_says_plainly_when_no_gpu_tool_answers(tmp_path: Path) -> None:
    doc = _fingerprint(tmp_path, None)
    assert doc["gpu_tool"] is None and doc["gpu"] is None
    assert "no GPU tool answered" in str(doc["gpu_note"])
