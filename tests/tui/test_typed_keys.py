"""Typing is safe (operator pass: keys typed fast did other things than what was typed). Every test types a burst,
all its keys queued before the first is handled, as a terminal's read delivers a fast typist's keys, a paste of
keys, `tmux send-keys` or a laggy ssh link: the app hands them out in order, each done before the next.

3. Backspace in a burst deletes where it was typed, in every kind of text field.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest
from textual.app import App
from textual.widgets import Input, Tree

from srt_tui.tui.monitor.alljobs.source import FrozenJobsSource
from tests.monitor import frozen
from tests.monitor.alljobs_frozen import FACTS, app_with, rows
from tests.monitor.tui_apps import frozen_app
from tests.setup.recorded import setup_app
from tests.tui.scenarios import SCENARIOS, reach, settle
from tests.tui.tui_helpers import burst, make_app


def _said(app: App[Any]) -> list[str]:
    return [str(n.message) for n in app._notifications]


def _cursor(tree: Tree[Any]) -> str | None:
    node = tree.cursor_node
    return node.data.label if node is not None and node.data is not None else None


# -- 3. Backspace in every kind of text field -----------------------------------------------------------------


#: each kind of field: the app, the keys that open the field (typed in the same burst) and the field
FIELDS: Mapping[str, tuple[Callable[[], App[Any]], tuple[str, ...], str]] = {
    "recipe filter": (lambda: make_app("local"), ("/",), "#recipe-filter"),
    "jobs filter": (lambda: frozen_app(frozen.fleet()), ("/",), "#jobs-filter"),
    "all-jobs filter": (lambda: app_with(FrozenJobsSource("ann", rows(), FACTS)), ("A", "/"), "#alljobs-filter"),
    "log search": (lambda: frozen_app(frozen.fleet()), ("l", "/"), "#log-search"),
    "prompt": (lambda: make_app("local"), ("o",), "#prompt-input"),
    "setup field": (setup_app, ("shift+tab",), "#opt-paths"),
}


@pytest.mark.parametrize("kind", list(FIELDS))
async def test_backspace_in_a_burst_deletes_where_it_was_typed(kind: str) -> None:
    """`mockr BSpace er-1p` in one burst gave `mockrer-1p` (Textual's Backspace is a binding, run once the key has
    bubbled up to the app, after the letters typed after it went in); even `mo`, BSpace, `ck` sent one after the
    other gave `moc` while the recipe list redrew. The keys that open the field are in the burst too."""
    make, opening, selector = FIELDS[kind]
    app = make()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        burst(app, *opening, *"mockr", "backspace", *"er-1p")
        await settle(pilot)
        field = app.screen.query_one(selector, Input)
        assert field.value == "mocker-1p", (kind, field.value)
        burst(app, "backspace", *"2d", "backspace", "backspace", "d")
        await settle(pilot)
        assert field.value == "mocker-1d", (kind, field.value)


async def test_backspace_in_a_burst_on_a_topology_field() -> None:
    """The wizard's role fields (counts): `1 2 BSpace 3` at once is `13`."""
    scenario = SCENARIOS["nvidia"]
    app = make_app(scenario.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "topology", typed=False)
        box = app.screen.query_one("#prefill-gpus", Input)
        box.focus()
        await pilot.pause()
        box.select_all()
        burst(app, "1", "2", "backspace", "3", "backspace", "backspace", "4")
        await settle(pilot)
        assert box.value == "4"
