"""The node × GPU text grid both GPU widgets draw (the wizard's plan and the monitor's live job)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from rich.style import Style
from rich.text import Text

CELL = 3
#: one GPU: (label such as `P0`, its style), or None for an idle GPU
Slot = tuple[str, Style] | None


class Detail(NamedTuple):
    """A second line under a node's line: a short label, one slot per GPU (e.g. its utilisation), a trailer."""

    label: str
    slots: Sequence[Slot]
    trailer: Text | None = None


def _cells(line: Text, slots: Sequence[Slot], idle: Style, cell: int) -> None:
    """Append one right-aligned cell per slot (`·` for an idle GPU)."""
    for slot in slots:
        if slot is None:
            line.append(f"{'·':>{cell - 1}} ", style=idle)
        else:
            line.append(f"{slot[0]:>{cell - 1}} "[:cell], style=slot[1])


def node_names(nodes: int, labels: Sequence[str] = ()) -> list[str]:
    """Each node's label as the grid shows it: ``labels``' where it has one, else `nodeN`."""
    return [labels[node] if node < len(labels) and labels[node] else f"node{node}" for node in range(nodes)]


def label_width(names: Sequence[str]) -> int:
    """The columns of the grid's first column (`GPU`, the node names), two spaces after the longest."""
    return max([7, *(len(n) + 2 for n in names)])


def fit_items(items: Sequence[Text], width: int | None) -> Text:
    """A legend's ``items`` in a row, each whole, on as many lines as ``width`` needs (None: one line): both grids'
    legends split `not`/`healthy` or `mask =`/`CUDA_VISIBLE_DEVICES` where the line wrapped."""
    out = Text()
    line = 0
    for item in items:
        if line and width is not None and line + item.cell_len > width:
            out.rstrip()
            out.append("\n")
            line = 0
        out.append_text(item)
        line += item.cell_len
    return out


def grid_lines(
    gpus_per_node: int,
    rows: Sequence[Sequence[Slot]],
    header: Style,
    idle: Style,
    trailers: Sequence[Text | None] = (),
    *,
    cell: int = CELL,
    details: Sequence[Detail | None] = (),
    labels: Sequence[str] = (),
) -> list[Text]:
    """A header of GPU indices, then one line per node (labelled by ``labels``, else `nodeN`) with an optional
    trailer, each followed by its detail line when ``details`` has one (cells are ``cell`` characters wide)."""
    names = node_names(len(rows), labels)
    width = label_width(names)
    head = Text(f"{'GPU':<{width}}", style=header)
    for g in range(gpus_per_node):
        head.append(f"{g:>{cell - 1}} ", style=header)
    lines = [head]
    for node, row in enumerate(rows):
        line = Text(f"{names[node]:<{width}}", style=header)
        _cells(line, row, idle, cell)
        trailer = trailers[node] if node < len(trailers) else None
        if trailer is not None:
            line.append_text(trailer)
        lines.append(line)
        detail = details[node] if node < len(details) else None
        if detail is not None:
            sub = Text(f"{detail.label:>{width - 1}} ", style=header)
            _cells(sub, detail.slots, idle, cell)
            if detail.trailer is not None:
                sub.append_text(detail.trailer)
            lines.append(sub)
    return lines
