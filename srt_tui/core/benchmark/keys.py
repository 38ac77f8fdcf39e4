"""Which benchmark keys each type reads, and the refusals for everything else.

Each type's module (`types/`) says which keys its command reads (a test checks it), so a key a recipe sets for
a type that does not use it is refused here rather than ignored; under a type that runs nothing (`manual`),
such a key changes nothing about the job and is a warning. The type's own checks follow.
"""

from __future__ import annotations

from srt_tui.core.benchmark.types import BENCHMARKS
from srt_tui.core.engines.base import Engine
from srt_tui.core.errors import Problem
from srt_tui.core.frontends.routers.base import Router
from srt_tui.core.spec.recipe import BenchmarkSpec, benchmark_type_problem


def written_keys(b: BenchmarkSpec) -> set[str]:
    """Keys the recipe set (defaults do not count)."""
    return set(b.model_fields_set)


def benchmark_problems(b: BenchmarkSpec, engine: Engine, router: Router, disaggregated: bool) -> list[Problem]:
    """Refusals for the benchmark block: unknown type, keys the type does not read, srtctl's own checks."""
    refusal = benchmark_type_problem(b.type)  # the loader's check too, for a file whose other keys fail
    if refusal is not None:
        return [refusal]
    kind = BENCHMARKS[b.type]
    unread = sorted(written_keys(b) - kind.reads)
    if not kind.runs:  # nothing runs, so a leftover key changes nothing about the job: said, not refused
        return [
            Problem(
                f"benchmark.{key}",
                f"`{b.type}` runs no benchmark, so {key} ({_shown(getattr(b, key))}) changes nothing about the job",
                f"remove benchmark.{key}, or set benchmark.type (sa-bench, …) to run a benchmark",
                severity="warning",
            )
            for key in unread
        ]
    out = [
        Problem(
            f"benchmark.{key}",
            f"`{b.type}` does not use {key}, so the job would run without it",
            f"remove benchmark.{key}, or pick a type that reads it",
        )
        for key in unread
    ]
    return out + kind.problems(b, engine, router, disaggregated)


def _shown(value: object) -> str:
    """A key's value in a message, cut short (an env map or a command can be long)."""
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."
