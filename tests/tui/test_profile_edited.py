"""A profile edited on disk is read again when the Profile step is shown again (new-operator pass, s36): its facts
stayed as first read (and Enter chose the old model) until `r`. The files' stamp (path, mtime, size), taken in a
worker when the list is read, is compared again when the step or Launch is shown again."""

from __future__ import annotations

import os
from pathlib import Path

from srt_tui.core.spec.profile_stamp import profile_stamp
from srt_tui.tui.launch.screen import LaunchScreen
from srt_tui.tui.launch.steps.profile_step import ProfileStep
from tests.conftest import REPO
from tests.tui.scenarios import settle
from tests.tui.tui_helpers import make_app


def _profiles() -> Path:
    return Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "profiles"


def _write(cluster: str) -> Path:
    """The shipped `local` profile as `edited`, its cluster named ``cluster`` (an edit the detail pane shows)."""
    text = (REPO / "profiles" / "local.yaml").read_text(encoding="utf-8")
    assert "\ncluster: local\n" in text
    path = _profiles() / "edited.yaml"
    path.write_text(text.replace("\ncluster: local\n", f"\ncluster: {cluster}\n"), encoding="utf-8")
    return path


def test_the_stamp_follows_an_edit_an_added_and_a_removed_file() -> None:
    path = _write("first")
    before = profile_stamp()
    assert profile_stamp() == before
    _write("second-longer")
    edited = profile_stamp()
    assert edited != before
    (_profiles() / "more.yaml").write_text("x: 1\n", encoding="utf-8")
    assert profile_stamp() != edited
    path.unlink()
    assert str(path) not in {p for p, *_ in profile_stamp()}


async def test_an_edited_profile_is_read_again_when_the_step_is_shown_again() -> None:
    _write("firstcluster")
    app = make_app()
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LaunchScreen) and screen.index == 0
        step = screen.query_one(ProfileStep)
        assert any(row.name == "edited" and "firstcluster" in str(row.detail) for row in step.rows), step.rows
        await pilot.press("2")  # to Monitor, the file edited meanwhile, and back
        await settle(pilot)
        _write("secondcluster")
        await pilot.press("1")
        await settle(pilot)
        row = next(row for row in step.rows if row.name == "edited")
        assert "secondcluster" in str(row.detail), row.detail
        assert "A profile file changed on disk: the list is read again." in [str(n.message) for n in app._notifications]
