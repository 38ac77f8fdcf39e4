"""How the Recipe step's tree shows a folder's rows within its width: each row's facts (`  1P2D · sglang`) give way,
then its name's middle, and rows that would then read alike keep what tells them apart (srtctl's library at 80
columns has folders of names that begin alike, end alike, or both)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.text import Text

from srt_tui.tui.display import read_alike

#: the most passes `fit_folder` makes over rows that still read alike (each widens what they keep in sight)
APART_ROUNDS = 4


def fit_folder(rows: Sequence[tuple[Text, str]], room: int) -> list[Text]:
    """Each of one folder's rows (its label, `✓ name  1P2D · sglang`, and the `  1P2D · sglang` it ends with) within
    ``room`` cells: as it is when it fits, else as `fit_row` cuts it, keeping in sight where it first differs from
    a row that would read the same. Rows that still read alike (srtctl's `1k1k:zip_override_stp_lowlat[0]` and
    `…mtp_lowlat[0]` beside their topology, or four `ctx1_gen3_{dep,tep}16_batch{16,8}_eplb0_mtp0`) give up their
    topology and the parts they share, keeping every part where they differ (`…dep16_batch16…plb0_mtp0`)."""
    names = [_name(label, shape) for label, shape in rows]
    show = differs_at(names, room)
    out = [
        label if label.cell_len <= room else fit_row(label, shape, room, _tell_apart(rows, i, room), show.get(names[i]))
        for i, (label, shape) in enumerate(rows)
    ]
    spans: dict[int, tuple[int, int]] = {}
    for _ in range(APART_ROUNDS):
        alike = [g for g in read_alike(range(len(out)), lambda i: out[i].plain) if len({names[i] for i in g}) > 1]
        if not alike:
            break
        for group in alike:
            for i in group:
                for j in group:
                    if names[j] != names[i]:
                        a, b = _differing_span(names[i], names[j])
                        old = spans.get(i, (a, b))
                        spans[i] = (min(old[0], a), max(old[1], b))
                out[i] = cut_around(rows[i][0][:2], names[i], spans[i], room)
    return out


def _name(label: Text, shape: str) -> str:
    """The recipe's name in its row: the label less its two-cell mark and its facts."""
    plain = label.plain[2:]
    return plain[: len(plain) - len(shape)] if shape and plain.endswith(shape) else plain


def _tell_apart(rows: Sequence[tuple[Text, str]], at: int, room: int) -> bool:
    """Whether a row next to row ``at``, of another topology, reads as it does but for its index once both names are
    cut to ``room`` (srtctl's `…lowlat[0]`, `…lowlat[1]`): the topology then tells them apart."""
    gist = _gist(_name(*rows[at]), room)
    return any(
        _topology(rows[other][1]) != _topology(rows[at][1]) and _gist(_name(*rows[other]), room) == gist
        for other in (at - 1, at + 1)
        if 0 <= other < len(rows) and rows[other][1]
    )


def _differing_span(a: str, b: str) -> tuple[int, int]:
    """Where ``a`` differs from ``b``: from their first difference to their last (counted from the ends), in ``a``;
    at least one character."""
    first = _first_difference(a, b)
    common_end = next(
        (i for i in range(min(len(a), len(b)) - first) if a[-1 - i] != b[-1 - i]), min(len(a), len(b)) - first
    )
    end = max(len(a) - common_end, min(first + 1, len(a)))
    return min(first, end - 1), end


