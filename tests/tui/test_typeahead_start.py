"""Keys typed while srt-tui starts (issue 21, new-operator pass op9, defect 4): `srt-tui -p PROFILE`, then
`/mocker-1p1d` Enter `e` in one burst about a second later, ended with the filter reading `mocker-1p1de` and "No
recipe matches"; the same burst once the library was read opened the Topology step. Three things lost the Enter:

- typed before Textual puts the terminal in raw mode, Enter passes the terminal's line discipline, which sends it as
  a line feed (`ICRNL`): Textual read `ctrl+j`, which no field takes;
- typed before the recipe tree had a row, nothing had the focus: `/` found no list to filter;
- typed while the library was still read, Enter took what matched among the folders read so far (or nothing).

Every key typed before the list is ready now waits for it and acts on it in order, and Enter in the filter takes
the best row of the whole library.
"""

from __future__ import annotations

import threading

import pytest
from textual.widgets import ContentSwitcher, Input, OptionList

from srt_tui.tui.launch.screen import LaunchScreen
from tests.tui.scenarios import settle
from tests.tui.tui_helpers import hold_scan_at, make_app, terminal_keys

#: the burst as the terminal delivers it before raw mode: Enter's CR turned into LF by the line discipline
BURST = "/mocker-1p1d\ne"


def test_a_line_feed_is_enter() -> None:
    """The keys typed before raw mode: `\\n` is Enter (as readline's C-j is), so the filter's Enter is one."""
    app = make_app("local")
    keys = [k.key for k in terminal_keys(app, BURST)]
    assert keys[-2:] == ["enter", "e"], keys
    assert [k.key for k in terminal_keys(app, "\x1b\n")] == ["escape", "enter"]


@pytest.mark.parametrize(
    ("held", "shown"),
    [
        pytest.param("amd", "no row yet", id="before-the-first-rows"),  # the shipped library's first folder
        pytest.param("mocker", "amd's rows", id="before-the-recipe-named"),
    ],
)
async def test_keys_typed_at_start_act_once_the_list_is_ready(
    monkeypatch: pytest.MonkeyPatch, held: str, shown: str
) -> None:
    """The burst queued while the library's reader is held at ``held`` (the tree shows ``shown``), then the reader
    let go: the recipe named is chosen, its Topology step shown, and `e` reaches that step (where it edits nothing)
    rather than the filter or the recipe list's Edit."""
    from srt_tui.tui import key_order
    from srt_tui.tui.launch.steps.recipe_step import RecipeStep

    monkeypatch.setattr(key_order, "HOLD_MAX_S", 120.0)  # a loaded machine's start never outlasts the keys' wait
    edits: list[str] = []
    monkeypatch.setattr(RecipeStep, "action_edit_recipe", lambda self: edits.append("e"))
    gate: threading.Event = hold_scan_at(monkeypatch, lambda folder: folder == held)
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        try:
            for _ in range(10):
                await pilot.pause()
            screen = app.screen
            assert isinstance(screen, LaunchScreen) and screen.index == 1
            assert all(str(folder.label) != f"{held}/" for folder in screen.query_one("#recipe-tree").root.children)  # type: ignore[attr-defined]
            for key in terminal_keys(app, BURST):  # one read: all queued before the first is handled
                app.post_message(key)
            for _ in range(10):
                await pilot.pause()
            assert screen.index == 1  # nothing chosen from a library still being read
        finally:
            gate.set()
        await settle(pilot)
        assert screen.query_one("#steps", ContentSwitcher).current == "step-topology"
        assert screen.state.recipe_label == "mocker-1p1d"
        assert screen.query_one("#recipe-filter", Input).value == "mocker-1p1d"
        assert edits == [] and isinstance(app.focused, OptionList) and app.focused.id == "presets"
        said = [str(n.message) for n in app._notifications]
        assert not any("No recipe matches" in m or "Highlight a recipe" in m for m in said), said


async def test_enter_typed_while_the_library_is_read_takes_the_best_row_of_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`/1p2d` Enter while the mocker folder is not read yet: the rows so far (amd's) hold `1p2d` too, but the row
    Enter takes is the one the whole library ranks first, the ✓ `mocker-1p2d`, as when typed after the library is
    read."""
    from srt_tui.tui import key_order

    monkeypatch.setattr(key_order, "HOLD_MAX_S", 120.0)
    gate = hold_scan_at(monkeypatch, lambda folder: folder == "mocker")
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        try:
            for _ in range(10):
                await pilot.pause()
            for key in terminal_keys(app, "/1p2d\r"):
                app.post_message(key)
            for _ in range(10):
                await pilot.pause()
            screen = app.screen
            assert isinstance(screen, LaunchScreen) and screen.index == 1
        finally:
            gate.set()
        await settle(pilot)
        assert screen.index == 2 and screen.state.recipe_label == "mocker-1p2d", screen.state.recipe_label
