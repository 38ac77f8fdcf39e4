"""Shared test fixtures: isolate user state, and make missing infrastructure fail under CI=true."""

from __future__ import annotations

import functools
import importlib.util
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
    os.environ["SRT_MOCK_CONTROL"] = "1"  # mock workers of module fixtures too serve their control routes


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
    monkeypatch.setenv("SRT_MOCK_CONTROL", "1")  # tests drive mock workers through their control routes
    monkeypatch.setenv("SRT_TUI_LOGIN_HOST", "me@login")  # the job view's ssh line, the same on every machine
    yield


#: what a module's source shows of its level, slowest first: driving the App (Pilot, snapshots), starting
#: real processes that talk HTTP on this machine (mock workers, routers, exporters, scripts), running `srt-tui`
LEVEL_SIGNS = (
    ("tui", ("run_test(", "snap_compare")),
    ("live", ("mockprocs", "pytest.mark.routers", "subprocess.run([sys.executable", "Popen([sys.executable")),
    ("cli", ("srt_tui.cli", "from tests.e2e.jobtools import", "run_cli(")),
)


@functools.cache
def _level_of(path: Path) -> str:
    """`tui`, `live`, `cli` or `unit`, from the module's source (a module mixing levels takes the slowest)."""
    source = path.read_text(encoding="utf-8")
    return next((level for level, signs in LEVEL_SIGNS if any(sign in source for sign in signs)), "unit")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test gets one level marker (`-m unit` is `make test-fast`); real-Slurm tests keep `slurm`. Tests
    of the real pyslurm run where it imports (CI's pyslurm leg, CI_PYSLURM=1), deselected elsewhere."""
    if importlib.util.find_spec("pyslurm") is None and os.environ.get("CI_PYSLURM") != "1":
        gone = [item for item in items if item.get_closest_marker("pyslurm") is not None]
        if gone:
            config.hook.pytest_deselected(items=gone)
            items[:] = [item for item in items if item.get_closest_marker("pyslurm") is None]
    for item in items:
        if item.get_closest_marker("slurm") is None:
            item.add_marker(getattr(pytest.mark, _level_of(Path(str(item.fspath)))))
