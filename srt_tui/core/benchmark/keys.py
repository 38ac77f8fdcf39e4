"""Which benchmark keys each srtctl benchmark type reads, and the refusals for everything else.

The renderers in this package read exactly these keys (a test checks it), so a key a recipe sets for a
type that does not use it is refused here rather than ignored; under `manual`, which runs nothing, such a
key changes nothing about the job and is a warning.
"""

from __future__ import annotations

from srt_tui.core.errors import Problem
from srt_tui.core.spec.recipe import BenchmarkSpec

COMMON = frozenset({"type", "env", "container_image"})
SA_BENCH = frozenset(
    {
        "isl",
        "osl",
        "concurrencies",
        "req_rate",
        "random_range_ratio",
        "num_prompts_mult",
        "num_warmup_mult",
        "custom_tokenizer",
        "use_chat_template",
        "dataset_name",
        "dataset_path",
        "reuse_http_connections",
        "slow_down_sleep_time",
        "slow_down_wait_time",
    }
)
EVAL = frozenset({"num_examples", "max_tokens", "repeat", "num_threads"})

#: benchmark type -> the keys its renderer reads (srtctl's runners, src/srtctl/benchmarks/*.py)
READS: dict[str, frozenset[str]] = {
    "manual": frozenset({"type"}),  # no step: its env and image would go nowhere
    "sa-bench": COMMON | SA_BENCH,
    "gsm8k": COMMON | {"num_examples", "max_tokens", "num_threads", "num_shots", "temperature", "top_p", "top_k"},
    "gpqa": COMMON | EVAL,
    "mmlu": COMMON | EVAL,
    "longbenchv2": COMMON | {"max_context_length", "num_threads", "max_tokens", "num_examples", "categories"},
    "mooncake-router": COMMON
    | {"mooncake_workload", "ttft_threshold_ms", "itl_threshold_ms", "aiperf_package", "aiperf_args"},
    "trace-replay": COMMON
    | {"trace_file", "concurrencies", "ttft_threshold_ms", "itl_threshold_ms", "aiperf_package", "aiperf_args"},
    "sglang-bench": COMMON | {"isl", "osl", "concurrencies", "req_rate"},
    "router": COMMON | {"isl", "osl", "num_requests", "concurrency", "prefix_ratios"},
    "custom": COMMON | {"command"},
}

#: srtctl types srt-tui cannot run, with the reason a job could not work
REFUSED: dict[str, str] = {
    "lm-eval": "srtctl runs it through InferenceX's benchmark_lib.sh from a mounted INFMAX_WORKSPACE, "
    "which srt-tui does not mount",
}

SRTCTL_TOKENIZERS = "sa_bench_tokenizers."  # srtctl's adapters live in its sa-bench script directory
MOONCAKE_WORKLOADS = ("mooncake", "conversation", "synthetic", "toolagent")


def written_keys(b: BenchmarkSpec) -> set[str]:
    """Keys the recipe set (defaults do not count)."""
    return set(b.model_fields_set)


