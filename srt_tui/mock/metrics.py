"""Prometheus text exposition of a mock worker: engine-style series per flavour plus mock counters."""

from __future__ import annotations

from collections.abc import Iterable

from srt_tui.core.engines.serving import BY_API
from srt_tui.mock.config import WorkerConfig
from srt_tui.mock.state import WorkerState

Labels = tuple[tuple[str, str], ...]
Sample = tuple[Labels, float]


def _escape(value: str) -> str:
    """Escape a label value for the text format."""
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _family(name: str, kind: str, doc: str, samples: Iterable[Sample]) -> list[str]:
    """HELP, TYPE and sample lines of one family; ``name`` is the full sample name."""
    lines = [f"# HELP {name} {doc}", f"# TYPE {name} {kind}"]
    for labels, value in samples:
        rendered = ",".join(f'{key}="{_escape(val)}"' for key, val in labels)
        lines.append(f"{name}{{{rendered}}} {float(value)!r}" if labels else f"{name} {float(value)!r}")
    return lines


def _engine_series(config: WorkerConfig, state: WorkerState) -> list[tuple[str, str, str, float]]:
    """(name, type, help, value) of the engine's own series, named as SGLang or vLLM name them."""
    if config.flavor == "vllm":
        return [
            ("vllm:num_requests_running", "gauge", "Requests in model execution batches.", state.running),
            ("vllm:num_requests_waiting", "gauge", "Requests waiting to be processed.", 0),
            ("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage; 1 means 100 percent.", state.token_usage),
            ("vllm:prompt_tokens_total", "counter", "Prefill tokens processed.", state.prompt_tokens_total),
            (
                "vllm:generation_tokens_total",
                "counter",
                "Generation tokens processed.",
                state.generation_tokens_total,
            ),
            (
                "vllm:request_success_total",
                "counter",
                "Successfully processed requests.",
                state.generation_success_total,
            ),
        ]
    return [
        ("sglang:num_running_reqs", "gauge", "The number of running requests.", state.running),
        ("sglang:num_queue_reqs", "gauge", "The number of requests in the waiting queue.", 0),
        ("sglang:token_usage", "gauge", "The token usage.", state.token_usage),
        (
            "sglang:prompt_tokens_total",
            "counter",
            "Number of prefill tokens processed.",
            state.prompt_tokens_total,
        ),
        (
            "sglang:generation_tokens_total",
            "counter",
            "Number of generation tokens processed.",
            state.generation_tokens_total,
        ),
        (
            "sglang:num_requests_total",
            "counter",
            "Number of requests processed.",
            state.generation_success_total,
        ),
    ]


def _engine_labels(config: WorkerConfig) -> Labels:
    """Labels on engine series; vLLM's ``engine`` label is what vllm-router counts in PD mode."""
    if config.flavor == "vllm":
        return (("engine", "0"), ("model_name", config.model))
    return (("model_name", config.model),)


def _mock_families(config: WorkerConfig, state: WorkerState) -> list[str]:
    """Mock counters: every request by path and outcome, and generation requests in flight."""
    base: Labels = (("worker", config.name), ("role", config.role))
    request_samples: list[Sample] = [
        ((*base, ("path", path), ("status", status)), value)
        for path, counts in sorted(state.paths.items())
        for status, value in (("ok", counts.ok), ("failed", counts.failed))
    ]
    running: list[Sample] = [((("worker", config.name),), state.running)]
    out = [
        *_family("srt_mock_requests_total", "counter", "Requests answered by this mock worker.", request_samples),
        *_family("srt_mock_requests_running", "gauge", "Generation requests in flight.", running),
    ]
    if config.dp_size > 1:  # which data-parallel rank served what, and how many the router placed there
        ranks = state.dp.ranks
        served: list[Sample] = [
            ((("worker", config.name), ("dp_rank", str(r)), ("status", status)), value)
            for r, counts in enumerate(ranks)
            for status, value in (("ok", counts.ok), ("failed", counts.failed))
        ]
        routed: list[Sample] = [((("worker", config.name), ("dp_rank", str(r))), c.routed) for r, c in enumerate(ranks)]
        out += _family("srt_mock_dp_rank_requests_total", "counter", "Generation requests per DP rank.", served)
        out += _family("srt_mock_dp_rank_routed_total", "counter", "Requests the router placed on a DP rank.", routed)
    return out


_HISTOGRAM_HELP = {
    "ttft": "Histogram of time to first token in seconds.",
    "itl": "Histogram of inter-token latency in seconds.",
    "e2e": "Histogram of end-to-end request latency in seconds.",
}


def _histograms(config: WorkerConfig, state: WorkerState, labels: Labels) -> list[str]:
    """TTFT, inter-token and end-to-end latency histograms under the imitated engine's names."""
    names = BY_API.get(config.flavor, BY_API["sglang"])
    lines: list[str] = []
    for key, hist in state.latency.items():
        name = names[key]
        lines += [f"# HELP {name} {_HISTOGRAM_HELP[key]}", f"# TYPE {name} histogram"]
        for le, count in hist.cumulative():
            rendered = ",".join(f'{k}="{_escape(v)}"' for k, v in (*labels, ("le", le)))
            lines.append(f"{name}_bucket{{{rendered}}} {float(count)!r}")
        plain = ",".join(f'{k}="{_escape(v)}"' for k, v in labels)
        lines.append(f"{name}_sum{{{plain}}} {hist.total!r}")
        lines.append(f"{name}_count{{{plain}}} {float(hist.count)!r}")
    return lines


def render_metrics(config: WorkerConfig, state: WorkerState) -> str:
    """The whole ``/metrics`` text."""
    labels = _engine_labels(config)
    lines: list[str] = []
    for name, kind, doc, value in _engine_series(config, state):
        lines.extend(_family(name, kind, doc, [(labels, value)]))
    lines.extend(_histograms(config, state, labels))
    lines.extend(_mock_families(config, state))
    return "\n".join(lines) + "\n"
