"""srtctl's trace-replay: aiperf replaying the recipe's trace file at each concurrency."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from srt_tui.core import placeholders as ph
from srt_tui.core.benchmark.types.aiperf import AIPERF, aiperf_args, ms
from srt_tui.core.benchmark.types.base import COMMON, BenchmarkType
from srt_tui.core.benchmark.types.checks import concurrencies, need, positive
from srt_tui.core.errors import Problem
from srt_tui.core.spec.recipe import BenchmarkSpec

if TYPE_CHECKING:
    from srt_tui.core.benchmark.context import BenchContext
    from srt_tui.core.engines.base import Engine
    from srt_tui.core.frontends.routers.base import Router

# $1 url $2 model $3 trace $4 comma-separated concurrencies $5 ttft $6 itl $7 tokenizer $8 logs $9 spec, then args
TRACE_REPLAY_SH = """set -e
url=$1; model=$2; trace=$3; levels=$4; ttft=$5; itl=$6; tokenizer=$7; logs=$8; spec=$9; shift 9
[ -f "$trace" ] || { echo "trace file not found: $trace" >&2; exit 1; }
metrics=()
if [ -n "${AIPERF_SERVER_METRICS_URLS:-}" ]; then
  IFS=, read -r -a urls <<<"$AIPERF_SERVER_METRICS_URLS"
  metrics=(--server-metrics "${urls[@]}" --server-metrics-formats json jsonl)
fi
mkdir -p "$logs/artifacts/warmup"
export AIPERF_HTTP_SO_RCVTIMEO=120 PYTHONUNBUFFERED=1
if [ -n "$spec" ] || ! command -v aiperf >/dev/null; then
  venv=$(mktemp -d); trap 'rm -rf "$venv"' EXIT; python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install "${spec:-aiperf}" tiktoken; export PATH="$venv/bin:$PATH"
fi
aiperf profile -m "$model" --tokenizer "$tokenizer" --tokenizer-trust-remote-code --url "$url" --streaming \\
  --ui simple --extra-inputs ignore_eos:true --concurrency 1 --request-count 5 --artifact-dir "$logs/artifacts/warmup"
stamp=$(date +%Y%m%d_%H%M%S)
IFS=, read -r -a cs <<<"$levels"
for c in "${cs[@]}"; do
  run="$logs/artifacts/${model##*/}_trace_c${c}_$stamp"; mkdir -p "$run"
  aiperf profile -m "$model" --tokenizer "$tokenizer" --tokenizer-trust-remote-code --input-file "$trace" \\
    --custom-dataset-type mooncake_trace --url "$url" --streaming --extra-inputs ignore_eos:true \\
    --concurrency "$c" --random-seed 42 --ui simple --artifact-dir "$run" \\
    --goodput "time_to_first_token:$ttft inter_token_latency:$itl" "${metrics[@]}" "$@"
done"""


class TraceReplay(BenchmarkType):
    """aiperf over the recipe's JSONL trace; it scrapes the workers' metrics while it runs."""

    name: ClassVar[str] = "trace-replay"
    reads: ClassVar[frozenset[str]] = COMMON | {"trace_file", "concurrencies"} | AIPERF
    scrapes_worker_metrics: ClassVar[bool] = True

    def command(self, ctx: BenchContext, b: BenchmarkSpec) -> tuple[str, ...]:
        """aiperf replaying the recipe's trace file at each concurrency."""
        return (
            "bash",
            "-c",
            TRACE_REPLAY_SH,
            "srt-trace-replay",
            ctx.public_url,
            ctx.served,
            b.trace_file or "",
            ",".join(str(c) for c in b.concurrency_list()),
            ms(b.ttft_threshold_ms, 2000),
            ms(b.itl_threshold_ms, 25),
            ctx.model,
            ph.LOGS,
            b.aiperf_package or "",
            *aiperf_args(b),
        )

    def problems(self, b: BenchmarkSpec, engine: Engine, router: Router, disaggregated: bool) -> list[Problem]:
        """A trace file, concurrencies, positive thresholds."""
        out = need(
            b, ("trace_file",), "trace-replay replays this JSONL trace (a container path)", "/traces/trace.jsonl"
        )
        return out + concurrencies(b) + positive(b, ("ttft_threshold_ms", "itl_threshold_ms"))
