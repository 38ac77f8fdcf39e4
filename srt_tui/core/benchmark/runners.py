"""srtctl's other benchmark types as one command each: the tools its bench.sh scripts run, same defaults.

Multi-step flows are a fixed ``bash -c`` script; every recipe value reaches it as a positional argument,
never spliced into the script text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from srt_tui.core import placeholders as ph
from srt_tui.core.benchmark.keys import MOONCAKE_WORKLOADS
from srt_tui.core.benchmark.sabench import sa_bench
from srt_tui.core.spec.recipe import BenchmarkSpec

if TYPE_CHECKING:
    from srt_tui.core.benchmark.context import BenchContext

# $1 logs dir, $2 result-file prefix in /tmp, then the evaluation command (sglang.test.run_eval, which writes
# its results to /tmp/<eval>_<model>.{json,html} itself): only files this run made are copied, i.e. this
# user's regular files (no links) newer than a marker taken in a private `mktemp -d` before the run
ACCURACY_SH = """set -e
logs=$1; prefix=$2; shift 2
mkdir -p "$logs/accuracy"
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT; : >"$scratch/started"
export OPENAI_API_KEY="${OPENAI_API_KEY:-EMPTY}"
"$@"
for ext in json html; do
  newest=""
  for f in /tmp/"$prefix"_*."$ext"; do
    if [ -f "$f" ] && [ ! -L "$f" ] && [ -O "$f" ] && [ "$f" -nt "$scratch/started" ] &&
      { [ -z "$newest" ] || [ "$f" -nt "$newest" ]; }; then newest=$f; fi
  done
  if [ -n "$newest" ]; then cp -P "$newest" "$logs/accuracy/"; echo "saved $logs/accuracy/${newest##*/}"; fi
done"""

# $1 x-separated concurrencies, then a command that takes --max-concurrency
PER_CONCURRENCY_SH = """set -e
IFS=x read -r -a levels <<<"$1"; shift
for c in "${levels[@]}"; do echo "concurrency $c"; "$@" --max-concurrency "$c"; done"""

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

# $1 isl $2 osl $3 requests $4 concurrency $5 space-separated prefix ratios $6 logs
ROUTER_SH = """set -e
isl=$1; osl=$2; n=$3; c=$4; logs=$6; read -r -a ratios <<<"$5"
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT; dir=$scratch/dynamo
git clone --depth 1 https://github.com/ai-dynamo/dynamo.git "$dir"
pip install aiperf matplotlib 2>/dev/null || true
mkdir -p "$logs/router-bench"; cd "$dir/benchmarks/router"
python3 prefix_ratio_benchmark.py --prefix-ratios "${ratios[@]}" --isl "$isl" --osl "$osl" --requests "$n" \\
  --concurrency "$c" --output-dir "$logs/router-bench\""""


def _opt(flag: str, value: object) -> list[str]:
    return [] if value is None else [flag, str(value)]


def _run_eval(ctx: BenchContext, name: str, prefix: str, args: list[str]) -> tuple[str, ...]:
    head = ["bash", "-c", ACCURACY_SH, "srt-accuracy", ph.LOGS, prefix]
    run_eval = ["python3", "-m", "sglang.test.run_eval", "--base-url", ctx.public_url, "--model", ctx.served]
    return (*head, *run_eval, "--eval-name", name, *args)


def gsm8k(ctx: BenchContext, b: BenchmarkSpec) -> tuple[str, ...]:
    """srtctl's sglang harness: ``sglang.test.run_eval --eval-name gsm8k`` (vLLM's is refused in keys.py)."""
    args = [
        *("--num-examples", str(b.num_examples or 1319)),
        *("--max-tokens", str(b.max_tokens or 16384)),
        *("--num-threads", str(b.num_threads or 512)),
        *("--num-shots", str(b.num_shots if b.num_shots is not None else 5)),
        *_opt("--temperature", b.temperature),
        *_opt("--top-p", b.top_p),
        *_opt("--top-k", b.top_k),
    ]
    return _run_eval(ctx, "gsm8k", "gsm8k", args)


