"""Serving families an engine exports on /metrics: the latency histograms, token counters, queue gauges
and KV-cache usage the monitor turns into TTFT/ITL/E2E quantiles, tok/s, running/waiting and KV %.

Names as the engines' own metric collectors define them (SGLang `TokenizerMetricsCollector` and
`SchedulerMetricsCollector`, vLLM v1 `PrometheusStatLogger`); a plan.json carries the chosen contract per
worker (`serving`), so the monitor reads names, never engine names.
"""

from __future__ import annotations

from collections.abc import Mapping

#: histogram families (seconds): time to first token, inter-token latency (TPOT), end-to-end latency
HISTOGRAM_KEYS = ("ttft", "itl", "e2e")
#: counter families (tokens): prompt tokens in, generated tokens out
COUNTER_KEYS = ("input_tokens", "output_tokens")
#: gauge families: requests running and waiting, KV-cache usage as a fraction (1 = full)
GAUGE_KEYS = ("running", "waiting", "kv_usage")

SGLANG: dict[str, str] = {
    "ttft": "sglang:time_to_first_token_seconds",
    "itl": "sglang:inter_token_latency_seconds",
    "e2e": "sglang:e2e_request_latency_seconds",
    "input_tokens": "sglang:prompt_tokens_total",
    "output_tokens": "sglang:generation_tokens_total",
    "running": "sglang:num_running_reqs",
    "waiting": "sglang:num_queue_reqs",
    "kv_usage": "sglang:token_usage",
}

#: vLLM ≥ 0.11 (V1 engine): `inter_token_latency_seconds` replaced `time_per_output_token_seconds`,
#: `kv_cache_usage_perc` replaced `gpu_cache_usage_perc`
VLLM: dict[str, str] = {
    "ttft": "vllm:time_to_first_token_seconds",
    "itl": "vllm:inter_token_latency_seconds",
    "e2e": "vllm:e2e_request_latency_seconds",
    "input_tokens": "vllm:prompt_tokens_total",
    "output_tokens": "vllm:generation_tokens_total",
    "running": "vllm:num_requests_running",
    "waiting": "vllm:num_requests_waiting",
    "kv_usage": "vllm:kv_cache_usage_perc",
}

#: default histogram buckets (upper bounds, seconds) of each family, as the engines define them
SGLANG_BUCKETS: dict[str, tuple[float, ...]] = {
    "ttft": (0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400),
    "itl": (
        0.002,
        0.004,
        0.006,
        0.008,
        0.010,
        0.015,
        0.020,
        0.025,
        0.030,
        0.035,
        0.040,
        0.060,
        0.080,
        0.100,
        0.200,
        0.400,
        0.600,
        0.800,
        1.0,
        2.0,
        4.0,
        6.0,
        8.0,
    ),  # fmt: skip
    "e2e": (0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400, 600, 1200, 1800, 2400),
}
VLLM_BUCKETS: dict[str, tuple[float, ...]] = {
    "ttft": (
        0.001,
        0.005,
        0.01,
        0.02,
        0.04,
        0.06,
        0.08,
        0.1,
        0.25,
        0.5,
        0.75,
        1.0,
        2.5,
        5.0,
        7.5,
        10.0,
        20.0,
        40.0,
        80.0,
        160.0,
        640.0,
        2560.0,
    ),  # fmt: skip
    "itl": (
        0.01,
        0.025,
        0.05,
        0.075,
        0.1,
        0.15,
        0.2,
        0.3,
        0.4,
        0.5,
        0.75,
        1.0,
        2.5,
        5.0,
        7.5,
        10.0,
        20.0,
        40.0,
        80.0,
    ),  # fmt: skip
    "e2e": (
        0.3,
        0.5,
        0.8,
        1.0,
        1.5,
        2.0,
        2.5,
        5.0,
        10.0,
        15.0,
        20.0,
        30.0,
        40.0,
        50.0,
        60.0,
        120.0,
        240.0,
        480.0,
        960.0,
        1920.0,
        7680.0,
    ),  # fmt: skip
}

#: Dynamo's frontend, as the client sees it (its input tokens: the prompt-length histogram's sum)
DYNAMO_FRONTEND: dict[str, str] = {
    "ttft": "dynamo_frontend_time_to_first_token_seconds",
    "itl": "dynamo_frontend_inter_token_latency_seconds",
    "e2e": "dynamo_frontend_request_duration_seconds",
    "input_tokens": "dynamo_frontend_input_sequence_tokens_sum",
    "output_tokens": "dynamo_frontend_output_tokens_total",
    "running": "dynamo_frontend_inflight_requests",
    "waiting": "dynamo_frontend_queued_requests",
}

#: sglang-router (SMG): recorded on its gRPC path; absent families simply show nothing
SGLANG_ROUTER: dict[str, str] = {
    "ttft": "smg_router_ttft_seconds",
    "itl": "smg_router_tpot_seconds",
    "e2e": "smg_router_generation_duration_seconds",
}

#: the families by the worker API a server speaks (what the mocker imitates per `--flavor`)
BY_API: dict[str, dict[str, str]] = {"sglang": SGLANG, "vllm": VLLM}
BUCKETS_BY_API: dict[str, dict[str, tuple[float, ...]]] = {"sglang": SGLANG_BUCKETS, "vllm": VLLM_BUCKETS}


def serving_contract(declared: Mapping[str, Mapping[str, str]], worker_api: str) -> dict[str, str]:
    """An engine's serving families for a worker speaking ``worker_api``: its entry for that API, else its
    API-independent entry (key ""), else none (the engine exports no serving families)."""
    chosen = declared.get(worker_api) or declared.get("") or {}
    return dict(chosen)
