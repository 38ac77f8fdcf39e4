"""The node × GPU text grid both GPU widgets draw (the wizard's plan and the monitor's live job)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.style import Style
from rich.text import Text

CELL = 3
#: one GPU: (label such as `P0`, its style), or None for an idle GPU
Slot = tuple[str, Style] | None


def grid_lines(
    gpus_per_node: int, rows: Sequence[Sequence[Slot]], header: Style, idle: Style, trailers: Sequence[Text | None] = ()
) -> list[Text]:
    """A header of GPU indices, then one `nodeN` line per node with an optional trailer."""
    head = Text("GPU    ", style=header)
    for g in range(gpus_per_node):
        head.append(f"{g:>{CELL - 1}} ", style=header)
    lines = [head]
    for node, row in enumerate(rows):
        line = Text(f"node{node:<3}", style=header)
        for slot in row:
            if slot is None:
                line.append(" · ", style=idle)
            else:
                line.append(f"{slot[0]:>{CELL - 1}} "[:CELL], style=slot[1])
        trailer = trailers[node] if node < len(trailers) else None
        if trailer is not None:
            line.append_text(trailer)
        lines.append(line)
    return lines
