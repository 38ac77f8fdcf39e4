"""Node × GPU grid of a JobPlan: which worker holds which GPU, its visibility mask and its ports.

Role colours come from theme variables through component classes, so every theme (and a light
terminal) gets readable cells without a colour literal in the code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.geometry import Size
from textual.reactive import reactive
from textual.widget import Widget

from srt_tui.widgets.grid_text import fit_items, grid_lines

if TYPE_CHECKING:
    from srt_tui.core.plan.model import JobPlan, ProcessPlan

ROLES = ("prefill", "decode", "agg")


class GpuGrid(Widget):
    """Renders `plan` (or a placeholder when there is no valid plan)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "gpu-grid--prefill",
        "gpu-grid--prefill-alt",
        "gpu-grid--decode",
        "gpu-grid--decode-alt",
        "gpu-grid--agg",
        "gpu-grid--agg-alt",
        "gpu-grid--idle",
        "gpu-grid--header",
        "gpu-grid--service",
        "gpu-grid--empty",
    }

    DEFAULT_CSS = """
    GpuGrid {
        height: auto;
        width: 1fr;
    }
    GpuGrid > .gpu-grid--prefill { background: $primary; color: $text; text-style: bold; }
    GpuGrid > .gpu-grid--prefill-alt { background: $primary-darken-2; color: $text; text-style: bold; }
    GpuGrid > .gpu-grid--decode { background: $accent; color: $text; text-style: bold; }
    GpuGrid > .gpu-grid--decode-alt { background: $accent-darken-2; color: $text; text-style: bold; }
    GpuGrid > .gpu-grid--agg { background: $success; color: $text; text-style: bold; }
    GpuGrid > .gpu-grid--agg-alt { background: $success-darken-2; color: $text; text-style: bold; }
    GpuGrid > .gpu-grid--idle { color: $text-muted; }
    GpuGrid > .gpu-grid--header { color: $text-muted; text-style: bold; }
    GpuGrid > .gpu-grid--service { color: $text-secondary; }
    GpuGrid > .gpu-grid--empty { color: $text-warning; }
    """

    plan: reactive[JobPlan | None] = reactive(None, layout=True)
    empty_text: reactive[str] = reactive("No valid plan yet.", layout=True)
    #: the columns the grid was last laid out in (0: not yet): a row too long is cut there, never wrapped, and the
    #: legend's items go onto as many lines as it needs, each whole (at 60 columns beside the roles the plan wrapped
    #: every row: `│ GPU     0  1    │` / `│ 2  3  4  5  6   │`)
    _room = 0

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The grid's height at ``width``, the width it is then rendered at."""
        self._room = width
        return super().get_content_height(container, viewport, width)

    def _role_style(self, proc: ProcessPlan) -> Style:
        role = proc.role if proc.role in ROLES else "agg"
        index = (proc.worker or proc.name).rsplit("_", 1)[-1]
        alt = "-alt" if index.isdigit() and int(index) % 2 else ""
        return self.get_component_rich_style(f"gpu-grid--{role}{alt}", partial=True)

    def render(self) -> RenderableType:
        """Grid, legend and per-process table."""
        plan = self.plan
        if plan is None:
            return Text(self.empty_text, style=self.get_component_rich_style("gpu-grid--empty", partial=True))
        from srt_tui.core.text.views import gpu_grid, gpu_range

        header_style = self.get_component_rich_style("gpu-grid--header", partial=True)
        idle = self.get_component_rich_style("gpu-grid--idle", partial=True)
        service = self.get_component_rich_style("gpu-grid--service", partial=True)
        rows = [
            [None if c.process is None else (c.label, self._role_style(c.process)) for c in row]
            for row in gpu_grid(plan)
        ]
        lines = grid_lines(plan.gpus_per_node, rows, header_style, idle)
        room = self._room or self.size.width
        if room:  # a row longer than the room (more GPUs than it holds) is cut, never wrapped
            for line in lines:
                line.no_wrap, line.overflow = True, "ellipsis"
        items = [
            Text.assemble((" ■ ", self.get_component_rich_style(f"gpu-grid--{role}", partial=True)), f" {role}  ")
            for role in ROLES
            if any(p.role == role for p in plan.workers)
        ]
        items += [Text(" · idle", idle), Text(f"   mask = {plan.visible_devices_env}", service)]
        legend = Text("").join(items)
        if room and legend.cell_len > room:  # each item whole on as many lines as it needs, none opening on blanks
            items[-1] = Text(f"mask = {plan.visible_devices_env}", service)
            items[-2] = Text.assemble((" · idle", idle), ("   ", service))
            legend = fit_items(items, room)
        table = Table(box=None, padding=(0, 1), pad_edge=False, show_edge=False, header_style=header_style)
        table.add_column("worker", no_wrap=True)
        table.add_column("node", no_wrap=True)
        table.add_column("mask", overflow="fold")
        table.add_column("port", no_wrap=True, justify="right")
        for p in plan.workers:
            mask = p.visible_devices if p.visible_devices else (f"none ({gpu_range(p.gpus)})" if p.gpus else "-")
            table.add_row(
                Text(p.name, style=self._role_style(p)),
                f"node{p.node_index}",
                mask,
                str(p.port) if p.port else "-",
            )
        for r in [*([plan.nginx] if plan.nginx else []), *(x.process for x in plan.routers())]:
            table.add_row(Text(r.name, style=service), f"node{r.node_index}", "-", str(r.port))
        return Group(*lines, Text(""), legend, Text(""), table)
