"""Point a recipe-field problem at the line of the recipe file that writes the field."""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from srt_tui.core.errors import Problem
    from srt_tui.core.spec.recipe import RecipeSource


def locate(problem: Problem, source: RecipeSource | None) -> Problem:
    """Point a recipe-field problem at the recipe file and, when the key is written there, its line."""
    if source is None or source.located is None or problem.file or not problem.field:
        return problem
    if problem.field.startswith(("-", "profile.")):
        return problem
    src = source.located
    path = tuple(int(p) if p.isdigit() else p for p in problem.field.split("."))
    prefixes: list[tuple[str | int, ...]] = [()]
    if source.variant:
        prefixes = [(re.sub(r"\[\d+\]$", "", source.variant),), ("base",)]
    best: tuple[int, int | None] = (-1, None)
    for prefix in prefixes:
        for n in range(len(path), -1, -1):
            line = src.lines.get(prefix + path[:n]) if prefix or n else None
            if line is not None:
                if n > best[0]:
                    best = (n, line)
                break
    return dataclasses.replace(problem, file=src.file, line=best[1])
