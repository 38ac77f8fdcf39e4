"""The wizard's Submit step shows the preflight against the cluster that answers (the real local
Slurm: 3 nodes, 8 GPUs each), before anything is submitted: a 9P9D job does not fit and says how."""

from __future__ import annotations

import io
from typing import Any

import pytest
from rich.console import Console
from textual.widgets import Static

from srt_tui.tui.launch.steps.submit_step import SubmitStep
from tests.tui.scenarios import Scenario, reach, settle
from tests.tui.tui_helpers import make_app

pytestmark = pytest.mark.slurm


@pytest.fixture
def cluster() -> Any:
    from tests.cluster import ensure_local_slurm

    return ensure_local_slurm(nodes=3)


async def test_submit_step_shows_the_preflight_before_submitting(cluster: Any) -> None:
    edits = (("prefill-workers", "9"), ("prefill-nodes", "5"), ("decode-workers", "9"), ("decode-nodes", "9"))
    too_big = Scenario("local", "local", "mocker-2p1d", edits)
    app = make_app("local", probe=(True, "slurmctld answers (cli transport)"))
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, too_big, "submit", typed=False)
        await settle(pilot)
        step = app.screen.query_one(SubmitStep)
        assert step.launcher == "local"  # the local profile's default: Slurm's checks show with Slurm chosen
        await pilot.press("up")  # Slurm (sbatch) sits above Local: the arrows choose
        await settle(pilot)
        assert step.launcher == "slurm"
        checks = {c.name: c for c in step.preflight}
        assert checks["nodes"].ok is False and "partition `gpu` has 3" in checks["nodes"].message
        assert checks["partition"].ok and checks["time"].ok
        console = Console(width=200, file=io.StringIO(), record=True, color_system=None)
        console.print(step.query_one("#request", Static).content)
        shown = console.export_text()
        assert (
            "✗ nodes: the job needs" in shown
            and "fix: choose fewer workers or nodes in the Topology step" in shown
            and "-t /" not in shown
        )
        assert "✓ partition: `gpu` exists" in shown
