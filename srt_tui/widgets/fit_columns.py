"""Which table columns fit a width, by priority: each column is as wide as its header and its widest value
(up to a cap), and when the row is too wide the least important column gives way whole — a header is
never cut mid-word and a value never loses its unit to the screen edge (issue 21, defect 4)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from srt_tui.core.text.cut import cut_at_word

#: DataTable's cell padding: one blank either side of every column
PADDING = 2


@dataclass(frozen=True)
class FitColumn:
    """A column that may give way: ``priority`` 0 always stays, higher numbers leave first; ``cap`` bounds
    its width (longer values end in `…`). ``meaning`` is what its header stands for, in Help's column legend
    (`legend`), and ``also`` the other headers it is drawn with (the worker table's MASK is CUDA or ROCR)."""

    key: str
    header: str
    priority: int
    cap: int | None = None
    meaning: str = ""
    also: tuple[str, ...] = ()


@dataclass(frozen=True)
class Fitted:
    """A column kept, with the width it is drawn at."""

    key: str
    header: str
    width: int


#: a column without a header (the jobs list's mark) as Help's legend names it
NO_HEADER = "(mark)"


def legend(columns: Iterable[FitColumn]) -> tuple[tuple[str, str], ...]:
    """Help's column legend, from the columns a table is drawn with (one source: a new column brings its meaning
    along): each column's headers (`MASK, CUDA, ROCR`) and what they mean, in the table's order."""
    return tuple((", ".join((c.header.strip() or NO_HEADER, *c.also)), c.meaning) for c in columns)


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


def widen(
    fitted: Sequence[Fitted],
    columns: Sequence[FitColumn],
    rows: Sequence[Mapping[str, str]],
    room: int,
    whole: Collection[str] = (),
) -> tuple[Fitted, ...]:
    """``fitted`` with the cells ``room`` leaves over given to the columns whose values in ``rows`` want more (a value
    cut at its cap, a longer wording), the most important first (``priority``, then the leftmost): the width left over
    goes to the column that is cut, never a blank margin beside it (op11: NAME cut at 100 and 120 columns with room to
    spare). A column that cannot show every value whole keeps only what its values cut at a word fill (`fit_value`),
    the rest going on; one of ``whole`` takes all it wants or nothing (a wording is shown whole or not at all)."""
    left = room - total_width(fitted)
    rank = {c.key: (c.priority, i) for i, c in enumerate(columns)}
    wanted = natural_widths([f.key for f in fitted], rows)
    widths = {f.key: f.width for f in fitted}
    for f in sorted(fitted, key=lambda f: rank.get(f.key, (0, 0))):
        more = wanted[f.key] - f.width
        if left <= 0 or more <= 0 or (f.key in whole and more > left):
            continue
        width = f.width + min(more, left)
        if width < wanted[f.key]:  # still cut: as wide as its values cut at a word are
            width = max(f.width, *(len(fit_value(r.get(f.key, ""), width)) for r in rows))
        left -= width - f.width
        widths[f.key] = width
    return tuple(Fitted(f.key, f.header, widths[f.key]) for f in fitted)


def total_width(columns: Iterable[Fitted]) -> int:
    """The cells a row of these columns takes, padding included."""
    return sum(c.width + PADDING for c in columns)


def fit_value(text: str, width: int) -> str:
    """``text`` in ``width`` cells, never cut mid-word (issue 21: `workers he…`, `router sta…` at 80 columns):
    `core.text.cut.cut_at_word`."""
    return cut_at_word(text, width)
