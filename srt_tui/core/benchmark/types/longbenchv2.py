"""srtctl's LongBench-v2: `run_eval --eval-name longbench_v2`, all examples and categories by default."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from srt_tui.core.benchmark.types.base import COMMON, BenchmarkType
from srt_tui.core.benchmark.types.run_eval import eval_problems, opt, run_eval
from srt_tui.core.errors import Problem
from srt_tui.core.spec.recipe import BenchmarkSpec

if TYPE_CHECKING:
    from srt_tui.core.benchmark.context import BenchContext
    from srt_tui.core.engines.base import Engine
    from srt_tui.core.frontends.routers.base import Router


class LongBenchV2(BenchmarkType):
    """LongBench-v2 through `run_eval` with srtctl's defaults."""

    name: ClassVar[str] = "longbenchv2"
    reads: ClassVar[frozenset[str]] = COMMON | {
        "max_context_length",
        "num_threads",
        "max_tokens",
        "num_examples",
        "categories",
    }

    def command(self, ctx: BenchContext, b: BenchmarkSpec) -> tuple[str, ...]:
        """`run_eval --eval-name longbench_v2`."""
        args = [
            *("--max-tokens", str(b.max_tokens or 16384)),
            *("--max-context-length", str(b.max_context_length or 128000)),
            *("--num-threads", str(b.num_threads or 16)),
            *opt("--num-examples", b.num_examples),
            *opt("--categories", ",".join(b.categories) if b.categories else None),
        ]
        return run_eval(ctx, "longbench_v2", "longbench_v2", args)

    def problems(self, b: BenchmarkSpec, engine: Engine, router: Router, disaggregated: bool) -> list[Problem]:
        """Its counts, positive."""
        return eval_problems(b)
