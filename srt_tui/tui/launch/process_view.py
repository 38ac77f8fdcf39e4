"""Every process of a plan (name, role, node, GPUs, mask, port) and the command and environment of the
highlighted one, secrets masked."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Static

from srt_tui.widgets.row_table import RowTable

if TYPE_CHECKING:
    from srt_tui.core.plan.model import JobPlan, ProcessPlan


class ProcessView(Vertical):
    """A process table over a detail pane."""

    DEFAULT_CSS = """
    ProcessView { height: 1fr; }
    ProcessView > DataTable { height: auto; max-height: 50%; }
    ProcessView > VerticalScroll { height: 1fr; border-top: solid $foreground 20%; }
    ProcessView .process-detail { width: 1fr; height: auto; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(id=id, classes=classes)
        self._procs: list[ProcessPlan] = []
        self._mask_var = "CUDA_VISIBLE_DEVICES"

    def compose(self) -> ComposeResult:
        table: DataTable[str] = RowTable(cursor_type="row", zebra_stripes=True, id="process-table")
        table.add_columns("NAME", "ROLE", "NODE", "GPUS", "MASK", "PORT", "URL")
        yield table
        with VerticalScroll():
            yield Static("", classes="process-detail", id="process-detail")

    def show(self, plan: JobPlan) -> None:
        """Fill the table from a plan and show the first process."""
        from srt_tui.core.text.views import table_rows

        self._procs = plan.processes()
        self._mask_var = plan.visible_devices_env
        table = self.query_one("#process-table", DataTable)
        table.clear()
        for i, row in enumerate(table_rows(plan)):
            table.add_row(*row, key=str(i))
        self._detail(0)

    @on(DataTable.RowHighlighted, "#process-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._detail(event.cursor_row)

    def _detail(self, index: int) -> None:
        detail = self.query_one("#process-detail", Static)
        if not self._procs or not 0 <= index < len(self._procs):
            detail.update("")
            return
        p = self._procs[index]
        head = Text()
        head.append(f"{p.name}", style="bold")
        head.append(f"  node{p.node_index} · log {p.log}\n", style="dim")
        head.append("command", style="bold")
        # a long command wraps under itself, not back at column 1 where it would read as the next section
        parts: list[RenderableType] = [head, Padding(Text(shlex.join(p.command)), (0, 0, 0, 2))]
        parts.append(Text("environment", style="bold"))
        env = p.shown_env()
        for k, v in env.items():
            line = Text.assemble((k, "bold" if k == self._mask_var else ""), f"={v}")
            parts.append(Padding(line, (0, 0, 0, 2)))  # a long value wraps under its own line's start
        if not env:
            parts.append(Text("  (none)", style="dim"))
        detail.update(Group(*parts))
