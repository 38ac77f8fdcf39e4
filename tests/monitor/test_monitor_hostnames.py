"""Slurm's host names in the Monitor: the job's own `endpoints.json` names its nodes (else Slurm's node list
does, before the job wrote it), and the job view shows them where an operator looks for a node: the worker
table's NODE column and beside each node's row of the GPU grid (`ssh`, `sinfo` and the logs use them)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from textual.coordinate import Coordinate
from textual.geometry import Region

from srt_tui.core.jobdir.contract import JobMeta, PlanDoc, parse_endpoints
from srt_tui.monitor.feeds.live import LiveFeed
from srt_tui.monitor.snapshot.build import hostnames
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.monitor.statuses.context import JobFiles
from srt_tui.slurm.client import JobState
from srt_tui.tui.monitor.live_grid import LiveGpuGrid
from srt_tui.tui.monitor.screen import MonitorScreen
from srt_tui.tui.monitor.worker_table import WorkerTable
from tests.mock.mockprocs import Worker
from tests.monitor import frozen
from tests.monitor.jobdirs import write_agg_job
from tests.monitor.tui_apps import fed_app, frozen_app, highlighted_worker_detail


def _files(endpoints: str | None) -> JobFiles:
    doc = parse_endpoints(Path("endpoints.json"), endpoints) if endpoints is not None else None
    return JobFiles("7", Path("/nowhere"), JobMeta("7"), PlanDoc(), doc, [])


def test_the_job_names_its_nodes_else_slurm_does() -> None:
    slurm = JobState("7", "job", "RUNNING", nodes=("gpu-a", "gpu-b"))
    written = '{"workers": [], "nodes": [{"index": 1, "hostname": "h-1"}, {"index": 0, "hostname": "h-0"}]}'
    assert hostnames(_files(written), slurm) == ("h-0", "h-1")  # by index, not by the file's order
    assert hostnames(_files(None), slurm) == ("gpu-a", "gpu-b")  # before the job wrote endpoints.json
    assert hostnames(_files('{"workers": [], "nodes": [{"index": 0}]}'), slurm) == ("gpu-a", "gpu-b")
    assert hostnames(_files(None), None) == ()


@pytest.mark.parametrize("size", [(120, 36), (80, 24)])
async def test_the_job_view_names_the_node_as_slurm_does(worker: Worker, tmp_path: Path, size: tuple[int, int]) -> None:
    job = write_agg_job(tmp_path / "job", "local-h1", [(worker, 0)], nodes=1)  # its node: `local0`
    feed = LiveFeed(monitor_factory=lambda: Monitor(None, connect_timeout=0.5, budget_s=0.5, backoff_cap=0.5))
    app = fed_app(feed, {"local-h1": job}, interval=0.3)
    async with app.run_test(size=size) as pilot:
        screen = app.screen
        assert isinstance(screen, MonitorScreen)
        for _ in range(50):
            await pilot.pause(0.1)
            if (snap := screen.snapshot_of("local-h1")) is not None and snap.hostnames:
                break
        screen.open_job("local-h1")
        await pilot.pause(0.3)
        table = screen.query_one(WorkerTable)
        assert "NODE" in [str(c.label) for c in table.columns.values()], "NODE gave way"
        assert str(table.get_cell_at(Coordinate(0, [k.value for k in table.columns].index("node")))) == "local0"
        grid = screen.query_one(LiveGpuGrid)
        lines = [s.text for s in grid.render_lines(Region(0, 0, grid.size.width, grid.size.height))]
        assert any(line.startswith("local0 ") for line in lines), lines  # the row is named by its host


def test_a_node_is_named_by_slurm_not_placed_or_the_plans() -> None:
    """Slurm's name once known; `—` while the job waits in the queue (Slurm has named no node: `node0` was an
    invented name); the plan's `nodeK` for a job that runs but has not said its nodes' names."""
    from srt_tui.monitor.cells import NOT_PLACED, node_label

    pending = frozen.nvidia("pending")
    assert not pending.placed and node_label(pending, 1) == NOT_PLACED
    running = frozen.nvidia("healthy")
    assert node_label(running, 1) == "h100-018"
    assert node_label(replace(running, hostnames=()), 1) == "node1"  # started, names not known
    assert node_label(replace(pending, slurm_state="CANCELLED", stage="cancelled"), 0) == NOT_PLACED


async def test_a_queued_jobs_view_says_its_nodes_are_not_placed() -> None:
    """A PENDING Slurm job: no `node0` in the NODE column, the GPU grid or the worker detail."""
    not_placed = "—"
    snap = frozen.nvidia("pending")
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(WorkerTable)
        column = [k.value for k in table.columns].index("node")
        assert {str(table.get_cell_at(Coordinate(r, column))) for r in range(table.row_count)} == {not_placed}
        grid = app.screen.query_one(LiveGpuGrid)
        lines = [s.text for s in grid.render_lines(Region(0, 0, grid.size.width, grid.size.height))]
        assert not any("node" in line for line in lines), lines
        assert [line.split()[0] for line in lines[1:3]] == [not_placed, not_placed], lines
        assert "not placed yet" in lines[-1], lines
    body = await highlighted_worker_detail(snap)
    assert "node, not placed yet" in body and "node0" not in body, body
