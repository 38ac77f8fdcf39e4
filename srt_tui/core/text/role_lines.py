"""A role at a glance, `1 worker × 16 GPUs (TP 1 × DP 16 · EP 16) on 2 nodes`: the recipe summary and the dry-run
say it alike."""

from __future__ import annotations

from srt_tui.core.engines import get_engine
from srt_tui.core.engines.base import Parallelism, parallelism
from srt_tui.core.spec.recipe import Recipe


def role_parallelism(recipe: Recipe, role: str) -> Parallelism:
    """The role's TP, PP, DP and EP as its engine reads them from the role's args."""
    return parallelism(get_engine(recipe.engine.type), recipe.roles[role].args)  # type: ignore[index]


def role_line(recipe: Recipe, role: str, gpus: int | None = None, nodes: int | None = None) -> str:
    """`2 workers × 4 GPUs (TP 4) on 1 node` for one role (``gpus``/``nodes``: as resolved, when the recipe leaves
    them to srt-tui)."""
    spec = recipe.roles[role]  # type: ignore[index]
    gpus = spec.gpus or gpus
    parts = [f"{spec.workers} worker{'s' if spec.workers != 1 else ''}"]
    if gpus:
        parts.append(f"× {gpus} GPUs")
    words = role_parallelism(recipe, role).words()
    if words:
        parts.append(f"({words})")
    if spec.nodes == "colocate":
        parts.append("colocated on the prefill nodes")
    else:
        count = spec.nodes if spec.nodes is not None else nodes
        if count is not None:
            parts.append(f"on {count} node{'s' if count != 1 else ''}")
    return " ".join(parts)
