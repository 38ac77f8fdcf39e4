"""j/k/g/G and Home/End move the row cursor in the Monitor's Workers and Results tables as in every other
table (one RowTable, issue 11 item 6)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from srt_tui.tui.monitor.results_view import ResultsScreen
from tests.monitor import frozen, resultdirs
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import settle
from tests.tui.tui_helpers import walk_rows


async def test_workers_table_moves_with_vim_keys() -> None:
    app = frozen_app([frozen.nvidia()], open_job="81234")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await walk_rows(pilot, app.screen.query_one("#job-workers", DataTable))


async def test_results_table_moves_with_vim_keys(tmp_path: Path) -> None:
    path = resultdirs.single(tmp_path)
    app = frozen_app([frozen.frozen_job("81234", "nvidia/h100-2p1d-sglang.yaml", "nvidia-h100", job_dir=path)])
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("R")
        await settle(pilot)
        assert isinstance(app.screen, ResultsScreen)
        await walk_rows(pilot, app.screen.query_one("#results-table", DataTable))
