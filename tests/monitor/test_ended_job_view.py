"""A job that has ended reads as ended, not as a fleet of dead workers (operator pass, issue 21).

A completed mocker-1p1d showed every worker `down` in red and every GPU of the grid in the error colour
under a `■ not healthy` legend: the screen of a job that did what it should looked like an outage. Its
workers now read `ended` (muted), and only the worker that failed a job keeps the fault's colour.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from textual.geometry import Region

from srt_tui.monitor.model import JobSnapshot
from srt_tui.tui.monitor.live_grid import LiveGpuGrid
from srt_tui.tui.monitor.worker_table import WorkerTable
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app, highlighted_worker_detail


def _text(widget: Any) -> str:
    return "\n".join(s.text for s in widget.render_lines(Region(0, 0, widget.size.width, widget.size.height)))


def _health(table: WorkerTable) -> dict[str, str]:
    return {name: str(table.get_cell(name, "health")) for name in (str(k.value) for k in table.rows)}


async def _shown(snap: JobSnapshot) -> tuple[dict[str, str], str]:
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        return _health(app.screen.query_one(WorkerTable)), _text(app.screen.query_one(LiveGpuGrid))


async def test_a_completed_job_shows_its_workers_ended() -> None:
    done = replace(frozen.nvidia("failed", "81300"), stage="completed", slurm_state="COMPLETED", stage_detail="")
    health, grid = await _shown(done)
    assert set(health.values()) == {"ended"}, health
    assert "ended" in grid and "not healthy" not in grid, grid


async def test_a_failed_job_marks_only_the_worker_that_failed_it() -> None:
    failed = frozen.nvidia("failed", "81299")
    culprit = failed.workers[-1]
    failed = replace(failed, failure_log=culprit.log)
    health, grid = await _shown(failed)
    assert health.pop(culprit.name) == "down"
    assert set(health.values()) == {"ended"}, health
    assert "failed the job" in grid, grid


async def test_a_running_job_keeps_its_health() -> None:
    health, grid = await _shown(frozen.nvidia("degraded"))
    assert "down" in health.values() and "ended" not in health.values()
    assert "not healthy" in grid


async def test_an_ended_jobs_worker_detail_reads_ended_as_its_table_row() -> None:
    """The detail of an ended job's worker said `health  down` in the fault's colour while its row read
    `ended`: both say `ended`."""
    done = replace(frozen.nvidia("failed", "81300"), stage="completed", slurm_state="COMPLETED", stage_detail="")
    body = await highlighted_worker_detail(done)
    assert "health  ended" in body and "health  down" not in body, body


async def test_the_worker_that_failed_the_job_keeps_its_health_in_its_detail() -> None:
    """As its row does: the detail of the worker whose log says why the job failed reads its health, not `ended`."""
    failed = frozen.nvidia("failed", "81299")
    culprit = failed.workers[-1]
    body = await highlighted_worker_detail(replace(failed, failure_log=culprit.log))
    assert culprit.name in body and "health  down" in body and "health  ended" not in body, body


async def test_an_ended_jobs_counters_from_its_final_scrape_put_no_relay_mark_on_the_health() -> None:
    """Operator pass: the worker that failed a job read `down*` at 80 columns and nothing said what `*` meant. An
    ended job's `relay` source is its final scrape's counters, not relayed health: no mark. While a job runs the
    mark stays, with its legend under the table."""
    failed = frozen.nvidia("failed", "81299")
    culprit = failed.workers[-1]
    failed = replace(failed, failure_log=culprit.log, workers=tuple(replace(w, source="relay") for w in failed.workers))
    relayed = frozen.nvidia("relayed", "81298")
    for snap, mark in ((failed, False), (relayed, True)):
        app = frozen_app([snap], open_job=snap.job_id)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            table = app.screen.query_one(WorkerTable)
            marked = [h for h in _health(table).values() if h.endswith("*")]
            assert bool(marked) == mark and bool(table.border_subtitle) == mark, (marked, table.border_subtitle)
