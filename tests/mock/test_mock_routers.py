"""The real PyPI routers (sglang-router 0.3.2, vllm-router 0.1.17) in front of mock workers."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from typing import Any

import httpx
import pytest

from tests.conftest import require
from tests.mock.mockprocs import Launcher, Router, Worker, child_env, wait_until

pytestmark = pytest.mark.routers

REQUESTS = 40


@pytest.fixture(scope="module", autouse=True)
def _routers_installed() -> None:
    """Both PyPI routers must be importable (skipped locally without them, a failure under CI=true)."""
    for module in ("sglang_router", "vllm_router"):
        require(importlib.util.find_spec(module) is not None, f"{module} is not installed (pip install .[test])")


def _body(index: int, stream: bool = False) -> tuple[str, dict[str, Any]]:
    """Request ``index`` of a mix over the three generation APIs."""
    kind = index % 3
    if kind == 0:
        return "/v1/completions", {"model": "mock-model", "prompt": f"p {index}", "max_tokens": 3, "stream": stream}
    if kind == 1:
        messages = [{"role": "user", "content": f"hello {index}"}]
        return "/v1/chat/completions", {"model": "mock-model", "messages": messages, "max_tokens": 3, "stream": stream}
    return "/generate", {"text": f"g {index}", "sampling_params": {"max_new_tokens": 3}, "stream": stream}


def _answerer(path: str, response: httpx.Response, stream: bool) -> str:
    """The worker named by the first generated token."""
    if not stream:
        answer = response.json()
        if path == "/generate":
            text = answer["text"]
        elif path == "/v1/completions":
            text = answer["choices"][0]["text"]
        else:
            text = answer["choices"][0]["message"]["content"]
        return str(text.split()[0])
    for block in response.text.split("\n\n"):
        if block.startswith("data: {"):
            event = json.loads(block[6:])
            if path == "/generate":
                return str(event["text"].split()[0])
            choice = event["choices"][0]
            text = choice["delta"]["content"] if path.endswith("chat/completions") else choice["text"]
            return str(text.split()[0])
    raise AssertionError(f"no tokens in stream: {response.text[:300]}")


def _send(router: Router, count: int = REQUESTS, streams: tuple[bool, ...] = (False, True)) -> dict[str, int]:
    """Send ``count`` mixed requests through the router; every one must be 200. Returns answers per worker."""
    answered: dict[str, int] = {}
    with httpx.Client(base_url=router.url, timeout=10, trust_env=False) as client:
        for index in range(count):
            stream = streams[index % len(streams)]
            path, body = _body(index, stream)
            response = client.post(path, json=body)
            assert response.status_code == 200, f"{path} -> {response.status_code} {response.text[:300]}"
            who = _answerer(path, response, stream)
            answered[who] = answered.get(who, 0) + 1
    return answered


def _served(workers: list[Worker]) -> dict[str, int]:
    """Generation requests each worker answered OK so far."""
    return {w.name: w.served() for w in workers}


def _delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """Per-worker increase."""
    return {name: after[name] - before[name] for name in after}


def _types(router: Router) -> dict[str, str]:
    """worker_type per worker URL in the router's /workers."""
    listing = httpx.get(router.url + "/workers", timeout=5, trust_env=False).json()
    return {entry["url"]: entry["worker_type"] for entry in listing["workers"]}


# --- sglang-router ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sglang_regular(launcher: Launcher) -> tuple[Router, list[Worker]]:
    """sglang-router in regular mode over two workers."""
    workers = launcher.workers(("regular", "r1"), ("regular", "r2"))
    return launcher.router("sglang", workers), workers


def test_sglang_regular_round_robin_split(sglang_regular: tuple[Router, list[Worker]]) -> None:
    router, workers = sglang_regular
    before = _served(workers)
    answered = _send(router)
    assert _delta(before, _served(workers)) == {"r1": 20, "r2": 20}
    assert answered == {"r1": 20, "r2": 20}
    assert set(_types(router).values()) == {"regular"}
    info = {w["url"]: w for w in httpx.get(router.url + "/workers", timeout=5, trust_env=False).json()["workers"]}
    assert {w["metadata"]["disaggregation_mode"] for w in info.values()} == {"null"}


def test_sglang_router_aggregates_worker_loads(sglang_regular: tuple[Router, list[Worker]]) -> None:
    router, workers = sglang_regular
    workers[0].post("/mock/load", value="5", tokens="123")
    try:
        loads = httpx.get(router.url + "/get_loads", timeout=5, trust_env=False).json()["workers"]
        assert {entry["worker"]: entry["load"] for entry in loads} == {workers[0].url: 123, workers[1].url: 0}
    finally:
        workers[0].post("/mock/load")


