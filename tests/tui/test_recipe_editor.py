"""`e` on the recipe step edits the recipe in $EDITOR and comes back validated (issue 11): a shipped
recipe is copied to the user recipe folder first, the edit shows at once, and a broken edit is shown
with file:line. The editor here is a real program (a sed script) run by the app."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from srt_tui.tui.launch.screen import LaunchScreen
from tests.core.core_helpers import RECIPES_DIR
from tests.tui.scenarios import Scenario, reach, settle
from tests.tui.tui_helpers import make_app

SHIPPED = RECIPES_DIR / "mocker" / "mocker-agg-direct.yaml"
SCENARIO = Scenario("agg-direct", "local", "mocker-agg-direct.yaml")


def _editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sed: str) -> None:
    script = tmp_path / "editor.sh"
    script.write_text(f"#!/bin/sh\nexec sed -i '{sed}' \"$1\"\n", encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(script))


def test_the_editor_is_visual_then_editor_then_vi(monkeypatch: pytest.MonkeyPatch) -> None:
    from srt_tui.tui.launch.steps.recipe_edit import editor_command

    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    assert editor_command(Path("r.yaml")) == ["vi", "r.yaml"]
    monkeypatch.setenv("EDITOR", "code --wait")
    assert editor_command(Path("r.yaml")) == ["code", "--wait", "r.yaml"]
    monkeypatch.setenv("VISUAL", "nvim")
    assert editor_command(Path("r.yaml")) == ["nvim", "r.yaml"]


def _copy() -> Path:
    return Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "recipes" / "mocker" / "mocker-agg-direct.yaml"


def _summary(app: object) -> str:
    from rich.console import Console

    screen = app.screen  # type: ignore[attr-defined]
    console = Console(width=200, record=True, color_system=None)
    console.print(screen.query_one("#recipe-summary", Static).content)
    return console.export_text()


async def _edit_on_the_recipe_step(pilot: Pilot[Any]) -> str:
    """Reach the recipe step, press `e` (the editor runs and returns): the recipe summary then."""
    await reach(pilot, SCENARIO, "recipe", typed=False)
    await pilot.press("e")
    await settle(pilot)
    return _summary(pilot.app)


async def test_an_edit_of_a_shipped_recipe_goes_to_a_user_copy_and_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _editor(tmp_path, monkeypatch, "s/^name: mocker-agg-direct$/name: edited-agg/")
    before = SHIPPED.read_text(encoding="utf-8")
    app = make_app(SCENARIO.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        summary = await _edit_on_the_recipe_step(pilot)
        assert SHIPPED.read_text(encoding="utf-8") == before  # srt-tui's own file is untouched
        assert "name: edited-agg" in _copy().read_text(encoding="utf-8")
        assert "edited-agg" in summary and "✓ valid for local" in summary
        # where the copy lives and its name stay whole; the middle folders give way to the summary's width
        assert "$SRT_TUI_CONFIG_DIR/…/mocker-agg-direct.yaml" in summary
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LaunchScreen) and screen.state.recipe is not None
        assert screen.state.recipe.name == "edited-agg"

        # a second edit opens the same copy (never copied over again)
        _editor(tmp_path, monkeypatch, "s/^name: edited-agg$/name: edited-twice/")
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert "edited-twice" in _summary(app)
        assert "name: edited-twice" in _copy().read_text(encoding="utf-8")


async def test_an_edit_that_breaks_validation_is_shown_with_file_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _editor(tmp_path, monkeypatch, "s/^    nodes: 1$/    gpus: 3/")
    app = make_app(SCENARIO.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        summary = await _edit_on_the_recipe_step(pilot)
        line = _copy().read_text(encoding="utf-8").splitlines().index("    gpus: 3") + 1
        assert f"✗ $SRT_TUI_CONFIG_DIR/recipes/mocker/mocker-agg-direct.yaml:{line}: roles.agg.gpus: 3 GPUs" in summary


async def test_an_edit_that_breaks_the_file_is_shown_with_file_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _editor(tmp_path, monkeypatch, "s/^engine: mocker$/engine: mocker\\nbogus: 1/")
    app = make_app(SCENARIO.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        summary = await _edit_on_the_recipe_step(pilot)
        line = _copy().read_text(encoding="utf-8").splitlines().index("bogus: 1") + 1
        assert f"mocker-agg-direct.yaml:{line}: bogus: unknown key" in summary
        assert "valid keys here: schema, name," in summary and "schema_" not in summary  # as the file spells it
        await pilot.press("enter")  # a broken recipe cannot be chosen
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LaunchScreen) and screen.index == 1


async def test_read_only_mode_offers_no_edit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _editor(tmp_path, monkeypatch, "s/^name: mocker-agg-direct$/name: edited-agg/")
    app = make_app(SCENARIO.profile, probe=None, read_only=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, SCENARIO, "recipe", typed=False)
        assert "edit_recipe" not in {b.binding.action for b in app.screen.active_bindings.values()}
        await pilot.press("e")
        await settle(pilot)
        assert not _copy().exists()
