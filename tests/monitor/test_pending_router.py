"""A queued job's router does not exist yet: its ROUTER cell reads `-` (as HEALTHY does), not `?` (operator pass
op9, 14), in `srt-tui status`, the Monitor's jobs list and the job view's router panel alike."""

from __future__ import annotations

from dataclasses import replace

import pytest

from srt_tui.cli.jobs import print_table
from srt_tui.monitor import cells
from srt_tui.monitor.model import JobSnapshot
from srt_tui.tui.monitor import jobs_model
from tests.monitor import frozen
from tests.monitor.tui_apps import router_panel_text


def _queued() -> JobSnapshot:
    """The 2P1D job as the Monitor sees it while Slurm keeps it pending: a planned router nothing has asked."""
    snap = frozen.nvidia("pending")
    assert snap.router is not None and snap.router.up is None and snap.stage == "pending"
    return snap


def test_status_and_the_jobs_list_say_dash_for_a_queued_router(capsys: pytest.CaptureFixture[str]) -> None:
    snap = _queued()
    assert cells.router_cell(snap) == "-" and cells.healthy_cell(snap) == "-"
    assert jobs_model.cell(snap, "router", frozen.NOW) == "-"
    print_table([snap], None)
    header, row = capsys.readouterr().out.splitlines()[:2]
    at = header.index("ROUTER")
    assert row[at:].split()[0] == "-", (header, row)
    # once it runs, the same cells say what the router answers (`?` until it is asked)
    running = replace(snap, stage="starting", slurm_state="RUNNING")
    assert cells.router_cell(running) != "-" and jobs_model.cell(running, "router", frozen.NOW) != "-"


async def test_the_router_panel_says_not_started_for_a_queued_job() -> None:
    snap = _queued()
    text = await router_panel_text(snap, 60)
    assert "○ not started" in text and "unknown" not in text and "registered" not in text, text
