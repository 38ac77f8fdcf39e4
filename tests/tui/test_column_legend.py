"""Help names every column of the Monitor's tables (issue 21, new-operator pass): the jobs list and the workers
table head their columns SRC, RTR, Q, TREND, OK, ERR … and Help said what none of them meant. Its legend is read
from the column definitions the tables are drawn with, so every header drawn at any width (the sort arrow aside, the
mask's CUDA or ROCR included) is in Help with its meaning."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from textual.widgets import Static

from srt_tui.core.spec.profile import load_profile
from srt_tui.tui.help_screen import HelpScreen
from srt_tui.tui.monitor import jobs_model
from srt_tui.tui.monitor.jobs_model import SORTS
from srt_tui.tui.monitor.worker_table import COLUMNS, WorkerTable, mask_header
from srt_tui.widgets.fit_columns import NO_HEADER
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import settle

PROFILES = Path(__file__).resolve().parents[2] / "profiles"
#: the terminal widths the tables are drawn at here
WIDTHS = range(60, 221, 8)


def _words(text: str) -> str:
    """``text`` with every run of blanks and line ends one blank (a meaning wraps in its column)."""
    return " ".join(text.split())


async def test_help_says_what_every_header_of_the_monitors_tables_means() -> None:
    snaps = [*frozen.fleet(), frozen.amd()]
    app = frozen_app(snaps, open_job=snaps[0].job_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        now = frozen.fixed_clock()
        drawn: set[str] = set()  # every header the two tables are drawn with, at every width
        for width in WIDTHS:
            for sort in SORTS:
                for reverse in (False, True):
                    cols, _ = jobs_model.columns(width, snaps, now, sort, reverse)
                    drawn |= {c.header.removesuffix(" ↓").removesuffix(" ↑").strip() or NO_HEADER for c in cols}
        table = app.screen.query_one(WorkerTable)
        for snap in snaps:
            for width in WIDTHS:
                table.show(snap, width)
                drawn |= {str(column.label) for column in table.columns.values()}
        drawn |= {mask_header(load_profile(str(p)).profile.visible_devices_env) for p in PROFILES.glob("*.yaml")}
        drawn.add(mask_header(""))  # a snapshot that does not say its variable
        assert {"SRC", "RTR", "Q", "TREND", "OK", "ERR", "ELAPSED", "CUDA", "ROCR", "MASK", NO_HEADER} <= drawn, drawn

        await pilot.press("question_mark")
        await settle(pilot)
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        console = Console(width=76, record=True)
        for legend in help_screen.query(".help-columns").results(Static):
            console.print(legend.content)
        shown = _words(console.export_text())
        meanings = {column.key: column.meaning for column in (*jobs_model.COLUMNS, *COLUMNS)}
        assert all(meanings.values()), meanings  # a column without a meaning is missing from Help
        rows = [(header, meaning) for legend in help_screen.columns for header, meaning in legend.columns]
        for header in drawn:  # in Help, and beside its meaning
            row = next(((h, m) for h, m in rows if header in h.split(", ")), None)
            assert row is not None, f"{header} is not in Help's column legend"
            assert _words(f"{row[0]} {row[1]}") in shown, row
        assert "▲ degraded" in shown and "direct (asked from here) or relay" in shown
