"""Fixtures of the core tests: isolation from the operator's own profiles and srtslurm.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user profiles, no SRTSLURM_CONFIG, and a scratch working directory for every core test."""
    monkeypatch.setenv("SRT_TUI_CONFIG_DIR", str(tmp_path / ".srt-tui-config"))
    monkeypatch.delenv("SRTSLURM_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
