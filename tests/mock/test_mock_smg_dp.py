"""Data-parallel ranks: the mock worker serves a request on the rank it names (SGLang's `routed_dp_rank`,
vLLM's header) and places unnamed ones itself; the real Shepherd Model Gateway (`smg` 1.13.0) with
`--dp-aware` sends work to every rank of a 1P1D pair of DP-8 workers, and the monitor reads its `/workers`
(one entry per rank) as one prefill and one decode worker."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from srt_tui.monitor.probes.registrations import parse_router_workers
from tests.conftest import require
from tests.mock.mockprocs import HOST, Launcher, Proc, Worker, free_port, wait_until

RANKS = 8


def smg_on_path() -> bool:
    """Whether `smg` runs the Shepherd Model Gateway (`smg 1.x`), not sglang-router's script of the same name."""
    try:
        out = subprocess.run(["smg", "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.startswith("smg 1.")


def _complete(url: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.post(url + "/v1/completions", json=body, headers=headers, timeout=10, trust_env=False)


def _ranks(worker: Worker) -> list[dict[str, int]]:
    ranks: list[dict[str, int]] = worker.stats()["dp_ranks"]
    return ranks


def test_the_worker_serves_the_rank_a_request_names_and_places_the_others_itself(launcher: Launcher) -> None:
    worker = launcher.wait_worker(launcher.start_worker("regular", "--dp-size", "4"))
    body = {"model": "mock-model", "prompt": "hi", "max_tokens": 2}
    assert _complete(worker.url, {**body, "routed_dp_rank": 2}).status_code == 200
    assert _complete(worker.url, {**body, "data_parallel_rank": 3}).status_code == 200  # SGLang's older field
    refused = _complete(worker.url, {**body, "routed_dp_rank": 4})
    assert refused.status_code == 400 and "ranks 0..3" in refused.text
    for _ in range(4):  # unnamed: round-robin over the ranks, as SGLang's DP controller
        assert _complete(worker.url, body).status_code == 200
    ranks = _ranks(worker)
    assert [r["ok"] for r in ranks] == [1, 1, 2, 2] and [r["routed"] for r in ranks] == [0, 0, 1, 1]
    assert all(r["failed"] == 0 and r["running"] == 0 for r in ranks)
    metrics = worker.get("/metrics").text
    assert f'srt_mock_dp_rank_routed_total{{worker="{worker.name}",dp_rank="3"}} 1.0' in metrics
    assert [r["dp_rank"] for r in worker.get("/get_load").json()] == [0, 1, 2, 3]


def test_a_vllm_worker_reads_the_rank_from_the_header(launcher: Launcher) -> None:
    worker = launcher.wait_worker(launcher.start_worker("regular", "--dp-size", "2", flavor="vllm"))
    body = {"model": "mock-model", "prompt": "hi", "max_tokens": 2}
    assert _complete(worker.url, body, {"X-data-parallel-rank": "1"}).status_code == 200
    assert _complete(worker.url, body, {"X-data-parallel-rank": "one"}).status_code == 400
    assert [(r["ok"], r["routed"]) for r in _ranks(worker)] == [(0, 0), (1, 1)]


@pytest.fixture(scope="module")
def smg_pair(launcher: Launcher) -> Iterator[tuple[str, Worker, Worker]]:
    """A DP-8 prefill and a DP-8 decode mock worker behind `smg launch --pd-disaggregation --dp-aware`."""
    require(smg_on_path(), "smg 1.x is not the `smg` on PATH (pip install .[test]; sglang-router has one too)")
    dp = ("--tp-size", str(RANKS), "--dp-size", str(RANKS))
    prefill = launcher.start_worker("prefill", *dp, name="p0", bootstrap_port=free_port())
    decode = launcher.start_worker("decode", *dp, name="d0")
    prefill, decode = launcher.wait_worker(prefill), launcher.wait_worker(decode)
    port, prom = free_port(), free_port()
    argv = ["smg", "launch", "--pd-disaggregation", "--prefill", prefill.url, str(prefill.bootstrap_port)]
    argv += ["--decode", decode.url, "--host", HOST, "--port", str(port), "--prometheus-port", str(prom)]
    argv += ["--dp-aware", "--policy", "round_robin", "--log-level", "warn", "--disable-circuit-breaker"]
    argv += ["--health-check-interval-secs", "1", "--worker-startup-check-interval", "1"]
    proc: Proc = launcher.spawn(f"smg-{port}", argv)
    url = f"http://{HOST}:{port}"

    def registered() -> bool:
        if proc.popen.poll() is not None:
            pytest.fail(f"smg exited early:\n{proc.tail()}")
        try:
            entries = httpx.get(url + "/workers", timeout=2, trust_env=False).json().get("workers", [])
        except (httpx.HTTPError, ValueError):
            return False
        return len(entries) == 2 * RANKS and all(e.get("is_healthy") for e in entries)

    wait_until(registered, 30, "smg to register 16 healthy DP ranks")
    yield url, prefill, decode


@pytest.mark.routers
def test_smg_dp_aware_sends_work_to_every_rank_of_both_workers(smg_pair: tuple[str, Worker, Worker]) -> None:
    url, prefill, decode = smg_pair
    requests = 4 * RANKS
    for index in range(requests):
        body = {"model": "mock-model", "prompt": f"p {index}", "max_tokens": 3, "stream": index % 2 == 1}
        response = _complete(url, body)
        assert response.status_code == 200, response.text
    for worker in (prefill, decode):
        ranks = _ranks(worker)
        assert all(r["ok"] > 0 and r["failed"] == 0 for r in ranks), (worker.name, ranks)
        # every request named its rank: the router placed all of them, the worker none
        assert [r["routed"] for r in ranks] == [r["ok"] for r in ranks] and sum(r["ok"] for r in ranks) == requests


@pytest.mark.routers
def test_the_monitor_reads_smgs_rank_entries_as_one_worker_each(smg_pair: tuple[str, Worker, Worker]) -> None:
    url, prefill, decode = smg_pair
    body = httpx.get(url + "/workers", timeout=5, trust_env=False).json()
    assert body["stats"] == {"prefill_count": RANKS, "decode_count": RANKS, "regular_count": 0}  # what it says
    regs = parse_router_workers(body)
    assert regs.registered == {"prefill": 1, "decode": 1} and regs.healthy == {"prefill": 1, "decode": 1}
    assert regs.by_url == {prefill.url: True, decode.url: True}
