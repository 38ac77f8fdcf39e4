"""Shared test fixtures: isolate user state, and make missing infrastructure fail under CI=true."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def require(condition: bool, reason: str) -> None:
    """Skip when a dependency is missing locally; fail under CI=true, where nothing may be skipped."""
    if condition:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and a required dependency is missing: {reason}")
    pytest.skip(reason)


def pytest_configure(config: pytest.Config) -> None:
    """Isolate user state for the whole session too, so module-scoped fixtures never write ./outputs."""
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="srt-tests-"))
    for var, sub in (("SRT_TUI_CONFIG_DIR", "config"), ("SRT_TUI_STATE_DIR", "state"),
                     ("SRT_TUI_OUTPUT_DIR", "outputs"), ("XDG_CACHE_HOME", "cache")):  # fmt: skip
        os.environ[var] = str(base / sub)


@pytest.fixture(autouse=True)
def _isolated_user_state(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Never read or write the developer's ~/.config/srt-tui or job index during tests."""
    base = tmp_path_factory.mktemp("srt-user")
    monkeypatch.setenv("SRT_TUI_CONFIG_DIR", str(base / "config"))
    monkeypatch.setenv("SRT_TUI_STATE_DIR", str(base / "state"))
    monkeypatch.setenv("SRT_TUI_OUTPUT_DIR", str(base / "outputs"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(base / "cache"))  # the recipe library's cache
    monkeypatch.delenv("SRTSLURM_CONFIG", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    yield
