"""Role fields on the Topology step are counts (issue 21, defect 7): letters typed there are refused as they
are typed (`82lq` in GPUs was kept, and `q` did not quit either), so the field keeps digits only."""

from __future__ import annotations

from textual.widgets import Input

from tests.tui.scenarios import SCENARIOS, reach
from tests.tui.tui_helpers import make_app


async def test_numeric_fields_take_digits_only() -> None:
    scenario = SCENARIOS["nvidia"]
    app = make_app(scenario.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "topology", typed=False)
        box = app.screen.query_one("#prefill-gpus", Input)
        box.focus()
        await pilot.pause()
        box.select_all()
        await pilot.press("8", "2", "l", "q", "x")
        await pilot.pause()
        assert box.value == "82"
        assert app.is_running  # `q` in a field is text, refused here, never Quit


async def test_a_burst_after_backspace_keeps_its_order() -> None:
    """Issue 21 defect 9: `BSpace 4` arriving at once (tmux, ssh) left the field empty — Textual ran the
    Backspace binding after the `4` it had already inserted. Both keys are queued before either is handled."""
    from textual import events

    scenario = SCENARIOS["nvidia"]
    app = make_app(scenario.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "topology", typed=False)
        box = app.screen.query_one("#prefill-gpus", Input)
        box.focus()
        await pilot.pause()
        box.cursor_position = len(box.value)  # `4`, the cursor after it
        await pilot.pause()
        for key, char in (("backspace", "\x7f"), ("7", "7")):
            app.post_message(events.Key(key, char))
        await pilot.pause()
        await pilot.pause()
        assert box.value == "7"
