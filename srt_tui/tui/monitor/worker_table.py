"""Workers of a job: placement, health (direct or relayed), the router's view, request counters and a
sparkline of the request rate per worker. Columns give way by priority on narrow terminals."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import DataTable

from srt_tui.monitor import cells
from srt_tui.monitor.model import JobSnapshot, WorkerStatus
from srt_tui.monitor.statuses.history import RATE_WINDOW_S, SPARK_POINTS, SPARK_SLOT_S, WINDOW_S
from srt_tui.widgets.fit_columns import FitColumn, fit, natural_widths
from srt_tui.widgets.row_table import RowTable

#: a bar per slot of the sparklines' window: the line spans the figures' minute
SPARK_WIDTH = SPARK_POINTS
#: the mask column's header for the two visibility variables the shipped profiles set (`mask_header`)
MASK_HEADERS = ("CUDA", "ROCR")
#: the Workers panel's border and padding, and the table's scrollbar
PANEL = 5
#: every column; `priority` 0 always shown, higher numbers give way first (the mask stays long: CUDA vs
#: ROCR is the vendor difference an operator checks; where health came from goes first); each says what its header
#: means (Help's column legend is read from here)
COLUMNS: tuple[FitColumn, ...] = (
    FitColumn("worker", "WORKER", 0, 24, meaning="the worker: its role and number (prefill_0, decode_1, agg_0)"),
    FitColumn("role", "ROLE", 5, meaning="prefill, decode or agg (aggregated: both)"),
    # Slurm's host name (`—` while queued, then `node0` until known)
    FitColumn("node", "NODE", 2, cells.HOST_CAP, "the host it runs on, Slurm's name (— while the job is queued, "
              "node0, node1 … until the job wrote the names)"),
    FitColumn("gpus", "GPUS", 6, 12, "the node's GPUs it runs on (0-3)"),
    FitColumn("mask", "MASK", 3, 16, "the GPU mask it was started with, headed with the variable the profile sets "
              "(CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES); - on a whole node (no mask)", also=MASK_HEADERS),
    FitColumn("port", "PORT", 7, meaning="its HTTP port on that host"),
    FitColumn("health", "HEALTH", 0, meaning="its health check: healthy, unhealthy (answered, not OK), down, hung "
              "(no reply), unreachable, unknown (not asked yet), ended (stopped with its job); healthy* or down*: "
              "relayed by the job, as that worker (or the whole job) does not answer from here: the line under the "
              "table says which"),
    # when it gives way, a relayed health reads `healthy*`
    FitColumn("src", "SRC", 9, meaning="where its health and counters come from: direct (asked from here) or "
              "relay (the job's own files)"),
    FitColumn("rtr", "RTR", 4, meaning="the router's view of it: ✓ healthy there, ✗ not, - not known (no router)"),
    FitColumn("req", "REQ", 3, meaning="requests it received since it started"),
    FitColumn("ok", "OK", 7, meaning="requests it answered successfully"),
    FitColumn("fail", "FAIL", 2, meaning="requests that failed"),
    FitColumn("rate", "REQ/S", 1, meaning=f"requests per second, over the last {RATE_WINDOW_S:g} s"),
    FitColumn("run", "RUN", 4, meaning="requests it is running now (? its metrics cannot be read now: unknown, not 0)"),
    FitColumn("q", "Q", 6, meaning="requests queued, waiting to run (? as RUN)"),
    FitColumn(
        "trend", "TREND", 8, SPARK_WIDTH,
        f"its requests per second over the last {WINDOW_S:.0f} s, a bar per {SPARK_SLOT_S:.0f} s (blank: nothing read; "
        "▁: no request)",
    ),
)  # fmt: skip

_HEALTH_STYLE = {"healthy": "ok", "unknown": "dim"}


def mask_header(visible_devices_env: str) -> str:
    """The mask column is named for the variable it sets, `CUDA` or `ROCR` (`MASK` when unknown): no wider
    than `MASK`, so the wide table still fits 120 columns."""
    prefix = visible_devices_env.split("_", 1)[0] if visible_devices_env.endswith("_VISIBLE_DEVICES") else ""
    return prefix or "MASK"


def _host_cell(snap: JobSnapshot | None, node_index: int) -> str:
    """The NODE cell: Slurm's host name (its end kept when long), `—` while the job is queued, or `nodeK` before
    the job wrote it."""
    return cells.node_label(snap, node_index)


def queue_not_exported(workers: tuple[WorkerStatus, ...]) -> str:
    """Why a Q cell says `-` beside a known RUN, said once under the table: `Q -: not in decode_0's metrics` (its
    engine exports requests running but no queue); "" when none does. A `?` is a worker not read now: its HEALTH
    says why."""
    names = [w.name for w in workers if w.queued is None and w.running is not None and not w.unread]
    if not names:
        return ""
    return f"Q -: not in {names[0]}'s metrics" if len(names) == 1 else f"Q -: not in {len(names)} workers' metrics"


def relay_legend(snap: JobSnapshot, workers: tuple[WorkerStatus, ...]) -> str:
    """What the `*` on a relayed health means, for the rows that carry it: the whole job relayed (none of it answers
    from here) `its nodes do not answer from here`; else the workers that alone do not (`decode_1 does not answer
    from here`, `2 workers do not …`): op11's one relayed row read "its nodes do not answer", of every node."""
    if snap.relayed:
        return "* health relayed by the job: its nodes do not answer from here"
    names = [w.name for w in workers if w.source == "relay"]
    who = names[0] + " does" if len(names) == 1 else f"{len(names)} workers do"
    return f"* health relayed by the job: {who} not answer from here"


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
        self._names: list[str] = []

    def _st(self, name: str) -> Style:
        return self.get_component_rich_style(f"worker-table--{name}", partial=True)

    # The job view scrolls when the panels above leave the table too few lines (80x24): a key that moves the
    # cursor brings the table into view, so the worker it lands on is never below the screen's edge. Only keys
    # do: a refresh keeps the cursor where it is and must not scroll the summary away.
    def action_cursor_down(self) -> None:
        if self.cursor_row >= self.row_count - 1 and isinstance(self.parent, Widget):  # down from the last
            self.parent.scroll_end(animate=False)  # worker: what is under the table (the Problems panel)
            return
        super().action_cursor_down()
        self._reveal()

    def action_cursor_up(self) -> None:
        if self.cursor_row <= 0 and isinstance(self.parent, Widget):  # up from the first worker: the summary
            self.parent.scroll_home(animate=False)
            return
        super().action_cursor_up()
        self._reveal()

    def action_first_row(self) -> None:
        super().action_first_row()
        self._reveal()

    def action_last_row(self) -> None:
        super().action_last_row()
        self._reveal()

    def _reveal(self) -> None:
        self.call_after_refresh(self.screen.scroll_to_widget, self, animate=False)

    @property
    def highlighted_worker(self) -> str | None:
        """Name of the worker under the cursor."""
        if not self._names or not 0 <= self.cursor_row < len(self._names):
            return None
        return self._names[self.cursor_row]

    def show(self, snap: JobSnapshot | None, width: int) -> None:
        """Fill the table from a snapshot, keeping the cursor on the same worker; the columns that fit
        ``width`` (the screen's) by priority, the relay marked `*` on the health when SRC gave way."""
        keep = self.highlighted_worker
        mask = mask_header(snap.visible_devices_env if snap is not None else "")
        workers = snap.workers if snap is not None else ()
        failing = snap.failing_worker if snap is not None else None
        ended = snap is not None and snap.is_final
        stopped = {w.name for w in workers if snap is not None and snap.stopped_with_job(w.name)}
        hosts = [_host_cell(snap, w.node_index) for w in workers]
        cells_of = [self._cells(w, h, relay_mark=False, stopped=w.name in stopped) for w, h in zip(workers, hosts)]
        natural = natural_widths([c.key for c in COLUMNS], ({k: v.plain for k, v in row.items()} for row in cells_of))
        natural["health"] += 1  # room for the relay mark should SRC give way
        fitted = fit([replace(c, header=mask) if c.key == "mask" else c for c in COLUMNS], natural, width - PANEL)
        self.refit(fitted)
        # its rows (up to 8) whatever the panels above take: the job view scrolls rather than hide workers
        self.styles.min_height = min(max(len(workers), 3), 8) + 3  # border and header
        self._names = []
        if snap is None:
            return
        # an ended job's `relay` is its final scrape's counters, not relayed health: no mark, no legend to miss
        relay_mark = "src" not in {c.key for c in fitted} and not ended
        said = [relay_legend(snap, workers)] if relay_mark and any(w.source == "relay" for w in workers) else []
        if "q" in {c.key for c in fitted} and (unexported := queue_not_exported(workers)):
            said.append(unexported)
        self.border_subtitle = " · ".join(said)
        for w, host in zip(workers, hosts):
            row = self._cells(w, host, relay_mark, stopped=w.name in stopped)
            self.add_row(*(row[c.key] for c in fitted), key=w.name)
            self._names.append(w.name)
        if failing is not None and failing != self._failing:
            keep = failing  # a job that just failed: put the cursor (and so `l`) on the worker that failed it
        self._failing = failing
        if keep in self._names:
            self.move_cursor(row=self._names.index(keep), animate=False)

    def _cells(self, w: WorkerStatus, host: str, relay_mark: bool, stopped: bool = False) -> dict[str, Text]:
        health_style = self._st(_HEALTH_STYLE.get(w.health, "bad"))
        health = Text(w.health + ("*" if w.source == "relay" and relay_mark else ""), style=health_style)
        if stopped:  # stopped with its job: not a fault (a completed job read all `down`)
            health = Text("ended", style=self._st("dim"))
        if w.stale and w.health == "healthy":
            health.stylize(self._st("warn"))
        rtr = Text("-" if w.router_healthy is None else "✓" if w.router_healthy else "✗")
        rtr.stylize(self._st("dim" if w.router_healthy is None else "ok" if w.router_healthy else "bad"))
        failed = Text(cells.number(w.requests_failed), style=self._st("bad") if w.requests_failed else Style())
        trend = cells.sparkline(w.spark, SPARK_WIDTH, cells.SPARK_FLOOR_RATE)
        return {
            "worker": Text(w.name), "role": Text(w.role), "node": Text(host),
            "gpus": Text(cells.gpus(w.gpus)), "mask": Text(w.mask or "-"),
            "port": Text(str(w.port) if w.port else "-"), "health": health,
            "src": Text(w.source or "-", style=self._st("dim")), "rtr": rtr,
            "req": Text(cells.number(w.requests_total)), "ok": Text(cells.number(w.requests_ok)), "fail": failed,
            "rate": Text(cells.rate(w.rate_per_s)), "run": Text(cells.load(w.running, bool(w.unread))),
            "q": Text(cells.load(w.queued, bool(w.unread))),
            "trend": Text(trend.ljust(SPARK_WIDTH), style=self._st("spark")),
        }  # fmt: skip
