"""Node × GPU grid of a running job: which worker holds which GPU (role colour), whether it is healthy,
each node's services with their ports and, when the job runs a GPU exporter, each GPU's utilisation on
a line under its node. Built from a JobSnapshot, so it shows live health and load."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from srt_tui.monitor import cells
from srt_tui.monitor.model import ROLE_LETTERS, GpuReading, JobSnapshot, Placement
from srt_tui.widgets.grid_text import CELL, Detail, Slot, fit_items, grid_lines, label_width, node_names

ROLES = ("prefill", "decode", "agg")
#: cells hold `100` plus a gap once utilisation is shown
UTIL_CELL = 4


class LiveGpuGrid(Widget):
    """Renders `snapshot` (a placeholder when there is none or it has no placement)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "live-grid--prefill",
        "live-grid--decode",
        "live-grid--agg",
        "live-grid--bad",
        "live-grid--unknown",
        "live-grid--idle",
        "live-grid--header",
        "live-grid--service",
        "live-grid--util",
        "live-grid--util-busy",
        "live-grid--util-idle",
        "live-grid--stale",
    }

    DEFAULT_CSS = """
    LiveGpuGrid { height: auto; width: auto; min-width: 30; }
    LiveGpuGrid > .live-grid--prefill { background: $primary; color: $text; text-style: bold; }
    LiveGpuGrid > .live-grid--decode { background: $accent; color: $text; text-style: bold; }
    LiveGpuGrid > .live-grid--agg { background: $success; color: $text; text-style: bold; }
    LiveGpuGrid > .live-grid--bad { background: $error; color: $text; text-style: bold reverse; }
    LiveGpuGrid > .live-grid--unknown { background: $panel; color: $text-muted; }
    LiveGpuGrid > .live-grid--idle { color: $text-muted; }
    LiveGpuGrid > .live-grid--header { color: $text-muted; text-style: bold; }
    LiveGpuGrid > .live-grid--service { color: $text-secondary; }
    LiveGpuGrid > .live-grid--util { color: $text; }
    LiveGpuGrid > .live-grid--util-busy { color: $text; text-style: bold; }
    LiveGpuGrid > .live-grid--util-idle { color: $text-muted; }
    LiveGpuGrid > .live-grid--stale { color: $text-warning; text-style: bold; }
    """

    snapshot: reactive[JobSnapshot | None] = reactive(None, layout=True)
    #: room for each node's services and the long form of its power and temperature
    wide: reactive[bool] = reactive(True, layout=True)
    #: the legend on a line under the grid; off on a short terminal, where the job view puts it in its panel's
    #: border (the workers below keep that line)
    legend_below: reactive[bool] = reactive(True, layout=True)
    #: the columns the grid has (the job view's width less its panel's frame; None: as many as it needs): what does
    #: not fit gives way whole, never wraps (at 44 columns `router:8000` wrapped onto a line between the nodes' rows,
    #: and at 60 a node's `67°C` onto one of its own)
    room: reactive[int | None] = reactive(None, layout=True)

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"live-grid--{name}", partial=True)

    def _cell_style(self, p: Placement, health: str) -> Style:
        if health in ("unhealthy", "down", "hung", "unreachable"):
            return self._style("bad")
        if health in ("unknown", "ended"):
            return self._style("unknown")
        return self._style(p.role if p.role in ROLES else "agg")

    def _util_slot(self, reading: GpuReading | None) -> Slot:
        text = cells.util(reading)
        if text == "?":
            return text, self._style("stale")
        if reading is None or reading.util is None:
            return text, self._style("idle")
        busy = "util-busy" if reading.util >= 80 else "util-idle" if reading.util < 5 else "util"
        return text, self._style(busy)

    def _utilisation(self, snap: JobSnapshot, nodes: int, first: int, per_gpu: bool) -> list[Detail | None]:
        """One `util%` line per node when the job's exporter gave readings (nothing otherwise): a cell per GPU
        (``per_gpu``), else the node's utilisation as one figure (`62% avg`), where a cell per GPU does not fit;
        then its power and temperature, in the longest form that fits the room after ``first`` columns of labels."""
        if not snap.gpus:
            return []
        by_node: dict[int, dict[int, GpuReading]] = {}
        for r in snap.gpus:
            by_node.setdefault(r.node_index, {})[r.gpu] = r
        out: list[Detail | None] = []
        service = self._style("service")
        for node in range(nodes):
            readings = by_node.get(node, {})
            if per_gpu:
                slots = [self._util_slot(readings.get(g)) for g in range(snap.gpus_per_node)]
                lead, used = Text(), first + snap.gpus_per_node * UTIL_CELL
            else:
                figure = (
                    "?"
                    if readings and all(r.stale for r in readings.values())
                    else cells.gpu_load(list(readings.values()))
                )
                style = self._style("stale" if figure == "?" else "idle" if figure == "-" else "util")
                slots, lead = [], Text(figure, style=style)
                used = first + len(figure)
            # narrow terminals: the same figures, shorter (the router panel needs the rest of the line); then
            # without the least important reading, each figure whole with its unit
            forms = cells.gpu_totals_forms(list(readings.values()), self.wide)
            totals = next(f for f in forms if self.room is None or not f or used + 2 + len(f) <= self.room)
            trailer = lead + Text("  " + totals, style=service) if totals else lead
            out.append(Detail("util%", slots, trailer if trailer.plain else None))
        return out

    def render(self) -> RenderableType:
        """Header row of GPU indices, one row per node (and its utilisation line), and a legend, within `room`."""
        snap = self.snapshot
        if snap is None or not snap.placements or not snap.gpus_per_node:
            return Text("No placement known for this job.", style=self._style("idle"))
        # an ended job's workers stopped with it: only the one that failed it is a fault
        health = {w.name: "ended" if snap.stopped_with_job(w.name) else w.health for w in snap.workers}
        nodes = max(snap.nodes, 1 + max(p.node_index for p in snap.placements))
        # each node by Slurm's host name, as `ssh`, `sinfo` and the logs say it (`—` while the job is queued: Slurm has
        # named no node yet; `nodeK` until the job wrote it)
        labels = [cells.node_label(snap, node) for node in range(nodes)]
        first = label_width(node_names(nodes, labels))
        # a utilisation cell per GPU where they fit (`100` and a gap each), else one figure per node
        per_gpu = self.room is None or first + snap.gpus_per_node * UTIL_CELL <= self.room
        details = self._utilisation(snap, nodes, first, per_gpu)
        cell = UTIL_CELL if details and per_gpu else CELL
        rows: list[list[Slot]] = []
        trailers: list[Text | None] = []
        for node in range(nodes):
            owner = {g: p for p in snap.placements if p.node_index == node for g in p.gpus}
            rows.append(
                [
                    None
                    if (held := owner.get(g)) is None
                    else (
                        f"{ROLE_LETTERS.get(held.role, '?')}{held.worker.rsplit('_', 1)[-1]}",
                        self._cell_style(held, health.get(held.worker, "unknown")),
                    )
                    for g in range(snap.gpus_per_node)
                ]
            )
            services = self._services(snap, node) if self.wide or not details else ""
            # beside the node's row where it fits, else left out (the router panel below names the router)
            fits = self.room is None or first + snap.gpus_per_node * cell + 2 + len(services) <= self.room
            trailers.append(Text("  " + services, style=self._style("service")) if services and fits else None)
        header, idle = self._style("header"), self._style("idle")
        lines = grid_lines(snap.gpus_per_node, rows, header, idle, trailers, cell=cell, details=details, labels=labels)
        if self.legend_below:
            lines += self.legend(self.room).split("\n")
        if self.room is not None:  # a line still too long (more GPUs than the room holds) is cut, never wrapped
            for line in lines:
                line.no_wrap, line.overflow = True, "ellipsis"
        return Group(*lines)

    def legend(self, width: int | None = None) -> Text:
        """What the cells' colours say: the job's roles, and not healthy (or, once it ended, ended and failed); each
        item whole, on as many lines as ``width`` needs (None: one line)."""
        snap = self.snapshot
        if snap is None:
            return Text()
        items: list[Text] = []
        for role in ROLES:
            if any(p.role == role for p in snap.placements):
                items.append(Text.assemble((" ■ ", self._style(role)), f" {role} "))
        if snap.is_final:
            items.append(Text.assemble((" ■ ", self._style("unknown")), " ended "))
            if snap.failing_worker:
                items.append(Text.assemble((" ■ ", self._style("bad")), " failed the job"))
        elif not snap.placed:  # nothing runs to be unhealthy; the rows are the plan's nodes, not Slurm's yet
            items.append(Text(f" {cells.NOT_PLACED} not placed yet", style=self._style("idle")))
        else:
            items.append(Text.assemble((" ■ ", self._style("bad")), " not healthy"))
        return fit_items(items, width)

    @staticmethod
    def _services(snap: JobSnapshot, node: int) -> str:
        """`router:8000` on the router's node; behind nginx, `nginx:8000` and each `router_N:8180` on theirs."""
        out = []
        routers = snap.routers or ((snap.router,) if snap.router is not None else ())
        for name, where, url in [
            *([(snap.nginx.name, snap.nginx.node_index, snap.nginx.url)] if snap.nginx else []),
            *((r.name, r.node_index, r.url) for r in routers),
        ]:
            if where == node and url:
                out.append(f"{name}:{url.rsplit(':', 1)[-1].rstrip('/')}")
        return ", ".join(out)
