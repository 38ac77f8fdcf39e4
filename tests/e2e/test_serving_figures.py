"""How fast the deployment serves, as `srt-tui status --json` shows it, agrees with what the load generator
itself measured: a mocker job on the real local Slurm behind the real sglang-router, under the mock bench's
closed-loop streaming load (TTFT p50 within 20 %, output tokens over the window within 10 % of the client's count)."""

from __future__ import annotations

import json
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from srt_tui.monitor import cells
from srt_tui.monitor.model import Serving
from tests.conftest import REPO
from tests.e2e.jobtools import apply, srt, status, wait_ready

pytestmark = [pytest.mark.slurm, pytest.mark.routers]
AGG2 = REPO / "recipes" / "mocker" / "mocker-agg2.yaml"


@dataclass(frozen=True)
class _Timed:
    """A call's result with the wall-clock times around it."""

    value: Any
    started: float
    ended: float


def _timed(call: Callable[[], Any]) -> _Timed:
    started = time.time()
    value = call()
    return _Timed(value, started, time.time())


def _agreement(shown: float | None, measured: float) -> float:
    assert shown is not None, "status shows no figure"
    return abs(shown - measured) / measured


def test_serving_figures_agree_with_the_load_generator(cluster: Any, jobs: list[str], tmp_path: Path) -> None:
    recipe = tmp_path / "mocker-agg2.yaml"
    # 300 ms to the first token and 8 ms per token after it: a latency SGLang's TTFT buckets resolve, and few
    # enough tokens a second that the figures follow the engines, not the CPU left by the tests beside this one
    args = "args: {tp-size: 4, latency-ms: 300, token-latency-ms: 8}"
    recipe.write_text(AGG2.read_text().replace("args: {tp-size: 4}", args))
    job_id, job_dir = apply(str(recipe), "-p", "local", "--launcher", "slurm")
    job = str(job_dir)  # by directory: job ids of other users of this login node may collide
    jobs.append(job_id)
    wait_ready(job_id)
    router = json.loads((job_dir / "endpoints.json").read_text())["router"]["url"]
    out = tmp_path / "bench.json"
    bench = subprocess.Popen(
        [sys.executable, "-m", "srt_tui.mock", "bench", "--url", router, "--concurrencies", "8", "--isl", "32"]
        + ["--osl", "64", "--num-prompts-mult", "100", "--stream", "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # 800 requests of 0.81 s, 8 at a time: at least 81 s of load; the window is 40 s of it (with 57 s, two
        # `status` runs on a loaded CI machine once took the rest: the load ended before the second scrape)
        time.sleep(5)
        first_run = _timed(lambda: status(job))  # the first scrape: `status` keeps its samples for the next run
        assert first_run.value["serving"] is not None, first_run.value
        time.sleep(40)
        second_run = _timed(lambda: status(job))
        assert bench.poll() is None, "the load ended before the second scrape: the window would hold idle time"
        _, err = bench.communicate(timeout=240)
    finally:
        if bench.poll() is None:
            bench.kill()
    assert bench.returncode == 0, err
    measured: dict[str, Any] = json.loads(out.read_text())["results"][0]
    snap = second_run.value
    serving = snap["serving"]
    # The figures of the window the two scrapes spanned, from the load generator's own requests: on a CI machine
    # the load's pace changes with the tests beside it, so the whole run's average is not the window's. Each scrape
    # happened somewhere inside its `status` run; the window's requests are those finished between the scrapes.
    done = [(t, tokens, ttft) for t, tokens, ttft in measured["finished"]]
    inside = [r for r in done if first_run.ended <= r[0] <= second_run.started]
    around = [r for r in done if first_run.started <= r[0] <= second_run.ended]
    # the engines count tokens as they generate them, the client when a request ends: the requests in flight at
    # either end of the window (8 of at most 64 tokens) are counted on different sides of it
    in_flight = 8 * 64
    counted = serving["output_tok_per_s"] * serving["window_s"]
    low, high = sum(r[1] for r in inside) - in_flight, sum(r[1] for r in around) + in_flight
    ttft_off = _agreement(serving["ttft_p50_s"], statistics.median(r[2] for r in inside) / 1000)
    print(
        f"TTFT p50 shown {serving['ttft_p50_s'] * 1000:.1f} ms, measured in the window "
        f"{statistics.median(r[2] for r in inside):.1f} ms ({ttft_off:.1%}); output tokens counted by the engines "
        f"{counted:.0f}, by the client {low}..{high}; window {serving['window_s']:.1f} s; whole run "
        f"{measured['output_token_throughput']:.1f} tok/s, shown {serving['output_tok_per_s']:.1f}"
    )
    assert ttft_off <= 0.20
    # the window's mean, from the histogram's `_sum`/`_count` (shown when the buckets cannot resolve a quantile)
    mean_off = _agreement(serving["ttft_mean_s"], statistics.mean(r[2] for r in inside) / 1000)
    assert mean_off <= 0.20, (serving["ttft_mean_s"], statistics.mean(r[2] for r in inside))
    assert low * 0.9 <= counted <= high * 1.1
    # the per-worker figures add up to the job's, and the queues and KV use are read
    per_worker = [w["serving"] for w in snap["workers"]]
    assert all(s is not None for s in per_worker)
    assert sum(s["output_tok_per_s"] for s in per_worker) == pytest.approx(serving["output_tok_per_s"])
    assert serving["running"] is not None and serving["waiting"] == 0
    assert serving["kv_usage"] is not None and 0 <= serving["kv_usage"] <= 1
    assert serving["itl_p50_s"] is not None and serving["e2e_p50_s"] is not None


def _serving(doc: dict[str, Any]) -> Serving:
    """`status --json`'s `serving` block back to the figures the panel and `status` render (lists to tuples)."""
    known: dict[str, Any] = {}
    for key, value in doc.items():
        if key in Serving.__dataclass_fields__:
            known[key] = (
                tuple(tuple(v) if isinstance(v, list) else v for v in value) if isinstance(value, list) else value
            )
    return Serving(**known)


def _quickack_ttfts(url: str, n: int) -> list[float]:
    """TTFT in ms of ``n`` streamed completions, one after another on one keep-alive connection, measured by a
    client that owes nothing to srt-tui (a blocking socket) and acknowledges every segment at once
    (TCP_QUICKACK): what a client sees of the engines and the router, without its own delayed ACK."""
    host, port = url.removeprefix("http://").rstrip("/").rsplit(":", 1)
    body = json.dumps({"model": "mock-model", "prompt": "hello " * 32, "max_tokens": 16, "stream": True}).encode()
    head = f"POST /v1/completions HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
    request = f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body
    out = []
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for _ in range(n):
            started, first, seen = time.perf_counter(), None, b""
            sock.sendall(request)
            while not seen.endswith(b"0\r\n\r\n"):  # the chunked body's end
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)  # the kernel clears it: set per read
                data = sock.recv(65536)
                assert data, "the router closed the connection"
                seen += data
                if first is None and b"data:" in seen:
                    first = time.perf_counter()
            assert first is not None
            out.append((first - started) * 1000)
    return out


def test_client_ttft_agrees_with_the_panel_behind_sglang_router(cluster: Any, jobs: list[str], tmp_path: Path) -> None:
    """A ~50 ms service behind sglang-router, the new-operator pass's case: its TTFT quantiles fall in SGLang's
    first bucket (100 ms), so the figures lead with the window's mean; `srt-tui bench` (a client with delayed ACK,
    as most are) measures up to 40 ms more, which sglang-router adds (no TCP_NODELAY towards clients), and the line
    says so; a client that acknowledges at once measures what the engines did, within 20 %."""
    recipe = tmp_path / "mocker-agg2.yaml"
    recipe.write_text(AGG2.read_text().replace("args: {tp-size: 4}", "args: {tp-size: 4, latency-ms: 50}"))
    job_id, job_dir = apply(str(recipe), "-p", "local", "--launcher", "slurm")
    job = str(job_dir)
    jobs.append(job_id)
    wait_ready(job_id)
    router = json.loads((job_dir / "endpoints.json").read_text())["router"]["url"]
    assert status(job)["serving"] is not None  # the first scrape: `status` keeps its samples for the next run
    smoke = json.loads(srt("bench", job, "-n", "300", "--concurrency", "8", "--json", timeout=300).stdout)
    assert smoke["failed"] == 0, smoke
    assert smoke["router_note"] == "sglang-router adds up to 40 ms to TTFT (no TCP_NODELAY)"
    quick = statistics.median(_quickack_ttfts(router, 60))
    snap = status(job)
    serving = _serving(snap["serving"])
    mean_ms = serving.ttft_mean_s * 1000 if serving.ttft_mean_s is not None else None
    line = cells.serving_line(serving)
    print(f"TTFT: engines' mean {mean_ms} ms; bench p50 {smoke['ttft_p50_ms']} ms; quick-ACK client p50 {quick:.1f} ms")
    print(line)
    assert mean_ms is not None
    # SGLang's first TTFT bucket is 100 ms: its quantiles say `<100 ms`, the mean leads
    assert serving.bound_of("ttft_p50_s") == pytest.approx(0.1)
    assert line.startswith(f"TTFT mean {cells.latency(serving.ttft_mean_s)} (p50, p99 <100 ms)"), line
    # what the router adds is on the line, with who adds it
    assert ", clients see up to +40 ms (sglang-router sets no TCP_NODELAY)" in line, line
    assert snap["serving"]["client_ttft_router"] == "sglang-router"
    added_ms = snap["serving"]["client_ttft_added_s"] * 1000
    assert added_ms == pytest.approx(40)
    # the engines' figure is what a client sees once its delayed ACK is out of the way: within the issue's 20 %
    # (and 2 ms: the router's own hop, a millisecond on this machine, weighs on 50 ms)
    assert abs(quick - mean_ms) <= max(0.2 * mean_ms, 2.0), (quick, mean_ms)
    # `srt-tui bench`'s TTFT p50 is the engines' plus at most what the router is documented to add, within 20 %
    assert 0.8 * mean_ms <= smoke["ttft_p50_ms"] <= 1.2 * (mean_ms + added_ms), (smoke, mean_ms, added_ms)
