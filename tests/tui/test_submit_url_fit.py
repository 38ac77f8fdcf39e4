"""Issue 21 polish: at 80 columns the Submit step folded its URL mid-way (`serving at http://<ip:node0` then
`>:8000`); the URL goes whole on a line of its own under its label when it does not fit beside it."""

from __future__ import annotations

from datetime import datetime

import pytest
from textual.geometry import Region

from srt_tui.tui.app import SrtTuiApp
from tests.tui.scenarios import SCENARIOS, reach


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_the_submit_steps_url_is_shown_whole(size: tuple[int, int]) -> None:
    scenario = SCENARIOS["nvidia"]
    app = SrtTuiApp(
        profile=scenario.profile,
        clock=lambda: datetime(2026, 1, 2, 3, 4, 5),
        slurm_probe=lambda: (False, "sinfo: command not found"),
        cursor_blink=False,
    )
    async with app.run_test(size=size) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        await pilot.pause()
        request = app.screen.query_one("#request")
        lines = [s.text.strip() for s in request.render_lines(Region(0, 0, request.size.width, request.size.height))]
        url = "http://<ip:node0>:8000"
        assert url in lines or f"serving at        {url}" in lines, lines
