"""The launcher choice reads without colour (`●` chosen, `○` not, the cursor reversed) and the keys
select what the screen says: a monochrome snapshot and a Pilot walk of Down/Enter."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import RadioButton

from srt_tui.tui.launch.steps.submit_step import SubmitStep
from tests.tui.scenarios import SCENARIOS, reach
from tests.tui.tui_helpers import make_app

SLURM_UP = (True, "sinfo answered")


def _marks(app: Any) -> dict[str, str]:
    """What each launcher option shows in front of its label (no colour involved)."""
    return {
        b.id or "": str(b.render()).strip()[1]
        for b in app.screen.query(RadioButton)
        if b.id in ("launcher-slurm", "launcher-local")
    }


def test_launcher_choice_in_monochrome(snap_compare: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """NO_COLOR: Local chosen (●), Slurm not (○), the cursor on Local reversed."""
    monkeypatch.setenv("NO_COLOR", "1")
    scenario = SCENARIOS["nvidia"]

    async def run_before(pilot: Pilot[None]) -> None:
        await reach(pilot, scenario, "submit", typed=False)
        await pilot.press("down", "enter")

    assert snap_compare(make_app(scenario.profile, probe=SLURM_UP), run_before=run_before, terminal_size=(80, 24))


async def test_down_enter_selects_what_the_marks_say() -> None:
    scenario = SCENARIOS["nvidia"]
    app = make_app(scenario.profile, probe=SLURM_UP)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        step = app.screen.query_one(SubmitStep)
        assert step.launcher == "slurm" and _marks(app) == {"launcher-slurm": "●", "launcher-local": "○"}
        await pilot.press("down", "enter")
        assert step.launcher == "local" and _marks(app) == {"launcher-slurm": "○", "launcher-local": "●"}
        await pilot.press("down", "enter")  # wraps to Slurm: the marks follow what is chosen
        assert step.launcher == "slurm" and _marks(app) == {"launcher-slurm": "●", "launcher-local": "○"}
