"""A P/D pair of mock workers behind the real sglang-router: the decode's exported TTFT includes its wait for
the prefill's KV, as a real SGLang decode's does, so it agrees with the TTFT the load generator measures."""

from __future__ import annotations

import importlib.util
import json
import re
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require
from tests.mock.mockprocs import HOST, Launcher, Worker, child_env, free_port

pytestmark = pytest.mark.routers

#: the prefill's pretend compute: long against the router's and the mocks' own overhead (a few ms), so a
#: decode that does not wait for it shows a TTFT near zero
PREFILL_MS = 150
REQUESTS = 20


def _exported(worker: Worker, family: str) -> tuple[float, float]:
    """(sum, count) of one of the worker's histograms on its /metrics."""
    text = worker.get("/metrics").text
    values = {}
    for part in ("sum", "count"):
        match = re.search(rf"^{re.escape(family)}_{part}\{{[^}}]*\}} (\S+)$", text, re.MULTILINE)
        assert match, f"{family}_{part} missing from {worker.name}'s /metrics"
        values[part] = float(match.group(1))
    return values["sum"], values["count"]


def test_decode_ttft_includes_the_wait_for_its_prefill(launcher: Launcher, tmp_path: Path) -> None:
    require(importlib.util.find_spec("sglang_router") is not None, "sglang_router is not installed")
    prefill = launcher.start_worker("prefill", "--latency-ms", str(PREFILL_MS), name="p0", bootstrap_port=free_port())
    decode = launcher.start_worker("decode", name="d0")
    workers = [launcher.wait_worker(prefill), launcher.wait_worker(decode)]
    router = launcher.router("sglang", workers)
    out = tmp_path / "bench.json"
    argv = [sys.executable, "-m", "srt_tui.mock", "bench", "--url", router.url, "--isl", "16", "--osl", "4"]
    argv += ["--concurrencies", "2", "--num-prompts-mult", str(REQUESTS // 2), "--stream", "--out", str(out)]
    result = subprocess.run(argv, env=child_env(), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    level = json.loads(out.read_text())["results"][0]
    assert level["ok"] == REQUESTS, level["error_samples"]
    client_ms = statistics.mean(ttft for _, _, ttft in level["finished"])
    total, count = _exported(decode, "sglang:time_to_first_token_seconds")
    decode_ms = total / count * 1000
    p_total, p_count = _exported(prefill, "sglang:time_to_first_token_seconds")
    print(
        f"client TTFT mean {client_ms:.1f} ms; decode exports {decode_ms:.1f} ms over {count:g}, "
        f"prefill {p_total / p_count * 1000:.1f} ms over {p_count:g}"
    )
    assert count == REQUESTS
    # the client's TTFT adds the router's hop and the HTTP around both legs; the decode's covers the wait for
    # the prefill's KV (its compute, PREFILL_MS) and its own first token
    assert decode_ms >= PREFILL_MS * 0.9, (decode_ms, client_ms)
    assert 0.6 * client_ms <= decode_ms <= 1.1 * client_ms, (decode_ms, client_ms)


def test_a_decode_waits_for_a_prefill_that_comes_later_and_fails_one_that_never_does(launcher: Launcher) -> None:
    prefill = launcher.start_worker("prefill", name="p1", bootstrap_port=free_port())
    decode = launcher.start_worker("decode", "--kv-wait-timeout", "0.5", name="d1")
    prefill, decode = launcher.wait_worker(prefill), launcher.wait_worker(decode)

    def body(room: int) -> dict[str, Any]:
        fields = {"bootstrap_host": HOST, "bootstrap_port": prefill.bootstrap_port, "bootstrap_room": room}
        return {"model": "mock-model", "prompt": "x", "max_tokens": 2, **fields}

    # the decode asks first; the prefill's request for the same room comes 0.3 s later and releases it
    with ThreadPoolExecutor(1) as pool:
        started = time.monotonic()
        waiting = pool.submit(decode.post, "/v1/completions", body(100))
        time.sleep(0.3)
        assert prefill.post("/v1/completions", body(100)).status_code == 200
        answer = waiting.result(timeout=10)
    assert answer.status_code == 200, answer.text
    assert time.monotonic() - started >= 0.3
    # a room its prefill never gets: a 500 after the decode's wait, saying so as SGLang's decode does
    started = time.monotonic()
    failed = decode.post("/v1/completions", body(99))
    assert failed.status_code == 500 and 0.4 <= time.monotonic() - started < 4
    message = failed.json()["message"]
    assert "bootstrap_room=99" in message and "timed out after 0.5s" in message, message
    assert "prefill p1 did not finish room 99" in message, message
    pd = decode.stats()["pd"]
    assert (pd["kv_waits"], pd["kv_wait_failures"]) == (2, 1)
