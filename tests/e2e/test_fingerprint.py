"""The fingerprint each worker step writes: whichever vendor tool answers, or a plain note that none did."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from srt_tui.core.template_files import template
from tests.setup.standins import amd_tools, nvidia_tools


def _fingerprint(tmp_path: Path, tools: Path | None) -> dict[str, object]:
    out = tmp_path / "fp.json"
    path = f"{tools}:{os.environ['PATH']}" if tools else "/usr/bin:/bin"
    env = {"PATH": path, "ROCR_VISIBLE_DEVICES": "0,1", "HF_TOKEN": "hf_secret_value"}
    subprocess.run([sys.executable, "-c", template("fingerprint.py"), str(out)], env=env, check=True, timeout=60)
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


def test_fingerprint_checks_the_recipes_identity(tmp_path: Path) -> None:
    """srtctl's `identity:` is verified on the worker: a framework at another version is a mismatch."""
    model = tmp_path / "models--org--m" / "snapshots" / "abc123"
    model.mkdir(parents=True)
    (model / "config.json").write_text(json.dumps({"_name_or_path": "org/m"}))
    identity = {"model": {"repo": "org/m", "revision": "abc123"}, "frameworks": {"pytest": "0.0.1", "nope": "1"}}
    out = tmp_path / "fp.json"
    run = subprocess.run(
        [sys.executable, "-c", template("fingerprint.py"), str(out)],
        env={"PATH": os.environ["PATH"], "SRT_IDENTITY": json.dumps(identity), "SRT_MODEL_DIR": str(model)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    doc = json.loads(out.read_text())
    assert doc["identity"]["mismatches"] == [
        f"framework pytest: {doc['frameworks']['pytest']} installed, identity says 0.0.1"
    ]
    assert doc["identity"]["unverified"] == ["framework nope: not installed here"]
    assert "identity mismatch: framework pytest" in run.stderr
