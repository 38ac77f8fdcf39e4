"""srtctl's router benchmark: Dynamo's prefix-ratio benchmark of sglang-router's prefix routing."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from srt_tui.core import placeholders as ph
from srt_tui.core.benchmark.types.base import COMMON, BenchmarkType
from srt_tui.core.benchmark.types.checks import positive
from srt_tui.core.errors import Problem
from srt_tui.core.spec.recipe import BenchmarkSpec

if TYPE_CHECKING:
    from srt_tui.core.benchmark.context import BenchContext
    from srt_tui.core.engines.base import Engine
    from srt_tui.core.frontends.routers.base import Router

# $1 isl $2 osl $3 requests $4 concurrency $5 space-separated prefix ratios $6 logs
ROUTER_SH = """set -e
isl=$1; osl=$2; n=$3; c=$4; logs=$6; read -r -a ratios <<<"$5"
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT; dir=$scratch/dynamo
git clone --depth 1 https://github.com/ai-dynamo/dynamo.git "$dir"
pip install aiperf matplotlib 2>/dev/null || true
mkdir -p "$logs/router-bench"; cd "$dir/benchmarks/router"
python3 prefix_ratio_benchmark.py --prefix-ratios "${ratios[@]}" --isl "$isl" --osl "$osl" --requests "$n" \\
  --concurrency "$c" --output-dir "$logs/router-bench\""""


class RouterBench(BenchmarkType):
    """Dynamo's prefix-ratio router benchmark (cloned at run time, as srtctl does)."""

    name: ClassVar[str] = "router"
    reads: ClassVar[frozenset[str]] = COMMON | {"isl", "osl", "num_requests", "concurrency", "prefix_ratios"}

    def command(self, ctx: BenchContext, b: BenchmarkSpec) -> tuple[str, ...]:
        """`prefix_ratio_benchmark.py` with srtctl's defaults."""
        ratios = b.prefix_ratios if b.prefix_ratios is not None else "0.1 0.3 0.5 0.7 0.9"
        if isinstance(ratios, list):
            ratios = " ".join(f"{r:g}" for r in ratios)
        return (
            "bash",
            "-c",
            ROUTER_SH,
            "srt-router-bench",
            str(b.isl or 14000),
            str(b.osl or 200),
            str(b.num_requests or 200),
            str(b.concurrency or 20),
            ratios,
            ph.LOGS,
        )

    def problems(self, b: BenchmarkSpec, engine: Engine, router: Router, disaggregated: bool) -> list[Problem]:
        """Counts positive; only behind a router it measures (its `router_benchmark`: sglang-router)."""
        out = positive(b, ("isl", "osl", "num_requests", "concurrency"))
        if not router.router_benchmark:
            out.append(
                Problem(
                    "benchmark.type",
                    "the router benchmark measures sglang-router's prefix routing",
                    "set frontend.type: sglang-router",
                )
            )
        return out
