"""Benchmark stage commands: each engine's own serving benchmark, or the mocker's load generator."""

from __future__ import annotations

from collections.abc import Callable

from . import placeholders as ph
from .recipe import BenchmarkSpec


def _sglang(url: str, model: str, served: str, b: BenchmarkSpec, c: int) -> tuple[str, ...]:
    n = c * (b.num_prompts_mult or 10)
    return (
        "python3",
        "-m",
        "sglang.bench_serving",
        "--backend",
        "sglang-oai",
        "--base-url",
        url,
        "--model",
        model,
        "--served-model-name",
        served,
        "--dataset-name",
        b.dataset_name or "random",
        "--random-input-len",
        str(b.isl),
        "--random-output-len",
        str(b.osl),
        "--random-range-ratio",
        str(b.random_range_ratio if b.random_range_ratio is not None else 0.8),
        "--max-concurrency",
        str(c),
        "--num-prompts",
        str(n),
        "--request-rate",
        str(b.req_rate or "inf"),
        "--output-file",
        f"{ph.LOGS}/benchmark_c{c}.jsonl",
    )


def _vllm(url: str, model: str, served: str, b: BenchmarkSpec, c: int) -> tuple[str, ...]:
    n = c * (b.num_prompts_mult or 10)
    return (
        "vllm",
        "bench",
        "serve",
        "--backend",
        "openai",
        "--base-url",
        url,
        "--model",
        model,
        "--served-model-name",
        served,
        "--dataset-name",
        b.dataset_name or "random",
        "--random-input-len",
        str(b.isl),
        "--random-output-len",
        str(b.osl),
        "--max-concurrency",
        str(c),
        "--num-prompts",
        str(n),
        "--request-rate",
        str(b.req_rate or "inf"),
        "--save-result",
        "--result-dir",
        ph.LOGS,
        "--result-filename",
        f"benchmark_c{c}.json",
    )


def _mocker_all(url: str, served: str, b: BenchmarkSpec) -> tuple[str, ...]:
    return (
        "python3",
        "-m",
        "srt_tui.mock",
        "bench",
        "--url",
        url,
        "--model",
        served,
        "--isl",
        str(b.isl or 128),
        "--osl",
        str(b.osl or 16),
        "--concurrencies",
        "x".join(str(c) for c in b.concurrency_list() or [1]),
        "--num-prompts-mult",
        str(b.num_prompts_mult or 10),
        "--num-warmup-mult",
        str(b.num_warmup_mult or 0),
        "--out",
        f"{ph.LOGS}/benchmark.json",
    )


_PER_CONCURRENCY: dict[str, Callable[[str, str, str, BenchmarkSpec, int], tuple[str, ...]]] = {
    "sglang": _sglang,
    "vllm": _vllm,
}


def benchmark_commands(tool: str, url: str, model: str, served: str, b: BenchmarkSpec) -> list[tuple[str, ...]]:
    """Commands run one after another on the head node once the router is ready (empty: just serve)."""
    if b.type == "custom" and b.command:
        return [("bash", "-lc", b.command)]
    if b.type != "sa-bench":
        return []
    if tool == "mocker":
        return [_mocker_all(url, served, b)]
    build = _PER_CONCURRENCY[tool]
    return [build(url, model, served, b, c) for c in b.concurrency_list()]
