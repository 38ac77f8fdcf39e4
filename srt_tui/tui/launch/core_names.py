"""Tiny core-derived names used in labels."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from srt_tui.core.spec.recipe import Recipe


def topology_name(recipe: Recipe) -> str:
    """`1P1D`, `agg2`, … of a recipe as written."""
    from srt_tui.core.spec.resolved import topology_of

    return str(topology_of(recipe))
