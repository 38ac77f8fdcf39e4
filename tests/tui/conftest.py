"""TUI test fixtures: isolated profiles (with one broken file), scratch cwd, animations off."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from srt_tui.tui.app import SrtTuiApp
from tests.tui.tui_helpers import BROKEN_PROFILE, make_app


@pytest.fixture(autouse=True)
def _tui_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A user profile dir holding one broken file (shown inline), and a scratch working directory."""
    profiles = Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "profiles"
    profiles.mkdir(parents=True, exist_ok=True)
    (profiles / "broken.yaml").write_text(BROKEN_PROFILE, encoding="utf-8")
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def app_factory() -> Callable[..., SrtTuiApp]:
    """Build deterministic apps inside a test."""
    return make_app
