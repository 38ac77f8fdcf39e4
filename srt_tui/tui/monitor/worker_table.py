"""Workers of a job: placement, health (direct or relayed), the router's view, request counters and a
sparkline of the request rate per worker. Fewer columns on narrow terminals."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from srt_tui.monitor import cells
from srt_tui.monitor.model import JobSnapshot, WorkerStatus
from srt_tui.widgets.layout import is_wide
from srt_tui.widgets.row_table import RowTable

SPARK_WIDTH = 12
_HEALTH_STYLE = {"healthy": "ok", "unknown": "dim"}


def mask_header(visible_devices_env: str) -> str:
    """The mask column is named for the variable it sets, `CUDA` or `ROCR` (`MASK` when unknown): no wider
    than `MASK`, so the wide table still fits 120 columns."""
    prefix = visible_devices_env.split("_", 1)[0] if visible_devices_env.endswith("_VISIBLE_DEVICES") else ""
    return prefix or "MASK"


class WorkerTable(RowTable[Text]):
    """`show(snapshot)` fills it; the highlighted worker is kept across refreshes."""

    #: Enter selects the row; the Monitor opens that worker's detail (named so `?` says what it does)
    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "select_cursor", "Worker detail", show=False)]

    COMPONENT_CLASSES: ClassVar[set[str]] = DataTable.COMPONENT_CLASSES | {
        "worker-table--ok",
        "worker-table--bad",
        "worker-table--warn",
        "worker-table--dim",
        "worker-table--spark",
    }

    DEFAULT_CSS = """
    WorkerTable > .worker-table--ok { color: $text-success; }
    WorkerTable > .worker-table--bad { color: $text-error; text-style: bold; }
    WorkerTable > .worker-table--warn { color: $text-warning; }
    WorkerTable > .worker-table--dim { color: $text-muted; }
    WorkerTable > .worker-table--spark { color: $text-accent; }
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(cursor_type="row", zebra_stripes=True, id=id)
        self._failing: str | None = None
        self._layout: tuple[bool, str] | None = None
        self._names: list[str] = []

    def _st(self, name: str) -> Style:
        return self.get_component_rich_style(f"worker-table--{name}", partial=True)

    @property
    def highlighted_worker(self) -> str | None:
        """Name of the worker under the cursor."""
        if not self._names or not 0 <= self.cursor_row < len(self._names):
            return None
        return self._names[self.cursor_row]

    def _columns(self, wide: bool, mask: str) -> None:
        """Wide: every column. Narrow (80 columns): the mask stays (CUDA vs ROCR is the vendor difference an
        operator checks), the trend goes."""
        if self._layout == (wide, mask):
            return
        self.clear(columns=True)
        if wide:
            self.add_columns(
                "WORKER", "ROLE", "NODE", "GPUS", mask, "PORT", "HEALTH", "SRC", "RTR",
                "REQ", "OK", "FAIL", "REQ/S", "RUN", "Q", "TREND",
            )  # fmt: skip
        else:
            self.add_columns("WORKER", "NODE", mask, "HEALTH", "RTR", "REQ", "FAIL", "REQ/S", "RUN")
        self._layout = (wide, mask)

    def show(self, snap: JobSnapshot | None, width: int) -> None:
        """Fill the table from a snapshot, keeping the cursor on the same worker."""
        keep = self.highlighted_worker
        wide = is_wide(width)
        self._columns(wide, mask_header(snap.visible_devices_env if snap is not None else ""))
        self.clear()
        self._names = []
        if snap is None:
            return
        for w in snap.workers:
            self.add_row(*self._row(w, wide), key=w.name)
            self._names.append(w.name)
        failing = next((w.name for w in snap.workers if snap.failure_log and w.log == snap.failure_log), None)
        if failing is not None and failing != self._failing:
            keep = failing  # a job that just failed: put the cursor (and so `l`) on the worker that failed it
        self._failing = failing
        if keep in self._names:
            self.move_cursor(row=self._names.index(keep), animate=False)

    def _row(self, w: WorkerStatus, wide: bool) -> list[Text]:
        health_style = self._st(_HEALTH_STYLE.get(w.health, "bad"))
        health = Text(w.health + ("*" if w.source == "relay" and not wide else ""), style=health_style)
        if w.stale and w.health == "healthy":
            health.stylize(self._st("warn"))
        rtr = Text("-" if w.router_healthy is None else "✓" if w.router_healthy else "✗")
        rtr.stylize(self._st("dim" if w.router_healthy is None else "ok" if w.router_healthy else "bad"))
        failed = Text(cells.number(w.requests_failed), style=self._st("bad") if w.requests_failed else Style())
        spark = Text(cells.sparkline(w.spark, SPARK_WIDTH), style=self._st("spark"))
        node = Text(f"node{w.node_index}")
        if not wide:
            return [
                Text(w.name), node, Text(w.mask or "-"), health, rtr,
                Text(cells.number(w.requests_total)), failed, Text(cells.rate(w.rate_per_s)),
                Text(cells.number(w.running)),
            ]  # fmt: skip
        return [
            Text(w.name), Text(w.role), node, Text(cells.gpus(w.gpus)), Text(w.mask or "-"),
            Text(str(w.port) if w.port else "-"), health, Text(w.source or "-", style=self._st("dim")), rtr,
            Text(cells.number(w.requests_total)), Text(cells.number(w.requests_ok)), failed,
            Text(cells.rate(w.rate_per_s)), Text(cells.number(w.running)), Text(cells.number(w.queued)), spark,
        ]  # fmt: skip