def _eval_with(name: str, examples: int, max_tokens: int, repeat: int, threads: int) -> Runner:
    def run(ctx: BenchContext, b: BenchmarkSpec) -> tuple[str, ...]:
        args = [
            *("--num-examples", str(b.num_examples or examples)),
            *("--max-tokens", str(b.max_tokens or max_tokens)),
            *("--repeat", str(b.repeat or repeat)),
            *("--num-threads", str(b.num_threads or threads)),
        ]
        return _run_eval(ctx, name, name, args)

    run.__doc__ = f"srtctl's {name}: ``sglang.test.run_eval --eval-name {name}`` with its defaults."
    return run


def longbenchv2(ctx: BenchContext, b: BenchmarkSpec) -> tuple[str, ...]:
    """srtctl's LongBench-v2: ``run_eval --eval-name longbench_v2``, all examples and categories by default."""
    args = [
        *("--max-tokens", str(b.max_tokens or 16384)),
        *("--max-context-length", str(b.max_context_length or 128000)),
        *("--num-threads", str(b.num_threads or 16)),
        *_opt("--num-examples", b.num_examples),
        *_opt("--categories", ",".join(b.categories) if b.categories else None),
    ]
    return _run_eval(ctx, "longbench_v2", "longbench_v2", args)


def _aiperf_args(b: BenchmarkSpec) -> list[str]:
    """``aiperf_args`` as flags, srtctl's way: true -> ``--key``, false dropped, else ``--key value``."""
    out: list[str] = []
    for key, value in (b.aiperf_args or {}).items():
        if isinstance(value, bool):
            out += [f"--{key}"] if value else []
        else:
            out += [f"--{key}", str(value)]
    return out


def mooncake_router(ctx: BenchContext, b: BenchmarkSpec) -> tuple[str, ...]:
    """aiperf replaying a Mooncake trace on its fixed schedule, goodput at the TTFT/ITL thresholds."""
    return (
        "bash",
        "-c",
        MOONCAKE_SH,
        "srt-mooncake",
        ctx.public_url,
        ctx.served,
        b.mooncake_workload or MOONCAKE_WORKLOADS[1],
        _ms(b.ttft_threshold_ms, 2000),
        _ms(b.itl_threshold_ms, 25),
        ctx.model,
        ph.LOGS,
        b.aiperf_package or "",
        *_aiperf_args(b),
    )


def trace_replay(ctx: BenchContext, b: BenchmarkSpec) -> tuple[str, ...]:
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
        _ms(b.ttft_threshold_ms, 2000),
        _ms(b.itl_threshold_ms, 25),
        ctx.model,
        ph.LOGS,
        b.aiperf_package or "",
        *_aiperf_args(b),
    )


def _ms(value: float | None, default: int) -> str:
    return f"{value:g}" if value else str(default)


def sglang_bench(ctx: BenchContext, b: BenchmarkSpec) -> tuple[str, ...]:
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


def router(ctx: BenchContext, b: BenchmarkSpec) -> tuple[str, ...]:
    """Dynamo's prefix-ratio router benchmark (cloned at run time, as srtctl does)."""
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


def custom(ctx: BenchContext, b: BenchmarkSpec) -> tuple[str, ...]:
    """The recipe's command verbatim under ``bash -lc`` (srtctl substitutes nothing in it)."""
    return ("bash", "-lc", b.command or "")


Runner = Callable[["BenchContext", BenchmarkSpec], tuple[str, ...]]

RUNNERS: dict[str, Runner] = {
    "sa-bench": sa_bench,
    "gsm8k": gsm8k,
    "gpqa": _eval_with("gpqa", 198, 32768, 8, 128),
    "mmlu": _eval_with("mmlu", 200, 2048, 8, 512),
    "longbenchv2": longbenchv2,
    "mooncake-router": mooncake_router,
    "trace-replay": trace_replay,
    "sglang-bench": sglang_bench,
    "router": router,
    "custom": custom,
}
