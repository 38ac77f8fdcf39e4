"""srtctl's mooncake-router: aiperf replaying a Mooncake trace on its fixed schedule, goodput at TTFT/ITL."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from srt_tui.core import placeholders as ph
from srt_tui.core.benchmark.types.aiperf import AIPERF, aiperf_args, ms
from srt_tui.core.benchmark.types.base import COMMON, BenchmarkType
from srt_tui.core.benchmark.types.checks import positive
from srt_tui.core.errors import Problem, choices_hint
from srt_tui.core.spec.recipe import BenchmarkSpec

if TYPE_CHECKING:
    from srt_tui.core.benchmark.context import BenchContext
    from srt_tui.core.engines.base import Engine
    from srt_tui.core.frontends.routers.base import Router

MOONCAKE_WORKLOADS = ("mooncake", "conversation", "synthetic", "toolagent")
TRACE_BASE = "https://raw.githubusercontent.com/kvcache-ai/Mooncake/main/FAST25-release"
# argv: export, roll-up path, workload, model (no single quotes: it is a single-quoted shell word)
MOONCAKE_ROLLUP_PY = """import json, sys, time
export, out, workload, model = sys.argv[1:5]
with open(export) as fh:
    data = json.load(fh)
stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
doc = {"benchmark_type": "mooncake-router", "timestamp": stamp, "config": {"workload": workload, "model": model}}
with open(out, "w") as fh:
    json.dump({**doc, "data": data}, fh, indent=2)
print("Wrote " + out)"""
# $1 url $2 model $3 workload $4 ttft $5 itl $6 tokenizer $7 logs $8 aiperf spec, then aiperf_args
MOONCAKE_SH = f"""set -e
url=$1; model=$2; workload=$3; ttft=$4; itl=$5; tokenizer=$6; logs=$7; spec=$8; shift 8
metrics=()
if [ -n "${{AIPERF_SERVER_METRICS_URLS:-}}" ]; then
  IFS=, read -r -a urls <<<"$AIPERF_SERVER_METRICS_URLS"; metrics=(--server-metrics "${{urls[@]}}")
fi
traces=${{TRACE_DIR:-$logs/traces}}  # srtctl's override: a directory holding the trace already (offline clusters)
mkdir -p "$traces" "$logs/artifacts"
export AIPERF_HTTP_SO_RCVTIMEO=120
if [ -n "$spec" ] || ! command -v aiperf >/dev/null; then pip install "${{spec:-aiperf}}"; fi
if [ "$workload" = mooncake ]; then src={TRACE_BASE}/arxiv-trace/mooncake_trace.jsonl
else src="{TRACE_BASE}/traces/${{workload}}_trace.jsonl"; fi
input="$traces/${{workload}}_trace.jsonl"
[ -f "$input" ] || curl -fsSL -o "$input" "$src"
aiperf profile -m "$model" --tokenizer "$tokenizer" --url "$url" --streaming --ui simple --concurrency 10 \\
  --request-count 20
run="$logs/artifacts/${{model##*/}}_${{workload}}_$(date +%Y%m%d_%H%M%S)"; mkdir -p "$run"
aiperf profile -m "$model" --tokenizer "$tokenizer" --input-file "$input" --custom-dataset-type mooncake_trace \\
  --fixed-schedule --url "$url" --streaming --random-seed 42 --ui simple --artifact-dir "$run" \\
  --goodput "time_to_first_token:$ttft inter_token_latency:$itl" "${{metrics[@]}}" "$@"
# srtctl's roll-up of this type (its postprocess runs mooncake-router/rollup.py): the run's export, wrapped
python3 -c "$ROLLUP_PY" "$run/profile_export_aiperf.json" "$logs/benchmark-rollup.json" "$workload" "$model\""""
MOONCAKE_SH = "ROLLUP_PY='" + MOONCAKE_ROLLUP_PY + "'\n" + MOONCAKE_SH


class MooncakeRouter(BenchmarkType):
    """aiperf over a downloaded Mooncake trace; it scrapes the workers' metrics while it runs."""

    name: ClassVar[str] = "mooncake-router"
    reads: ClassVar[frozenset[str]] = COMMON | {"mooncake_workload"} | AIPERF
    scrapes_worker_metrics: ClassVar[bool] = True

    def command(self, ctx: BenchContext, b: BenchmarkSpec) -> tuple[str, ...]:
        """aiperf replaying a Mooncake trace on its fixed schedule, goodput at the TTFT/ITL thresholds."""
        return (
            "bash",
            "-c",
            MOONCAKE_SH,
            "srt-mooncake",
            ctx.public_url,
            ctx.served,
            b.mooncake_workload or MOONCAKE_WORKLOADS[1],
            ms(b.ttft_threshold_ms, 2000),
            ms(b.itl_threshold_ms, 25),
            ctx.model,
            ph.LOGS,
            b.aiperf_package or "",
            *aiperf_args(b),
        )

    def problems(self, b: BenchmarkSpec, engine: Engine, router: Router, disaggregated: bool) -> list[Problem]:
        """Thresholds positive, a workload srtctl knows."""
        out = positive(b, ("ttft_threshold_ms", "itl_threshold_ms"))
        if b.mooncake_workload is not None and b.mooncake_workload not in MOONCAKE_WORKLOADS:
            out.append(
                Problem(
                    "benchmark.mooncake_workload",
                    f"unknown workload `{b.mooncake_workload}`",
                    choices_hint(b.mooncake_workload, MOONCAKE_WORKLOADS),
                )
            )
        return out
