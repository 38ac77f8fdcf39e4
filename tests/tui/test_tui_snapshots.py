"""Snapshots of every wizard step with an NVIDIA and an AMD profile, at 120×36 and 80×24, plus an invalid
topology showing its messages. Review changes with `--snapshot-report` before `--snapshot-update`."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from tests.tui.scenarios import SCENARIOS, STEP_ORDER, reach
from tests.tui.tui_helpers import make_app

SIZES = {"120x36": (120, 36), "80x24": (80, 24)}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("step", STEP_ORDER)
@pytest.mark.parametrize("vendor", ["nvidia", "amd"])
def test_step(snap_compare: Any, vendor: str, step: str, size: str) -> None:
    scenario = SCENARIOS[vendor]

    async def run_before(pilot: Pilot[None]) -> None:
        await reach(pilot, scenario, step, typed=False)

    assert snap_compare(make_app(scenario.profile), run_before=run_before, terminal_size=SIZES[size])


@pytest.mark.parametrize("size", list(SIZES))
def test_invalid_topology_shows_its_messages(snap_compare: Any, size: str) -> None:
    scenario = SCENARIOS["invalid"]

    async def run_before(pilot: Pilot[None]) -> None:
        await reach(pilot, scenario, "topology", typed=False)

    assert snap_compare(make_app(scenario.profile), run_before=run_before, terminal_size=SIZES[size])
