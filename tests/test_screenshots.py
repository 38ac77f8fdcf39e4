"""The committed `screenshots/` are what the app draws now (they went stale three times with nothing to say so):
each group of pictures is drawn again by `scripts/screenshots.py`'s own code, in this process, into a scratch
directory, and compared byte for byte (the script draws the same bytes on every run: fixed clock, isolated
directories, UTC; an SVG's ids follow its content). One test per group, so the suite's workers share them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import REPO

SCRIPT = REPO / "scripts" / "screenshots.py"
REFRESH = "python scripts/screenshots.py"


def _script() -> ModuleType:
    """scripts/screenshots.py as a module (scripts/ is no package)."""
    spec = importlib.util.spec_from_file_location("srt_screenshots", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


SHOTS = _script()


def stale_files(drawn: Path, committed: Path, names: tuple[str, ...]) -> list[str]:
    """Of `names`, those whose committed file is missing or differs from the one drawn."""
    return [
        name
        for name in names
        if not (committed / name).is_file() or (committed / name).read_bytes() != (drawn / name).read_bytes()
    ]


@pytest.mark.parametrize("group", list(SHOTS.GROUPS))
async def test_the_committed_screenshots_are_what_the_app_draws(group: str, tmp_path: Path) -> None:
    drawn = tmp_path / "drawn"
    drawn.mkdir()
    with SHOTS.drawing_environment(tmp_path / "scratch"):
        written = await SHOTS.draw([group], SHOTS.SIZE, drawn)
    files = SHOTS.GROUPS[group].files
    assert sorted(path.name for path in written) == sorted(files), f"group {group} wrote {written}, declares {files}"
    stale = stale_files(drawn, REPO / "screenshots", files)
    assert not stale, (
        f"screenshots/ is behind the app: {', '.join(stale)} {'is' if len(stale) == 1 else 'are'} not what "
        f"`{REFRESH}` draws now (drawn here: {drawn}). Refresh with `{REFRESH} --only {group}` (or `make screenshots`)"
        " and look at what changed before committing."
    )


def test_every_committed_screenshot_is_drawn_and_every_drawing_committed() -> None:
    declared = {name for group in SHOTS.GROUPS.values() for name in group.files}
    committed = {path.name for path in (REPO / "screenshots").glob("*.svg")}
    assert not committed - declared, (
        f"screenshots/ holds {sorted(committed - declared)}, which `{REFRESH}` does not draw: remove them, or draw "
        "them in one of its GROUPS"
    )
    assert not declared - committed, f"{sorted(declared - committed)} not in screenshots/: run `{REFRESH}`"
