"""The Monitor's first open while slurmctld does not answer, on the real local Slurm (s35, issue 21 leftovers): a
slow Slurm is shown, not waited on. slurmctld is stopped (SIGSTOP: it keeps its connections and answers nothing, as
a controller under load), the Monitor opened as `srt-tui` opens it (its own monitor process, every job of the job
index): the job is listed at once (`reading…`, never `No jobs yet` while the monitor's process starts), its row fills
from its files while the line under the list says Slurm has not answered; once slurmctld runs again, its state comes
in."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from tests.conftest import REPO
from tests.e2e.jobtools import apply, wait_ready
from tests.monitor.tui_apps import MonitorTestApp

pytestmark = [pytest.mark.slurm, pytest.mark.routers]
MOCKER = REPO / "recipes" / "mocker"


def _row(app: Any, job_id: str) -> dict[str, str]:
    table: DataTable[Any] = app.screen.query_one("#jobs-table", DataTable)
    keys = [str(c.value) for c in table.columns]
    rows = {str(r.value): [str(v) for v in table.get_row(r)] for r in table.rows}
    return dict(zip(keys, rows.get(job_id, [])))


def _line(app: Any) -> str:
    return str(app.screen.query_one("#jobs-status", Static).render())


async def test_the_jobs_fill_while_slurmctld_does_not_answer(cluster: Any, jobs: list[str]) -> None:
    from srt_tui.tui.monitor.screen import MonitorScreen

    job_id, _ = apply(str(MOCKER / "mocker-agg2.yaml"), "-p", "local", "--launcher", "slurm")
    jobs.append(job_id)
    wait_ready(job_id)
    ctld = int((Path(cluster.dir) / "slurmctld.pid").read_text().strip())
    app = MonitorTestApp(lambda hub: MonitorScreen(hub, discover=True))
    os.kill(ctld, signal.SIGSTOP)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            said: dict[str, str] = {}
            seen: set[str] = set()  # what the list said before its first answer
            for _ in range(600):  # the monitor's process starts, reads the files, asks Slurm (no answer)
                await pilot.pause(0.05)
                said = _row(app, job_id)
                empty = app.screen.query_one("#jobs-empty", Static)
                seen.add(
                    str(empty.render()) if empty.display and not empty.has_class("hidden") else said.get("stage", "")
                )
                if said.get("stage", "").startswith("serving"):
                    break
            line = _line(app)
            # never `No jobs yet` with a job in the index: what is read, then the job listed, then its row
            assert not any(s.startswith("No jobs yet") for s in seen), seen
            assert "reading…" in seen, seen
            assert said.get("stage", "").startswith("serving") and said.get("healthy") == "A2/2", (said, line)
            assert said.get("slurm") != "RUNNING" and "Slurm ✗" in line, (said, line)
            os.kill(ctld, signal.SIGCONT)
            for _ in range(300):
                await pilot.pause(0.1)
                said = _row(app, job_id)
                if said.get("slurm") == "RUNNING":
                    break
            assert said.get("slurm") == "RUNNING" and "Slurm ✓" in _line(app), (said, _line(app))
    finally:
        os.kill(ctld, signal.SIGCONT)
