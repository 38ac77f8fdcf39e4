"""srtctl's gsm8k through SGLang's harness (`sglang.test.run_eval --eval-name gsm8k`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from srt_tui.core.benchmark.types.base import COMMON, BenchmarkType
from srt_tui.core.benchmark.types.checks import positive
from srt_tui.core.benchmark.types.run_eval import opt, run_eval
from srt_tui.core.errors import Problem
from srt_tui.core.spec.recipe import BenchmarkSpec

if TYPE_CHECKING:
    from srt_tui.core.benchmark.context import BenchContext
    from srt_tui.core.engines.base import Engine
    from srt_tui.core.frontends.routers.base import Router


class Gsm8k(BenchmarkType):
    """gsm8k with srtctl's defaults; an engine without SGLang's harness (vLLM) is refused."""

    name: ClassVar[str] = "gsm8k"
    reads: ClassVar[frozenset[str]] = COMMON | {
        "num_examples",
        "max_tokens",
        "num_threads",
        "num_shots",
        "temperature",
        "top_p",
        "top_k",
    }

    def command(self, ctx: BenchContext, b: BenchmarkSpec) -> tuple[str, ...]:
        """srtctl's sglang harness: `sglang.test.run_eval --eval-name gsm8k`."""
        args = [
            *("--num-examples", str(b.num_examples or 1319)),
            *("--max-tokens", str(b.max_tokens or 16384)),
            *("--num-threads", str(b.num_threads or 512)),
            *("--num-shots", str(b.num_shots if b.num_shots is not None else 5)),
            *opt("--temperature", b.temperature),
            *opt("--top-p", b.top_p),
            *opt("--top-k", b.top_k),
        ]
        return run_eval(ctx, "gsm8k", "gsm8k", args)

    def problems(self, b: BenchmarkSpec, engine: Engine, router: Router, disaggregated: bool) -> list[Problem]:
        """Counts positive, shots not negative; not on an engine whose containers lack SGLang's harness."""
        out = positive(b, ("num_examples", "max_tokens", "num_threads"))
        if b.num_shots is not None and b.num_shots < 0:
            out.append(Problem("benchmark.num_shots", "must not be negative", "set benchmark.num_shots: 5"))
        if not engine.runs_sglang_gsm8k:
            out.append(
                Problem(
                    "benchmark.type",
                    f"for {engine.name} srtctl runs its own vendored gsm8k_eval.py, which srt-tui does not ship "
                    f"(sglang.test.run_eval is not in {engine.name} containers)",
                    "use benchmark.type: custom with your evaluation command",
                )
            )
        return out
