"""The README's key sequences do what it says (issue 21, new-operator pass op9, defect 5): it said "`/local` Enter …
opens the recipe list" and "`/1p2d`, Enter, Enter", and the profile list's filter needed a second Enter where the
recipe list's took one. Every `/filter` sequence the README writes is found here and typed into the app in one
burst, as an operator copying it would; a sequence added or changed there fails until it is replayed here."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from textual.widgets import Tree

from srt_tui.tui.app import SrtTuiApp
from srt_tui.tui.launch.screen import LaunchScreen
from tests.conftest import REPO
from tests.tui.scenarios import settle
from tests.tui.tui_helpers import burst, make_app

README = (REPO / "README.md").read_text(encoding="utf-8")
#: a filter typed after `/`, then the keys named after it: "`/1p2d` Enter, ctrl+n"
SEQUENCE = re.compile(r"`(/[^`]+)`((?:,?\s+(?:Enter|ctrl\+n|Esc)\b)+)")
KEY_NAMES = {"Enter": "enter", "ctrl+n": "ctrl+n", "Esc": "escape"}


def _keys(typed: str, named: str) -> list[str]:
    return [*typed, *(KEY_NAMES[word] for word in re.findall(r"Enter|ctrl\+n|Esc", named))]


def _sequences() -> dict[str, list[str]]:
    """Each sequence the README writes (as written, spaces joined) and its keys."""
    return {" ".join(m.group(0).split()): _keys(m.group(1), m.group(2)) for m in SEQUENCE.finditer(README)}


def _cursor(screen: LaunchScreen) -> str | None:
    node = screen.query_one("#recipe-tree", Tree).cursor_node
    return node.data.label if node is not None and node.data is not None else None


async def _on_the_recipe_list_of_local(app: SrtTuiApp, screen: LaunchScreen, submitted: list[Any]) -> None:
    assert screen.index == 1 and screen.state.profile is not None and screen.state.profile.name == "local"
    assert _cursor(screen) == "mocker-1p1d"  # what the README says the recipe list highlights


async def _submitted_mocker_1p2d(app: SrtTuiApp, screen: LaunchScreen, submitted: list[Any]) -> None:
    assert submitted == [("mocker-1p2d", "1P2D", "local")], (submitted, screen.index)


#: each sequence: the profile the app is started with (None: the first run, on the profile list), and what holds after
REPLAYS: dict[str, tuple[str | None, Callable[[SrtTuiApp, LaunchScreen, list[Any]], Any]]] = {
    "`/local` Enter": (None, _on_the_recipe_list_of_local),
    "`/1p2d` Enter, ctrl+n, ctrl+n, ctrl+n": ("local", _submitted_mocker_1p2d),
}


def test_every_sequence_the_readme_writes_is_replayed() -> None:
    assert set(_sequences()) == set(REPLAYS), _sequences()


@pytest.mark.parametrize("written", list(REPLAYS))
async def test_a_readme_sequence_does_what_the_readme_says(monkeypatch: pytest.MonkeyPatch, written: str) -> None:
    from srt_tui.tui.launch.steps.submit_step import SubmitStep

    submitted: list[Any] = []

    def submit(self: SubmitStep, prepared: Any, launcher: str, past: str = "") -> None:  # not a job
        submitted.append((prepared.plan.name, prepared.plan.topology, launcher))

    monkeypatch.setattr(SubmitStep, "submit", submit)
    profile, holds = REPLAYS[written]
    app = make_app(profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        burst(app, *_sequences()[written])
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LaunchScreen)
        await holds(app, screen, submitted)


async def test_enter_on_the_first_run_opens_the_recipe_list() -> None:
    """The first run's second step: "Enter …: the recipe list, `mocker-1p1d` highlighted"."""
    assert "\n2. Enter (" in README
    app = make_app(None)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        burst(app, "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LaunchScreen)
        await _on_the_recipe_list_of_local(app, screen, [])


async def test_enter_in_the_profile_filter_chooses_the_profile_it_highlights() -> None:
    """`/h100` Enter chooses `nvidia-h100`, though not named exactly (the profile list kept the row and needed a
    second Enter)."""
    app = make_app(None)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        burst(app, "/", *"h100", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LaunchScreen) and screen.index == 1
        assert screen.state.profile is not None and screen.state.profile.name == "nvidia-h100"