def cut_around(mark: Text, name: str, span: tuple[int, int], room: int) -> Text:
    """``name`` after its ``mark`` within ``room`` cells, characters ``span`` in sight: one cut (`…`) nearest where
    `cut_middle` cuts, before or after the span, its end kept (`END_KEPT`) when it can be; else two cuts, the span
    between them (as much of it as fits), then the end."""
    width = room - mark.cell_len
    if len(name) <= width:
        return Text.assemble(mark, name)
    a, b = span
    keep = width - 1
    for left in sorted(range(keep + 1), key=lambda n: abs(n - keep // 3)):
        right = keep - left
        tail_ok = right >= min(END_KEPT, len(name) - b)
        if (b <= left and tail_ok) or len(name) - right <= a:
            return Text.assemble(mark, name[:left], "…", name[len(name) - right :])
    tail = min(END_KEPT, len(name) - b)
    free = width - 2 - tail - (b - a)
    if free < 0:
        return Text.assemble(mark, "…", name[a : a + width - 2 - tail], "…", name[len(name) - tail :])
    head = min(a, free // 2)
    start = max(head, a - (free - head))
    end = min(len(name) - tail, b + free - head - (a - start))
    return Text.assemble(
        mark, name[:head], "…", name[start:end], "…" if end < len(name) - tail else "", name[len(name) - tail :]
    )


def _gist(name: str, room: int) -> str:
    """A row's name as `cut_middle` shows it in `room` cells, less a variant's index (`[0]` says nothing of what
    differs; `tp4` or `ctx2` do)."""
    return re.sub(r"\[\d+\]", "[]", cut_middle(Text("  " + name), room).plain)


def _topology(shape: str) -> str:
    """The topology of a row's facts: `1P2D` of `1P2D · sglang`."""
    return shape.split(" · ", 1)[0]


#: the fewest cells a row's mark and name keep beside its topology: narrower, the name has the row to itself
NAME_MIN = 12


def fit_row(label: Text, shape: str, room: int, tell_apart: bool = False, show: int | None = None) -> Text:
    """A recipe row within ``room`` cells: the engine of its `  1P2D · sglang` gives way first, then the topology,
    unless it must `tell_apart` rows that read alike (srtctl's `zip_override_stp_lowlat[0]`…`[4]`) and the name
    does not show it; a name too long loses its middle, never its end (`…-1p1d` and `…-1p1d-smg` stay apart), nor
    its character ``show`` (where it differs from a row that would read the same)."""
    name = label.copy()
    if name.plain.endswith(shape):
        name.right_crop(len(shape))
    facts = label[len(name) : len(name) + len(_topology(shape))]  # `  1P2D`, in its style
    if name.cell_len + facts.cell_len <= room:
        return Text.assemble(name, facts)
    alone = cut_middle(name, room, show)
    if not tell_apart or facts.plain.strip().lower() in alone.plain.lower() or room - facts.cell_len < NAME_MIN:
        return alone
    if show is not None and _keeps_shown(room) and not _keeps_shown(room - facts.cell_len):
        return alone  # beside its topology the name could not keep where it differs (srtctl's `glm5:…hightpt[1]`)
    return Text.assemble(cut_middle(name, room - facts.cell_len, show), facts)


def _keeps_shown(room: int) -> bool:
    """Whether `cut_middle` in ``room`` cells has the room to keep its ``show`` character in sight."""
    return room - 3 > 2 * END_KEPT


#: the end of a name a cut keeps whatever it must show besides (a variant's `…lowlat[1]`)
END_KEPT = 8


def cut_middle(row: Text, room: int, show: int | None = None) -> Text:
    """A row (its two-cell mark, then its name) within ``room`` cells: the name loses its middle, never its end;
    with ``show`` (an index into the name), never that character either: the cut moves past it, or the name
    keeps a window around it between two ellipses."""
    if row.cell_len <= room:
        return row
    mark, name = row[:2], row[2:]
    keep = max(room - 3, 2)  # the mark, and the ellipsis
    left = keep // 3
    hidden = show is not None and left <= show < len(name) - (keep - left)
    if hidden and show is not None and _keeps_shown(room):
        if show + 3 <= keep - END_KEPT:  # the cut moves past it, a few characters on
            left = show + 3
        else:  # a window around it, then the end
            width = keep - 1 - END_KEPT
            start = max(0, min(show - width // 2, len(name) - END_KEPT - width))
            return Text.assemble(mark, "…", name[start : start + width], "…", name[len(name) - END_KEPT :])
    return Text.assemble(mark, name[:left], "…", name[len(name) - (keep - left) :])


def differs_at(names: list[str], room: int) -> dict[str, int]:
    """Of ``names`` (one folder's rows), those that `cut_middle` would show alike in ``room`` cells, each with
    the first character where it differs from the one most like it (of srtctl's `disagg-high-conc-6p1d-…`,
    `…-8p1d-…` and `disagg-mid-curve-…`, the `6`: where it differs from the third, `h`, both others show)."""
    out: dict[str, int] = {}
    for group in read_alike(names, lambda name: cut_middle(Text("  " + name), room).plain):
        for name in group:
            # two rows of one name (a file listed twice) tell nothing apart: only the others count
            others = [_first_difference(name, other) for other in group if other != name]
            if others:
                out[name] = max(others)
    return out


def _first_difference(a: str, b: str) -> int:
    """The index of the first character where ``a`` and ``b`` differ (the shorter's length when one starts the
    other)."""
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
