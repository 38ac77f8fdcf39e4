"""The monitor reads request counters where plan.json's metric contracts say, not by metric prefix:
Dynamo workers on their system port, the Dynamo frontend, and the engines' own names."""

from __future__ import annotations

from srt_tui.core.engines import ENGINES
from srt_tui.core.frontends.routers import ROUTERS
from srt_tui.monitor.probes import selectors
from srt_tui.monitor.probes.prom import WORKER_SAMPLES, SampleCache, router_counters, worker_counters

# lines as ai-dynamo 1.6.1's dynamo.mocker served them on DYN_SYSTEM_PORT after 3 requests, one running
# (its dynamo_namespace label dropped, ids shortened)
DYNAMO_WORKER = """# TYPE dynamo_component_inflight_requests gauge
dynamo_component_inflight_requests{dynamo_component="backend",dynamo_endpoint="generate",worker_id="2040a23"} 1
dynamo_component_inflight_requests{dynamo_component="backend",dynamo_endpoint="kv_query",worker_id="2040a23"} 0
# TYPE dynamo_component_requests_total counter
dynamo_component_requests_total{dynamo_component="backend",dynamo_endpoint="generate",worker_id="2040a23"} 3
dynamo_component_requests_total{dynamo_component="backend",dynamo_endpoint="kv_query",worker_id="2040a23"} 5
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{dp_rank="0"} 0
"""
DYNAMO_FRONTEND = """# TYPE dynamo_frontend_requests_total counter
dynamo_frontend_requests_total{endpoint="completions",model="m",status="success"} 38
dynamo_frontend_requests_total{endpoint="chat_completions",model="m",status="success"} 2
dynamo_frontend_requests_total{endpoint="completions",error_type="internal",model="m",status="error"} 1
"""


def _contract(router: str) -> dict[str, str]:
    return dict(ROUTERS[router].worker_metrics)


def test_selectors_parse_names_and_matchers() -> None:
    sel = selectors.parse_selector('x_total{a="1",b!="two",c=~"[45].."}')
    assert sel is not None and sel.name == "x_total"
    assert sel.matchers == (("a", "=", "1"), ("b", "!=", "two"), ("c", "=~", "[45].."))
    assert selectors.parse_selector("sglang:num_running_reqs") == selectors.Selector("sglang:num_running_reqs")
    assert selectors.parse_selector('x{a="1"') is None and selectors.parse_selector("{}") is None


def test_dynamo_worker_counters_come_from_its_generate_endpoint() -> None:
    contract = _contract("dynamo")
    samples = SampleCache().samples(DYNAMO_WORKER, WORKER_SAMPLES + selectors.names(contract))
    c = worker_counters(samples, contract)
    # the kv-query endpoint's 5 calls are not requests; without the contract nothing would be read
    assert (c.total, c.running) == (3, 1)
    assert worker_counters(samples).total is None


def test_dynamo_frontend_counters_from_its_contract() -> None:
    contract = ROUTERS["dynamo"].metrics
    samples = SampleCache().samples(DYNAMO_FRONTEND, selectors.names(contract))
    c = router_counters(samples, contract)
    assert (c.requests, c.errors) == (41, 1)


def test_engine_contracts_read_what_the_prefix_readers_read() -> None:
    """SGLang's and vLLM's declared names give the counters the monitor always derived for them."""
    sglang = 'sglang:num_requests_total{m="x"} 40\nsglang:num_running_reqs{m="x"} 3\nsglang:num_queue_reqs{m="x"} 1\n'
    vllm = 'vllm:request_success_total{r="stop"} 5\nvllm:request_success_total{r="l"} 7\nvllm:num_requests_running 2\n'
    for engine, text in (("sglang", sglang), ("vllm", vllm)):
        contract = ENGINES[engine].metrics
        samples = SampleCache().samples(text, WORKER_SAMPLES + selectors.names(contract))
        assert worker_counters(samples, contract) == worker_counters(samples), engine
