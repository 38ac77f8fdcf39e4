"""Lines of parts that fit their width whole: a status line that leaves out whole parts, or the first of its
wordings that fits, or parts packed onto as many lines as they need; never a part cut."""

from __future__ import annotations

from rich.cells import cell_len


def fit_parts(parts: list[str], width: int, optional: tuple[str, ...]) -> str:
    """``parts`` joined by ` · `, within ``width`` by leaving out whole the parts that start with one of
    ``optional``, in that order, until the line fits (at 80 columns the refresh figure was cut to `every 2`,
    a number without its unit); the other parts always stay (a line still too long is cut at its end)."""
    kept = list(parts)
    for prefix in optional:
        if len(" · ".join(kept)) <= width:
            break
        kept = [p for p in kept if not p.startswith(prefix)]
    return " · ".join(kept)


def first_fitting(candidates: list[str], width: int) -> str:
    """The first of ``candidates`` (the whole line first, then shorter wordings of it) within ``width`` cells; the
    shortest when none is (cut at its end by the widget)."""
    return next((c for c in candidates if cell_len(c) <= width), candidates[-1])


def pack_parts(parts: list[str], width: int | None, sep: str = " · ") -> list[str]:
    """``parts`` joined by ``sep``, as many to a line as ``width`` holds (None: one line): a part wraps whole,
    never between a label and its figure."""
    out: list[str] = []
    for part in parts:
        if out and (width is None or len(out[-1]) + len(sep) + len(part) <= width):
            out[-1] += sep + part
        else:
            out.append(part)
    return out
