"""A queued job says how long it has waited in the jobs list, in `srt-tui status` and in the job view (issue 21,
new-operator pass op11): the list and `status` said `-` in ELAPSED while the job view said `queued 32s` and the docs
promise `queued 2m10s`. One function (`cells.elapsed`) says it for all three; where a table's column is too narrow
for it (the list's: no column leaves for it, op11), `q 2m10s` (`cells.waited`): the figure alone, `2m10s`, read as
a run time with nothing telling it was time queued (new-operator pass, s36)."""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from srt_tui.cli.jobs import print_table
from srt_tui.monitor import cells
from srt_tui.monitor.model import iso_utc
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import settle

PENDING = next(s for s in frozen.fleet() if s.stage == "pending")  # submitted 7m30s before the frozen clock


def test_one_function_says_how_long_a_queued_job_has_waited() -> None:
    now = frozen.NOW
    assert cells.elapsed(PENDING, now) == "queued 7m30s"
    assert cells.elapsed_words(PENDING, now) == "queued 7m30s"
    running = frozen.nvidia("healthy")
    assert cells.elapsed(running, now) == "44m37s" and cells.elapsed_words(running, now) == "elapsed 44m37s"
    gone = replace(PENDING, stage="cancelled", slurm_state="CANCELLED", ended_at="2026-03-01T11:58:00Z")
    assert cells.elapsed(gone, now) == "-"  # cancelled in the queue: it never ran, and waits no more


@pytest.mark.parametrize(("size", "said"), [((132, 43), "queued 7m30s"), ((120, 36), "q 7m30s"), ((80, 24), "q 7m30s")])
async def test_the_jobs_list_says_it(size: tuple[int, int], said: str) -> None:
    """`queued 7m30s` with the width left over; else `q 7m30s`, dimmed, no wider than the header (op11: `queued`
    alone dropped the figure, and `queued 7m30s` pushed PROFILE out at 120 columns)."""
    app = frozen_app([replace(s, name="mocker-1p1d") for s in frozen.fleet()])  # names that leave width over
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        table: DataTable[Any] = app.screen.query_one("#jobs-table", DataTable)
        assert "ELAPSED" in [str(c.label) for c in table.columns.values()]
        cell = table.get_cell(PENDING.job_id, "elapsed")
        assert str(cell).rstrip() == said and cell.style == table.style_of("dim")  # type: ignore[attr-defined]
        assert str(table.get_cell("81234", "elapsed")).rstrip() == "44m37s"


async def test_the_job_view_says_it() -> None:
    app = frozen_app([PENDING], open_job=PENDING.job_id)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert "queued 7m30s" in str(app.screen.query_one("#job-summary", Static).render())


def test_status_says_it() -> None:
    submitted = datetime.now().astimezone() - timedelta(seconds=130)
    queued = replace(PENDING, submitted_at=iso_utc(submitted.timestamp()), expected_start_at="")
    for width in (None, 132, 80):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            print_table([queued], None, width=width)
        row = next(line for line in out.getvalue().splitlines() if line.startswith(PENDING.job_id))
        # narrowed, `q 2m10s`, as the jobs list says it (`queued` alone dropped the figure)
        assert re.search(r"\bqueued 2m1\ds\b" if width != 80 else r"PENDING .* -  +q 2m1\ds$", row), row
