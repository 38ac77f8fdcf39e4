"""The mock's Prometheus text parses with prometheus_client and carries each flavour's series."""

from __future__ import annotations

from typing import Literal

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from srt_tui.mock.config import WorkerConfig
from srt_tui.mock.metrics import render_metrics
from srt_tui.mock.state import WorkerState
from tests.mock.mockprocs import Launcher

ENGINE_SAMPLES = {
    "sglang": [
        "sglang:num_running_reqs",
        "sglang:num_queue_reqs",
        "sglang:token_usage",
        "sglang:prompt_tokens_total",
        "sglang:generation_tokens_total",
        "sglang:num_requests_total",
    ],
    "vllm": [
        "vllm:num_requests_running",
        "vllm:num_requests_waiting",
        "vllm:kv_cache_usage_perc",
        "vllm:prompt_tokens_total",
        "vllm:generation_tokens_total",
        "vllm:request_success_total",
    ],
}


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample keyed by (name, sorted labels)."""
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


@pytest.mark.parametrize("flavor", ["sglang", "vllm"])
def test_rendered_metrics_parse(flavor: Literal["sglang", "vllm"]) -> None:
    config = WorkerConfig(port=1, flavor=flavor, role="decode", name='d"1\\x')
    state = WorkerState(running=3, running_tokens=32768, prompt_tokens_total=70, generation_tokens_total=90)
    state.generation_success_total = 5
    state.record("/v1/completions", True)
    state.record("/v1/completions", False)
    state.record("/health", True)
    families = {f.name: f for f in text_string_to_metric_families(render_metrics(config, state))}
    names = {s.name for f in families.values() for s in f.samples}
    assert set(ENGINE_SAMPLES[flavor]) <= names
    samples = _samples(render_metrics(config, state))
    by_name = {name: value for (name, _), value in samples.items()}
    running = "vllm:num_requests_running" if flavor == "vllm" else "sglang:num_running_reqs"
    usage = "vllm:kv_cache_usage_perc" if flavor == "vllm" else "sglang:token_usage"
    assert by_name[running] == 3.0 and by_name[usage] == 0.5
    assert by_name[f"{flavor}:prompt_tokens_total"] == 70.0
    engine_labels = [dict(labels) for (name, labels) in samples if name.startswith(f"{flavor}:")]
    if flavor == "vllm":
        assert {labels["engine"] for labels in engine_labels} == {"0"}
    else:
        assert all("engine" not in labels for labels in engine_labels)
    requests = {
        (dict(labels)["path"], dict(labels)["status"]): value
        for (name, labels), value in samples.items()
        if name == "srt_mock_requests_total"
    }
    assert requests == {
        ("/health", "ok"): 1.0,
        ("/health", "failed"): 0.0,
        ("/v1/completions", "ok"): 1.0,
        ("/v1/completions", "failed"): 1.0,
    }
    worker_labels = {dict(labels)["worker"] for (name, labels) in samples if name.startswith("srt_mock_")}
    assert worker_labels == {'d"1\\x'}
    assert families["srt_mock_requests"].type == "counter"
    assert families["srt_mock_requests_running"].type == "gauge"


@pytest.mark.parametrize("flavor", ["sglang", "vllm"])
def test_live_metrics_count_requests(launcher: Launcher, flavor: str) -> None:
    worker = launcher.wait_worker(launcher.start_worker("regular", flavor=flavor, name=f"m-{flavor}"))
    for _ in range(3):
        assert worker.post("/v1/completions", {"prompt": "a b c d", "max_tokens": 5}).status_code == 200
    worker.post("/mock/fail", rate="1")
    assert worker.post("/v1/completions", {"prompt": "x"}).status_code == 500
    response = httpx.get(worker.url + "/metrics", timeout=5, trust_env=False)
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    samples = _samples(response.text)
    by_name: dict[str, float] = {}
    for (name, labels), value in samples.items():
        key = name if name != "srt_mock_requests_total" else f"{name}{dict(labels)['path']}:{dict(labels)['status']}"
        by_name[key] = value
    assert by_name[f"{flavor}:prompt_tokens_total"] == 12.0
    assert by_name[f"{flavor}:generation_tokens_total"] == 15.0
    assert by_name["srt_mock_requests_total/v1/completions:ok"] == 3.0
    assert by_name["srt_mock_requests_total/v1/completions:failed"] == 1.0
    assert by_name["srt_mock_requests_running"] == 0.0


@pytest.mark.parametrize("flavor", ["sglang", "vllm"])
def test_latency_histograms_follow_the_load_under_the_imitated_engines_names_and_buckets(
    launcher: Launcher, flavor: str
) -> None:
    from srt_tui.core.engines.serving import BUCKETS_BY_API, BY_API

    worker = launcher.wait_worker(launcher.start_worker("regular", flavor=flavor, name=f"h-{flavor}"))
    worker.post("/mock/delay", ms="150", token_ms="5")
    for stream in (False, True):
        body = {"prompt": "a b c", "max_tokens": 4, "stream": stream}
        assert worker.post("/v1/completions", body).status_code == 200
    text = httpx.get(worker.url + "/metrics", timeout=5, trust_env=False).text
    families = {f.name: f for f in text_string_to_metric_families(text)}
    names, bounds = BY_API[flavor], BUCKETS_BY_API[flavor]
    for key in ("ttft", "itl", "e2e"):
        family = families[names[key]]
        assert family.type == "histogram"
        les = [float(s.labels["le"]) for s in family.samples if s.name.endswith("_bucket")]
        assert les == [*bounds[key], float("inf")]
    ttft = {float(s.labels["le"]): s.value for s in families[names["ttft"]].samples if s.name.endswith("_bucket")}
    # both requests waited 150 ms for their first token: none by 0.1 s, both by 0.25 s
    assert ttft[0.1] == 0 and ttft[0.25 if flavor == "vllm" else 0.2] == 2 and ttft[float("inf")] == 2
    itl_count = next(s.value for s in families[names["itl"]].samples if s.name.endswith("_count"))
    assert itl_count == 2 * 3  # three gaps after the first of four tokens, per request
