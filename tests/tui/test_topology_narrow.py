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


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_the_gpu_plan_title_is_whole_at_any_width(size: tuple[int, int]) -> None:
    """Operator pass (issue 21): at 80 columns the GPU plan's border title was cut to `3 node(s) × 8 …`, a
    count without its unit. It is shortened whole instead (`3 × 8 GPUs`), and is whole at 120 columns."""
    from textual.geometry import Region

    from tests.tui.scenarios import Scenario

    app = make_app("local")
    async with app.run_test(size=size) as pilot:
        await reach(pilot, Scenario("local", "local", "mocker-1p2d"), "topology", typed=False)
        await settle(pilot)
        box = app.screen.query_one("#grid-box")
        top = box.render_lines(Region(0, 0, box.size.width, 1))[0].text
        assert "…" not in top, top
        want = "3 node(s) × 8 GPUs" if size[0] >= 120 else "3 × 8 GPUs"
        assert f"GPU plan · 1P2D · {want}" in top, top


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_the_step_bar_note_keeps_whole_parts(size: tuple[int, int]) -> None:
    """Operator pass (issue 21): at 80 columns the step bar's note was cut to `local ·`. Whole parts only:
    the profile (the header names it) gives way first, so the recipe stays."""
    from textual.geometry import Region

    from srt_tui.widgets.step_bar import StepBar
    from tests.tui.scenarios import Scenario

    app = make_app("local")
    async with app.run_test(size=size) as pilot:
        await reach(pilot, Scenario("local", "local", "mocker-1p2d"), "topology", typed=False)
        await settle(pilot)
        bar = app.screen.query_one(StepBar)
        line = bar.render_lines(Region(0, 0, bar.size.width, 1))[0].text.rstrip()
        assert not line.endswith(("·", "…")), line
        want = "local · mocker-1p2d · 1P2D" if size[0] >= 120 else "mocker-1p2d"
        assert line.endswith(want), line