def test_bench_through_sglang_router(sglang_regular: tuple[Router, list[Worker]], tmp_path: Any) -> None:
    router, workers = sglang_regular
    out = tmp_path / "bench.json"
    argv = [sys.executable, "-m", "srt_tui.mock", "bench", "--url", router.url, "--isl", "8", "--osl", "4"]
    argv += ["--concurrencies", "2x4", "--num-prompts-mult", "4", "--num-warmup-mult", "1", "--stream"]
    argv += ["--endpoint", "/v1/chat/completions", "--out", str(out)]
    result = subprocess.run(argv, env=child_env(), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "answered by:" in result.stdout and "conc" in result.stdout
    report = json.loads(out.read_text())
    assert [level["concurrency"] for level in report["results"]] == [2, 4]
    for level in report["results"]:
        assert level["requests"] == level["ok"] == level["concurrency"] * 4 and level["errors"] == 0
        assert level["output_token_throughput"] > 0 and level["request_throughput"] > 0
        assert all(level["latency_ms"][q] is not None for q in ("p50", "p90", "p99", "mean"))
        assert all(level["ttft_ms"][q] is not None for q in ("p50", "p90", "p99"))
        assert level["latency_ms"]["p50"] <= level["latency_ms"]["p99"]
    assert report["totals"]["requests"] == report["totals"]["ok"] == 24
    assert report["totals"]["output_tokens"] == 24 * 4
    assert report["answered_by"] == {"r1": 12, "r2": 12}


def _healthy(router: Router) -> dict[str, bool]:
    """is_healthy per worker URL in the router's /workers."""
    listing = httpx.get(router.url + "/workers", timeout=5, trust_env=False).json()
    return {entry["url"]: bool(entry["is_healthy"]) for entry in listing["workers"]}


def test_sglang_router_follows_the_mock_health_control(sglang_regular: tuple[Router, list[Worker]]) -> None:
    router, workers = sglang_regular
    sick, well = workers
    sick.post("/mock/health", ok="0")
    try:
        wait_until(lambda: not _healthy(router)[sick.url], 10, "the router to mark the worker unhealthy")
        before = _served(workers)
        assert _send(router, count=6) == {well.name: 6}
        assert _delta(before, _served(workers)) == {sick.name: 0, well.name: 6}
    finally:
        sick.post("/mock/health", ok="1")
    wait_until(lambda: _healthy(router)[sick.url], 10, "the router to mark the worker healthy again")


@pytest.mark.parametrize(("prefills", "decodes"), [(2, 1), (1, 2)], ids=["2P1D", "1P2D"])
def test_sglang_pd(launcher: Launcher, prefills: int, decodes: int) -> None:
    specs = [("prefill", f"p{i}") for i in range(prefills)] + [("decode", f"d{i}") for i in range(decodes)]
    workers = launcher.workers(*specs)
    router = launcher.router("sglang", workers)
    assert _types(router) == {w.url: w.role for w in workers}
    answered = _send(router)
    prefill_workers = [w for w in workers if w.role == "prefill"]
    decode_workers = [w for w in workers if w.role == "decode"]
    share = REQUESTS // prefills
    assert _served(prefill_workers) == {w.name: share for w in prefill_workers}
    assert _served(decode_workers) == {w.name: REQUESTS // decodes for w in decode_workers}
    assert answered == {w.name: REQUESTS // decodes for w in decode_workers}
    # Both legs of each request carry the same bootstrap room; the prefill's own bootstrap port.
    rooms: dict[str, set[int]] = {}
    for w in workers:
        stats = w.stats()
        assert stats["pd"]["bootstrap_seen"] == w.served() and stats["pd"]["bootstrap_mismatch"] == 0
        recent = w.get("/mock/requests", n=str(REQUESTS)).json()["requests"]
        rooms[w.name] = {r["body"]["bootstrap_room"] for r in recent}
    prefill_rooms = set().union(*(rooms[w.name] for w in prefill_workers))
    decode_rooms = set().union(*(rooms[w.name] for w in decode_workers))
    assert prefill_rooms == decode_rooms and len(decode_rooms) == REQUESTS


# --- vllm-router ------------------------------------------------------------------------------------


def test_vllm_pd_2p1d(launcher: Launcher) -> None:
    workers = launcher.workers(("prefill", "vp0"), ("prefill", "vp1"), ("decode", "vd0"), flavor="vllm")
    router = launcher.router("vllm", workers)
    assert _types(router) == {w.url: w.role for w in workers}
    answered: dict[str, int] = {}
    with httpx.Client(base_url=router.url, timeout=10, trust_env=False) as client:
        for index in range(REQUESTS):
            stream = index % 2 == 1
            messages = [{"role": "user", "content": f"hello {index}"}]
            body = {"model": "mock-model", "messages": messages, "max_tokens": 5, "stream": stream}
            response = client.post("/v1/chat/completions", json=body)
            assert response.status_code == 200, response.text[:300]
            who = _answerer("/v1/chat/completions", response, stream)
            answered[who] = answered.get(who, 0) + 1
            if not stream:
                assert response.json()["usage"]["completion_tokens"] == 5
    assert answered == {"vd0": REQUESTS}
    assert _served(workers) == {"vp0": 20, "vp1": 20, "vd0": REQUESTS}
    # The router hands each prefill's KV parameters to the decode leg.
    decode = workers[2].stats()
    assert decode["pd"]["kv_from"] == {"mock-engine-vp0": 20, "mock-engine-vp1": 20}
    prefill_bodies = workers[0].get("/mock/requests", n="5").json()["requests"]
    assert all(r["body"]["kv_transfer_params"]["do_remote_decode"] for r in prefill_bodies)
    assert all(r["body"]["max_tokens"] == 1 and r["body"]["stream"] is False for r in prefill_bodies)
    readiness = httpx.get(router.url + "/readiness", timeout=5, trust_env=False).json()
    assert readiness["prefill"] == {"healthy": 2, "total": 2} and readiness["decode"] == {"healthy": 1, "total": 1}
