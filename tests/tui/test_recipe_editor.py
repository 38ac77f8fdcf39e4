"""`e` on the recipe step edits the recipe in $EDITOR and comes back validated (issue 11): a shipped
recipe is copied to the user recipe folder first, the edit shows at once, and a broken edit is shown
with file:line. The editor here is a real program (a sed script) run by the app."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from rich.style import Style
from rich.text import Text
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Static, Tree

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


def _two_files_of_one_name() -> str:
    """srtctl's `b200-fp8/1k1k.yaml` and `b200-fp4/1k1k.yaml` in ./recipes (writable: edited in place), and a
    profile of at most 3 nodes (the op8 pass's cluster): its name."""
    from tests.conftest import REPO, require
    from tests.tui.test_recipe_first import SRTCTL_LIBRARY

    require(SRTCTL_LIBRARY.is_dir(), f"srtctl's library is not at {SRTCTL_LIBRARY}")
    for gpu in ("b200-fp8", "b200-fp4"):
        (Path.cwd() / "recipes" / gpu).mkdir(parents=True)
        shutil.copyfile(SRTCTL_LIBRARY / gpu / "1k1k.yaml", Path.cwd() / "recipes" / gpu / "1k1k.yaml")
    profiles = Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "profiles"
    profiles.mkdir(parents=True, exist_ok=True)
    text = (REPO / "profiles" / "nvidia-h100.yaml").read_text(encoding="utf-8")
    (profiles / "small-b200.yaml").write_text(text + "max_nodes: 3\n", encoding="utf-8")
    return "small-b200"


def _toasts_raised(app: App[Any], monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every toast the app raises from now on, (title, message), as it is raised: those on screen
    (`app._notifications`) end after their 5 s on the wall clock, and under load an edit's settle took longer (the
    key after `e` waited out its 5 s for the app to go idle): the toast was gone when read."""
    raised: list[tuple[str, str]] = []
    notify = app.notify

    def record(message: str, *, title: str = "", **kwargs: Any) -> None:
        raised.append((title, str(message)))
        notify(message, title=title, **kwargs)

    monkeypatch.setattr(app, "notify", record)
    return raised


def _folders(tree: Tree[Any]) -> dict[str, list[str]]:
    return {str(f.label): [n.data.spec for n in f.children if n.data is not None] for f in tree.root.children}


async def _edit_row(pilot: Pilot[Any], folder: str, label: str) -> None:
    """`e` on the row ``label`` of ``folder`` (the editor runs and returns)."""
    tree: Tree[Any] = pilot.app.screen.query_one("#recipe-tree", Tree)
    node = next(f for f in tree.root.children if str(f.label) == folder)
    tree.move_cursor(next(n for n in node.children if n.data is not None and n.data.label == label))
    await pilot.press("e")
    await settle(pilot)


async def test_an_edited_files_rows_are_read_again_in_their_own_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    """Operator pass (op8): `e` and quit on srtctl's `b200-fp8/1k1k` moved its rows to an `opened/` folder (they
    left their folder, the summary still showed them); `e` on `b200-fp4/1k1k` then put the fp4 rows there too,
    and their alike labels crashed the tree (`max() arg is an empty sequence`). Each file's rows are read again
    in place, in their own folder, and every row still draws."""
    profile = _two_files_of_one_name()
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", "true")
    app = make_app(profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        tree: Tree[Any] = app.screen.query_one("#recipe-tree", Tree)
        before = _folders(tree)
        assert "./recipes/b200-fp8/" in before and "./recipes/b200-fp4/" in before, list(before)
        for gpu, label in (
            ("b200-fp8", "1k1k:zip_override_stp_lowlat[1]"),
            ("b200-fp4", "1k1k:zip_override_stp_lowlat[1]"),
        ):
            await _edit_row(pilot, f"./recipes/{gpu}/", label)
            assert _folders(tree) == before
            node = tree.cursor_node
            assert node is not None and node.data is not None and node.parent is not None
            assert node.data.label == label and str(node.parent.label) == f"./recipes/{gpu}/"
            for folder in tree.root.children:
                for row in folder.children:
                    tree.render_label(row, Style(), Style())
        await pilot.pause()
        assert app.is_running


def test_rows_of_one_name_read_alike_without_a_crash() -> None:
    """`differs_at` on a folder listing a name twice: only the other names tell it apart."""
    from srt_tui.tui.launch.steps.recipe_rows import differs_at, fit_folder

    names = ["disagg-high-conc-6p1d-long-tail-name", "disagg-high-conc-8p1d-long-tail-name"] * 2
    assert differs_at(names, 24) == dict.fromkeys(names, len("disagg-high-conc-"))
    assert differs_at(["1k1k:zip_override_stp_lowlat[0]"] * 2, 20) == {}  # nothing tells them apart
    rows = [(Text("  " + name + "  1P1D · sglang"), "  1P1D · sglang") for name in names]
    assert all(row.cell_len <= 30 for row in fit_folder(rows, 30))


async def test_an_edit_left_unchanged_says_so_and_a_fit_problem_is_no_invalid_recipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Operator pass (op8): `e` and quit without a change toasted `Edited recipe is not valid: …1k1k.yaml:163:
    roles.decode: this job needs 7 nodes; max_nodes is 3`. Unchanged says only that; changed, a recipe too big
    for the profile's cluster is a valid recipe that does not fit it."""
    profile = _two_files_of_one_name()
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", "true")
    app = make_app(profile)
    said = _toasts_raised(app, monkeypatch)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await _edit_row(pilot, "./recipes/b200-fp4/", "1k1k:zip_override_stp_lowlat[1]")
        assert said and said[-1][1].endswith("1k1k.yaml: unchanged"), said
        assert not any("not valid" in title or "nodes" in text for title, text in said), said

        _editor(tmp_path, monkeypatch, "1i # edited")
        await _edit_row(pilot, "./recipes/b200-fp4/", "1k1k:zip_override_stp_lowlat[1]")
        title, text = said[-1]
        assert title == "Edited recipe does not fit the profile", title
        assert text.startswith(f"The recipe is valid; this variant does not fit the cluster of {profile}: "), text
        assert "needs 7 nodes; max_nodes is 3" in text
        summary = _summary(app)
        assert f"✓ valid recipe; does not fit {profile}:" in summary and "✗ " in summary, summary
