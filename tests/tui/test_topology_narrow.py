"""At 80×24 the Topology editor keeps every role's row on screen while Checks lists errors (issue 11,
item 2: the decode row went under a growing Checks panel)."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from tests.tui.scenarios import SCENARIOS, reach, settle, type_into
from tests.tui.tui_helpers import make_app


@pytest.mark.parametrize("extra", [(), (("decode-gpus", "3"),)], ids=["two-errors", "more-errors"])
async def test_both_roles_stay_visible_with_errors_at_80x24(extra: tuple[tuple[str, str], ...]) -> None:
    scenario = SCENARIOS["invalid"]
    app = make_app(scenario.profile)
    async with app.run_test(size=(80, 24)) as pilot:
        await reach(pilot, scenario, "topology", typed=False)
        for selector, value in extra:
            await type_into(pilot, f"#{selector}", value)
            await settle(pilot)
        screen = app.screen
        assert len(screen.query_one("#problems").problems) >= 2  # type: ignore[attr-defined]
        for inp in screen.query("#role-form Input").results(Input):
            x, y = inp.region.x, inp.region.y
            widget, _ = screen.get_widget_at(x + 1, y)
            assert widget is inp, f"{inp.id} is hidden (at {x},{y} is {widget})"
