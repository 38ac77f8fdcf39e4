"""A status line of ` · `-joined parts that fits its width by leaving out whole parts, never cutting one."""

from __future__ import annotations


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
