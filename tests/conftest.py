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


def profile_here(base: Path, name: str) -> str:
    """A copy of the shipped profile ``name`` whose model directories and container files exist on this machine
    (under ``base``): `apply` refuses a model or container path it does not find, as srtctl's preflight does, and the
    shipped cluster profiles name `/lustre/…`. Its path, named ``name``.yaml as the profile is."""
    import yaml

    data = yaml.safe_load((REPO / "profiles" / f"{name}.yaml").read_text(encoding="utf-8"))
    for alias in data.get("model_paths") or {}:
        (base / "models" / alias).mkdir(parents=True, exist_ok=True)
        data["model_paths"][alias] = str(base / "models" / alias)
    for alias, image in (data.get("containers") or {}).items():
        if str(image).startswith("/"):  # a registry image is pulled, not found
            (base / "containers").mkdir(parents=True, exist_ok=True)
            (base / "containers" / f"{alias}.sqsh").touch()
            data["containers"][alias] = str(base / "containers" / f"{alias}.sqsh")
    folder = base / "profiles-here"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return str(path)


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


#: what a module's source shows of its level, slowest first: driving the App (Pilot, snapshots, the screenshot
#: script's drawings), starting real processes that talk HTTP on this machine (mock workers, routers, exporters,
#: scripts), running `srt-tui`
LEVEL_SIGNS = (
    ("tui", ("run_test(", "snap_compare", "scripts/screenshots.py")),
    ("live", ("mockprocs", "pytest.mark.routers", "subprocess.run([sys.executable", "Popen([sys.executable")),
    ("cli", ("srt_tui.cli", "from tests.e2e.jobtools import", "run_cli(")),
)


#: what a module's source shows of sharing the one local Slurm test cluster (its three nodes and the
#: controller's queue): such tests run one after another on one xdist worker (`--dist loadgroup`)
CLUSTER_SIGNS = ("ensure_local_slurm",)


@functools.cache
def _source(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@functools.cache
def _level_of(path: Path) -> str:
    """`tui`, `live`, `cli` or `unit`, from the module's source (a module mixing levels takes the slowest)."""
    source = _source(path)
    return next((level for level, signs in LEVEL_SIGNS if any(sign in source for sign in signs)), "unit")


@pytest.hookimpl(tryfirst=True)  # before xdist's, which reads the `xdist_group` marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test gets one level marker (`-m unit` is `make test-fast`); real-Slurm tests keep `slurm`. Tests
    of the real pyslurm run where it imports (CI's pyslurm leg, CI_PYSLURM=1), deselected elsewhere."""
    if importlib.util.find_spec("pyslurm") is None and os.environ.get("CI_PYSLURM") != "1":
        gone = [item for item in items if item.get_closest_marker("pyslurm") is not None]
        if gone:
            config.hook.pytest_deselected(items=gone)
            items[:] = [item for item in items if item.get_closest_marker("pyslurm") is None]
    for item in items:
        path = Path(str(item.fspath))
        if item.get_closest_marker("slurm") is None:
            item.add_marker(getattr(pytest.mark, _level_of(path)))
        if item.get_closest_marker("slurm") is not None or any(sign in _source(path) for sign in CLUSTER_SIGNS):
            item.add_marker(pytest.mark.xdist_group("slurm"))
