"""The Preview names the model as the commands do (issue 21, pass 7): the served name and the path it is loaded
from, each labelled, next to the plan's summary."""

from __future__ import annotations

from textual.widgets import Static

from tests.tui.scenarios import Scenario, reach
from tests.tui.tui_helpers import make_app

MOCK_1P2D = Scenario("mock-1p2d", "local", "mocker-1p2d.yaml")


async def test_the_preview_names_the_served_model_and_its_path() -> None:
    app = make_app(MOCK_1P2D.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, MOCK_1P2D, "preview", typed=False)
        summary = str(app.screen.query_one("#preview-summary", Static).render())
        assert "model served as mock-model · loaded from /tmp/srt-tui/models/mock-model" in summary.splitlines()