def benchmark_problems(b: BenchmarkSpec, engine: str, frontend: str, disaggregated: bool) -> list[Problem]:
    """Refusals for the benchmark block: unknown type, keys the type does not read, srtctl's own checks."""
    if b.type in REFUSED:
        return [Problem("benchmark.type", f"`{b.type}` is not run by srt-tui: {REFUSED[b.type]}", _types_hint())]
    if b.type not in READS:
        return [
            Problem("benchmark.type", f"unknown benchmark type `{b.type}` (srtctl has no runner for it)", _types_hint())
        ]
    unread = sorted(written_keys(b) - READS[b.type])
    if b.type == "manual":  # nothing runs, so a leftover key changes nothing about the job: said, not refused
        return [
            Problem(
                f"benchmark.{key}",
                f"`manual` runs no benchmark, so {key} ({_shown(getattr(b, key))}) changes nothing about the job",
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
    check = _CHECKS.get(b.type)
    if check is not None:
        out += check(b, engine, frontend, disaggregated)
    return out


def _shown(value: object) -> str:
    """A key's value in a message, cut short (an env map or a command can be long)."""
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _types_hint() -> str:
    return "one of: " + ", ".join(sorted(READS))


def _need(b: BenchmarkSpec, keys: tuple[str, ...], why: str, example: str) -> list[Problem]:
    return [Problem(f"benchmark.{k}", why, f"set benchmark.{k}: {example}") for k in keys if getattr(b, k) is None]


def _positive(b: BenchmarkSpec, keys: tuple[str, ...]) -> list[Problem]:
    out = []
    for k in keys:
        value = getattr(b, k)
        if value is not None and value <= 0:
            out.append(Problem(f"benchmark.{k}", f"must be positive, not {value}", f"set benchmark.{k} above 0"))
    return out


def _concurrencies(b: BenchmarkSpec) -> list[Problem]:
    if b.concurrencies is None:
        return [
            Problem("benchmark.concurrencies", f"{b.type} needs concurrencies", "set benchmark.concurrencies: [8, 32]")
        ]
    try:
        levels = b.concurrency_list()
    except ValueError:
        levels = []
    if not levels or any(c < 1 for c in levels):
        return [
            Problem(
                "benchmark.concurrencies",
                f"must be positive integers as a list or `4x8x16`, not {b.concurrencies!r}",
                "set benchmark.concurrencies: [8, 32]",
            )
        ]
    return []


def _req_rate(b: BenchmarkSpec) -> list[Problem]:
    rate = str(b.req_rate if b.req_rate is not None else "inf").strip().lower()
    if rate == "inf":
        return []
    try:
        ok = float(rate) > 0
    except ValueError:
        ok = False
    return (
        []
        if ok
        else [
            Problem(
                "benchmark.req_rate",
                f"must be a positive number or inf, not {b.req_rate!r}",
                "set benchmark.req_rate: inf",
            )
        ]
    )


def _sa_bench(b: BenchmarkSpec, engine: str, frontend: str, disaggregated: bool) -> list[Problem]:
    out: list[Problem] = []
    dataset = b.dataset_name or "random"
    if dataset not in ("random", "custom"):
        out.append(
            Problem(
                "benchmark.dataset_name",
                f"sa-bench reads `random` or `custom`, not `{dataset}`",
                "set benchmark.dataset_name: random",
            )
        )
    if dataset == "custom":
        for key in ("isl", "osl", "random_range_ratio"):
            if getattr(b, key) is not None:
                out.append(
                    Problem(
                        f"benchmark.{key}",
                        "the custom dataset takes its lengths from the file, so the job would run without it",
                        f"remove benchmark.{key}, or use dataset_name: random",
                    )
                )
        out += _need(
            b, ("dataset_path",), "a custom dataset needs its JSONL file (a container path)", "/datasets/requests.jsonl"
        )
    else:
        out += _need(b, ("isl", "osl"), "sa-bench's random dataset needs it", "1024")
        if b.dataset_path is not None:
            out.append(
                Problem(
                    "benchmark.dataset_path",
                    "only the custom dataset reads a file",
                    "set benchmark.dataset_name: custom, or remove dataset_path",
                )
            )
    out += _concurrencies(b) + _req_rate(b)
    out += _positive(b, ("isl", "osl", "num_prompts_mult"))
    if b.num_warmup_mult is not None and b.num_warmup_mult < 0:
        out.append(Problem("benchmark.num_warmup_mult", "must not be negative", "set benchmark.num_warmup_mult: 2"))
    if b.random_range_ratio is not None and not 0 <= b.random_range_ratio <= 1:
        out.append(
            Problem("benchmark.random_range_ratio", "must be between 0 and 1", "set benchmark.random_range_ratio: 0.8")
        )
    if b.custom_tokenizer and b.custom_tokenizer.startswith(SRTCTL_TOKENIZERS):
        out.append(
            Problem(
                "benchmark.custom_tokenizer",
                f"`{b.custom_tokenizer}` is one of srtctl's sa-bench adapters, which srt-tui does not ship: "
                "the client imports it from the benchmark container's PYTHONPATH and stops if it is not there",
                "put the adapter's package on PYTHONPATH via benchmark.env",
                severity="warning",
            )
        )
    slow = (b.slow_down_sleep_time, b.slow_down_wait_time)
    if any(v is not None for v in slow):
        if any(v is None or v <= 0 for v in slow):
            out.append(
                Problem(
                    "benchmark.slow_down_sleep_time",
                    "slow_down needs both slow_down_sleep_time and slow_down_wait_time, positive",
                    "set both, or neither",
                )
            )
        elif engine != "sglang" or not disaggregated:
            out.append(
                Problem(
                    "benchmark.slow_down_sleep_time",
                    "slow_down posts SGLang's /slow_down to decode workers; this job has none",
                    "remove slow_down_sleep_time / slow_down_wait_time",
                )
            )
    return out


def _gsm8k(b: BenchmarkSpec, engine: str, frontend: str, disaggregated: bool) -> list[Problem]:
    out = _positive(b, ("num_examples", "max_tokens", "num_threads"))
    if b.num_shots is not None and b.num_shots < 0:
        out.append(Problem("benchmark.num_shots", "must not be negative", "set benchmark.num_shots: 5"))
    if engine == "vllm":
        out.append(
            Problem(
                "benchmark.type",
                "for vLLM srtctl runs its own vendored gsm8k_eval.py, which srt-tui does not ship "
                "(sglang.test.run_eval is not in vLLM containers)",
                "use benchmark.type: custom with your evaluation command",
            )
        )
    return out


def _eval(b: BenchmarkSpec, engine: str, frontend: str, disaggregated: bool) -> list[Problem]:
    return _positive(b, ("num_examples", "max_tokens", "repeat", "num_threads", "max_context_length"))


def _mooncake(b: BenchmarkSpec, engine: str, frontend: str, disaggregated: bool) -> list[Problem]:
    out = _positive(b, ("ttft_threshold_ms", "itl_threshold_ms"))
    if b.mooncake_workload is not None and b.mooncake_workload not in MOONCAKE_WORKLOADS:
        out.append(
            Problem(
                "benchmark.mooncake_workload",
                f"unknown workload `{b.mooncake_workload}`",
                "one of: " + ", ".join(MOONCAKE_WORKLOADS),
            )
        )
    return out


def _trace(b: BenchmarkSpec, engine: str, frontend: str, disaggregated: bool) -> list[Problem]:
    out = _need(b, ("trace_file",), "trace-replay replays this JSONL trace (a container path)", "/traces/trace.jsonl")
    return out + _concurrencies(b) + _positive(b, ("ttft_threshold_ms", "itl_threshold_ms"))


def _sglang_bench(b: BenchmarkSpec, engine: str, frontend: str, disaggregated: bool) -> list[Problem]:
    out = _need(b, ("isl", "osl"), "sglang-bench needs it", "1024")
    return out + _positive(b, ("isl", "osl")) + _concurrencies(b) + _req_rate(b)


def _router(b: BenchmarkSpec, engine: str, frontend: str, disaggregated: bool) -> list[Problem]:
    out = _positive(b, ("isl", "osl", "num_requests", "concurrency"))
    if frontend != "sglang-router":
        out.append(
            Problem(
                "benchmark.type",
                "the router benchmark measures sglang-router's prefix routing",
                "set frontend.type: sglang-router",
            )
        )
    return out


def _custom(b: BenchmarkSpec, engine: str, frontend: str, disaggregated: bool) -> list[Problem]:
    return (
        []
        if b.command
        else [Problem("benchmark.command", "a custom benchmark needs a command", "set benchmark.command")]
    )


_CHECKS = {
    "sa-bench": _sa_bench,
    "gsm8k": _gsm8k,
    "gpqa": _eval,
    "mmlu": _eval,
    "longbenchv2": _eval,
    "mooncake-router": _mooncake,
    "trace-replay": _trace,
    "sglang-bench": _sglang_bench,
    "router": _router,
    "custom": _custom,
}
