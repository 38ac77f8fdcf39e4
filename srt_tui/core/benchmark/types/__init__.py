"""Benchmark type registry: one module per `benchmark.type` (see `base.BenchmarkType`), registered by name.

The built-ins are registered in the one table below; another type's module calls `register_benchmark` for itself.
"""

from __future__ import annotations

from srt_tui.core import registry
from srt_tui.core.benchmark.types.base import BenchmarkType
from srt_tui.core.benchmark.types.custom import Custom
from srt_tui.core.benchmark.types.gpqa import Gpqa
from srt_tui.core.benchmark.types.gsm8k import Gsm8k
from srt_tui.core.benchmark.types.longbenchv2 import LongBenchV2
from srt_tui.core.benchmark.types.manual import Manual
from srt_tui.core.benchmark.types.mmlu import Mmlu
from srt_tui.core.benchmark.types.mooncake_router import MooncakeRouter
from srt_tui.core.benchmark.types.router import RouterBench
from srt_tui.core.benchmark.types.sa_bench import SaBench
from srt_tui.core.benchmark.types.sglang_bench import SglangBench
from srt_tui.core.benchmark.types.trace_replay import TraceReplay

#: every registered benchmark type by its `benchmark.type` (a live view of the registry)
BENCHMARKS: dict[str, BenchmarkType] = registry.table("benchmark", BenchmarkType)


def job_end(kind: str) -> str | None:
    """When a job with benchmark `kind` ends (`BenchmarkType.job_end`), and for a step that ends it, the type
    that keeps a job serving instead: `sa-bench ends the job when done · `manual` serves until cancelled`. None
    for a type not registered."""
    found = BENCHMARKS.get(kind)
    if found is None:
        return None
    text = found.job_end()
    keeps = next((b for b in BENCHMARKS.values() if not b.runs), None) if found.runs else None
    return text + (f" · `{keeps.name}` serves until cancelled" if keeps is not None else "")


def register_benchmark(kind: BenchmarkType) -> BenchmarkType:
    """Make a benchmark type available to recipes under its `name` (`benchmark.type`)."""
    return registry.register("benchmark", kind.name, kind)


for _builtin in (
    Manual(),
    SaBench(),
    Gsm8k(),
    Gpqa(),
    Mmlu(),
    LongBenchV2(),
    MooncakeRouter(),
    TraceReplay(),
    SglangBench(),
    RouterBench(),
    Custom(),
):
    register_benchmark(_builtin)
