"""Which table columns fit a width, by priority: each column is as wide as its header and its widest value
(up to a cap), and when the row is too wide the least important column gives way whole — a header is
never cut mid-word and a value never loses its unit to the screen edge (issue 21, defect 4)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

#: DataTable's cell padding: one blank either side of every column
PADDING = 2


@dataclass(frozen=True)
class FitColumn:
    """A column that may give way: ``priority`` 0 always stays, higher numbers leave first; ``cap`` bounds
    its width (longer values end in `…`)."""

    key: str
    header: str
    priority: int
    cap: int | None = None


@dataclass(frozen=True)
class Fitted:
    """A column kept, with the width it is drawn at."""

    key: str
    header: str
    width: int


def natural_widths(keys: Iterable[str], rows: Iterable[Mapping[str, str]]) -> dict[str, int]:
    """The widest value of each column over ``rows`` (0 for a column with no rows)."""
    widths = dict.fromkeys(keys, 0)
    for row in rows:
        for key, value in row.items():
            if key in widths:
                widths[key] = max(widths[key], len(value))
    return widths


def fit(columns: Sequence[FitColumn], natural: Mapping[str, int], room: int) -> tuple[Fitted, ...]:
    """The columns that fit ``room`` cells, in their own order: each as wide as its header and its widest
    value (capped); while the row is too wide, the highest ``priority`` number leaves (the rightmost of
    equals first). Priority-0 columns stay even when they alone overflow."""
    widths = {c.key: max(len(c.header), min(natural.get(c.key, 0), c.cap or natural.get(c.key, 0))) for c in columns}
    kept = list(columns)
    by_leaving = sorted(
        (c for c in columns if c.priority > 0), key=lambda c: (c.priority, columns.index(c)), reverse=True
    )
    for column in by_leaving:
        if sum(widths[c.key] + PADDING for c in kept) <= room:
            break
        kept.remove(column)
    return tuple(Fitted(c.key, c.header, widths[c.key]) for c in kept)


def total_width(columns: Iterable[Fitted]) -> int:
    """The cells a row of these columns takes, padding included."""
    return sum(c.width + PADDING for c in columns)
