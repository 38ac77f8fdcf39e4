"""Plain views of a JobPlan shared by the CLI text output and the TUI widgets (no styling here)."""

from __future__ import annotations

from dataclasses import dataclass

from srt_tui.core.plan.model import JobPlan, ProcessPlan
from srt_tui.core.text.roles import ROLE_LETTER


@dataclass(frozen=True)
class GridCell:
    """One GPU of one node: which process uses it (None when idle)."""

    node: int
    gpu: int
    process: ProcessPlan | None

    @property
    def label(self) -> str:
        """Short label such as `P0` (prefill worker 0) or `·` for an idle GPU."""
        if self.process is None:
            return "·"
        index = (self.process.worker or self.process.name).rsplit("_", 1)[-1]
        return f"{ROLE_LETTER.get(self.process.role, '?')}{index}"


def gpu_grid(plan: JobPlan) -> list[list[GridCell]]:
    """Node × GPU grid of the plan's workers."""
    rows: list[list[GridCell]] = []
    for node in range(plan.nodes):
        owner: dict[int, ProcessPlan] = {}
        for p in plan.workers:
            if p.node_index == node:
                for g in p.gpus:
                    owner[g] = p
        rows.append([GridCell(node, g, owner.get(g)) for g in range(plan.gpus_per_node)])
    return rows


def gpu_range(gpus: tuple[int, ...]) -> str:
    """`0-3` for contiguous GPU indices, `0,2` otherwise, `-` for none."""
    if not gpus:
        return "-"
    if list(gpus) == list(range(gpus[0], gpus[-1] + 1)) and len(gpus) > 1:
        return f"{gpus[0]}-{gpus[-1]}"
    return ",".join(str(g) for g in gpus)


def node_services(plan: JobPlan, node: int) -> list[ProcessPlan]:
    """Processes on a node that hold no GPU (router, infra, benchmark)."""
    return [p for p in plan.processes() if p.node_index == node and not p.gpus]


def table_rows(plan: JobPlan) -> list[tuple[str, ...]]:
    """One row per process: name, role, node, GPUs, mask, port, URL."""
    rows: list[tuple[str, ...]] = []
    for p in plan.processes():
        mask = f"{plan.visible_devices_env}={p.visible_devices}" if p.visible_devices else "-"
        rows.append(
            (
                p.name,
                p.role,
                f"node{p.node_index}",
                gpu_range(p.gpus),
                mask,
                str(p.port) if p.port else "-",
                p.url or "-",
            )
        )
    return rows


def fixed_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """A plain fixed-width text table."""
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) if rows else len(header[i]) for i in range(len(header))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(lines)
