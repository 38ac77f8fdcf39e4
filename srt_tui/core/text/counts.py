"""A count with its noun, singular for one (`1 line read`, not `1 lines read`): every screen's tallies."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`1 line`, `0 lines`, `12,345 lines` (``plural`` for a noun that is not made with an `s`: `entries`)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
