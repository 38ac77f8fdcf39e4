"""The header follows Slurm over time: the app asks again on an interval, in a worker, and shows the newest answer."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from srt_tui.tui.app import SrtTuiApp

from .tui_helpers import FIXED_NOW


class QuickRecheck(SrtTuiApp):
    SLURM_RECHECK_S: ClassVar[float] = 0.2


async def _wait_for(app: SrtTuiApp, state: str) -> None:
    for _ in range(100):
        if app.context.slurm_state == state:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"header stayed {app.context.slurm_state!r}, expected {state!r}")


async def test_the_header_follows_a_controller_that_goes_away_and_comes_back() -> None:
    """The controller answers, then does not, then does again; each state holds until the header has shown it
    (a loaded machine once missed a down that lasted one recheck)."""
    answers = {"up": (True, "slurmctld answered"), "down": (False, "slurmctld not reachable")}
    now = ["up"]
    asked: list[int] = []

    def probe() -> tuple[bool, str]:
        asked.append(1)
        return answers[now[0]]

    app = QuickRecheck(clock=lambda: FIXED_NOW, slurm_probe=probe, cursor_blink=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await _wait_for(app, "up")
        now[0] = "down"
        await _wait_for(app, "down")
        assert app.context.slurm_reason == "slurmctld not reachable"
        now[0] = "up"
        await _wait_for(app, "up")
        await pilot.pause()
    assert len(asked) >= 3


async def test_no_recheck_when_the_check_is_off() -> None:
    def probe() -> tuple[bool, str]:
        raise AssertionError("the check is off: Slurm must not be asked")

    app = QuickRecheck(clock=lambda: FIXED_NOW, check_slurm=False, slurm_probe=probe, cursor_blink=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await asyncio.sleep(0.5)
        await pilot.pause()
        assert app.context.slurm_state == "off"
