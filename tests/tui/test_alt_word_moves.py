"""Readline's Alt+b / Alt+f in text fields (issue 21, pass 7): they move a word left / right as ctrl+left /
ctrl+right do, however the terminal sends them. As `ESC b` / `ESC f` (xterm, tmux) Textual's parser reads them as
ctrl+left / ctrl+right already; under the kitty keyboard protocol, which Textual asks the terminal for (kitty,
WezTerm, foot, Ghostty), they come as `CSI 98;3u` / `CSI 102;3u`, read as alt+b / alt+f, which no field bound: they
did nothing. Esc alone still leaves the field, and outside a text field Alt+b is not an Esc."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input

from tests.tui.scenarios import NVIDIA, settle
from tests.tui.tui_helpers import make_app, terminal_keys

WORDS = "mocker 1p2d sgl"
#: what a terminal sends for Alt+b, Alt+f and Esc, by protocol
LEGACY = {"alt+b": "\x1bb", "alt+f": "\x1bf", "escape": "\x1b"}
KITTY = {"alt+b": "\x1b[98;3u", "alt+f": "\x1b[102;3u", "escape": "\x1b[27u"}


async def _send(pilot: Pilot[Any], raw: str) -> None:
    """``raw`` as the app's terminal driver reads it in one read."""
    for key in terminal_keys(pilot.app, raw):
        pilot.app.post_message(key)
    await settle(pilot)


async def _filter_with_words(pilot: Pilot[Any]) -> Input:
    await settle(pilot)
    await pilot.press("slash")
    await settle(pilot)
    field = pilot.app.screen.query_one("#recipe-filter", Input)
    assert pilot.app.focused is field
    field.insert_text_at_cursor(WORDS)
    await settle(pilot)
    return field


async def test_alt_b_and_alt_f_move_a_word_in_a_text_field_in_either_protocol() -> None:
    for sent in (KITTY, LEGACY):
        app = make_app(NVIDIA.profile)  # opens on the recipe list
        async with app.run_test(size=(120, 36)) as pilot:
            field = await _filter_with_words(pilot)
            await _send(pilot, sent["alt+b"])
            assert (field.value, field.cursor_position, app.focused) == (WORDS, WORDS.index("sgl"), field), sent
            await _send(pilot, sent["alt+b"])
            assert field.cursor_position == WORDS.index("1p2d"), sent
            await _send(pilot, sent["alt+f"])
            field.action_cursor_left_word()  # where ctrl+right went, ctrl+left comes back from
            assert field.cursor_position == WORDS.index("1p2d"), sent
            assert field.value == WORDS
            await _send(pilot, sent["escape"])  # Esc alone: still leaves the filter
            assert app.focused is not field, sent


async def test_outside_a_text_field_alt_b_is_no_escape() -> None:
    app = make_app(NVIDIA.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert not isinstance(app.focused, Input)
        await _send(pilot, KITTY["alt+b"])
        assert app.screen.query_one("#steps").current == "step-recipe"  # type: ignore[attr-defined]
