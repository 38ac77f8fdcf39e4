"""srtctl's sglang-bench: `sglang.bench_serving` per concurrency, its fixed 128 prompts and range ratio 1."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from srt_tui.core.benchmark.types.base import COMMON, BenchmarkType
from srt_tui.core.benchmark.types.checks import concurrencies, need, positive, req_rate
from srt_tui.core.errors import Problem
from srt_tui.core.spec.recipe import BenchmarkSpec

if TYPE_CHECKING:
    from srt_tui.core.benchmark.context import BenchContext
    from srt_tui.core.engines.base import Engine
    from srt_tui.core.frontends.routers.base import Router

# $1 x-separated concurrencies, then a command that takes --max-concurrency
PER_CONCURRENCY_SH = """set -e
IFS=x read -r -a levels <<<"$1"; shift
for c in "${levels[@]}"; do echo "concurrency $c"; "$@" --max-concurrency "$c"; done"""


class SglangBench(BenchmarkType):
    """`sglang.bench_serving` against the public URL, once per concurrency."""

    name: ClassVar[str] = "sglang-bench"
    reads: ClassVar[frozenset[str]] = COMMON | {"isl", "osl", "concurrencies", "req_rate"}

    def command(self, ctx: BenchContext, b: BenchmarkSpec) -> tuple[str, ...]:
        """``sglang.bench_serving`` per concurrency with srtctl's fixed 128 prompts and range ratio 1."""
        return (
            "bash",
            "-c",
            PER_CONCURRENCY_SH,
            "srt-sglang-bench",
            "x".join(str(c) for c in b.concurrency_list()),
            *("python3", "-m", "sglang.bench_serving", "--backend", "sglang-oai", "--base-url", ctx.public_url),
            *("--model", ctx.served, "--dataset-name", "random", "--num-prompts", "128"),
            *("--random-input-len", str(b.isl), "--random-output-len", str(b.osl), "--random-range-ratio", "1"),
            *("--request-rate", str(b.req_rate if b.req_rate is not None else "inf"), "--warmup-requests", "0"),
        )

    def problems(self, b: BenchmarkSpec, engine: Engine, router: Router, disaggregated: bool) -> list[Problem]:
        """Lengths set and positive, concurrencies, rate."""
        out = need(b, ("isl", "osl"), "sglang-bench needs it", "1024")
        return out + positive(b, ("isl", "osl")) + concurrencies(b) + req_rate(b)
