"""Where a client's TTFT goes beyond the engines': mock workers direct and behind the real routers (sglang-router,
smg, vllm-router; one worker, and P/D 1p2d), streamed completions measured by a raw-socket client with the kernel's
delayed ACK (as most clients are) and with TCP_QUICKACK (no delayed ACK), beside the engines' own TTFT mean from
their /metrics.

Figure: the plain client's TTFT p50; floor: the quick-ACK client's, same path, same run. A ratio well above 1 is
a router that holds the first chunk for the client's delayed ACK (no TCP_NODELAY towards clients: sglang-router
0.3.2, README "serving figures"); the engines' mean shows the figures the Serving panel reads.

    python benchmarks/router_ttft.py [--requests 40] [--latency-ms 20]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.ratios import REPO, row  # noqa: E402

HOST = "127.0.0.1"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _wait(port: int, path: str, timeout: float = 60) -> None:
    """Until ``path`` answers 200 on ``port``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection((HOST, port), timeout=2) as s:
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n".encode())
            if s.recv(64).startswith(b"HTTP/1.1 200"):
                return
        time.sleep(0.3)
    raise SystemExit(f"port {port} did not answer {path} in {timeout:g} s")


@contextlib.contextmanager
def _procs() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes started for one path, each in its own session, ended with it."""
    started: list[subprocess.Popen[bytes]] = []
    try:
        yield started
    finally:
        for proc in started:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 15)
        for proc in started:
            proc.wait(timeout=10)


def _start(procs: list[subprocess.Popen[bytes]], argv: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs.append(
        subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    )


def _mock(procs: list[subprocess.Popen[bytes]], role: str, flavor: str, latency_ms: float, *extra: str) -> int:
    port = _free_port()
    argv = [sys.executable, "-m", "srt_tui.mock", "serve", "--host", HOST, "--port", str(port), "--role", role]
    _start(procs, [*argv, "--flavor", flavor, "--latency-ms", str(latency_ms), *extra])
    _wait(port, "/health")
    return port


def _ttfts(port: int, n: int, quick: bool) -> list[float]:
    """TTFT in ms of ``n`` streamed completions on one keep-alive connection (the first 3 left out: the kernel
    acknowledges at once at a connection's start)."""
    body = json.dumps({"model": "mock-model", "prompt": "hello " * 32, "max_tokens": 16, "stream": True}).encode()
    request = (
        f"POST /v1/completions HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    out = []
    with socket.create_connection((HOST, port), timeout=30) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for _ in range(n + 3):
            started, first, seen = time.perf_counter(), 0.0, b""
            sock.sendall(request)
            while not seen.endswith(b"0\r\n\r\n"):
                if quick:
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
                data = sock.recv(65536)
                if not data:
                    raise SystemExit(f"port {port} closed the connection")
                seen += data
                if not first and b"data:" in seen:
                    first = time.perf_counter()
            out.append((first - started) * 1000)
    return out[3:]


def _engines_mean_ms(ports: list[int], family: str = "time_to_first_token") -> float:
    """The engines' mean of ``family``, ms, over every request they answered (their histograms' `_sum` /
    `_count`)."""
    total = count = 0.0
    for port in ports:
        with socket.create_connection((HOST, port), timeout=5) as s:
            s.sendall(f"GET /metrics HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n".encode())
            text = b"".join(iter(lambda: s.recv(65536), b"")).decode()
        for part, value in re.findall(r"^\S*" + family + r"_seconds_(sum|count)\{[^}]*\} (\S+)$", text, re.M):
            if part == "sum":
                total += float(value)
            else:
                count += float(value)
    return total / count * 1000 if count else float("nan")


def _measure(name: str, port: int, engines: list[int], n: int, prefill: int | None = None) -> None:
    """One path's row, and the engines' TTFT mean as the Serving panel adds it up (behind vllm-router's P/D, the
    prefill's time to answer plus the decodes' TTFT: ``prefill``)."""
    plain = statistics.median(_ttfts(port, n, quick=False))
    quick = statistics.median(_ttfts(port, n, quick=True))
    row(f"{name}: client TTFT p50 / quick-ACK", plain / 1000, quick / 1000, "quick-ACK")
    mean = _engines_mean_ms(engines)
    if prefill is not None:
        mean += _engines_mean_ms([prefill], "e2e_request_latency")
    print(f"      engines' TTFT mean {mean:.1f} ms")


def main() -> None:
    """Each path in turn, its processes ended before the next."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--requests", type=int, default=40)
    p.add_argument("--latency-ms", type=float, default=20.0, help="the mocks' time to first token")
    args = p.parse_args()
    n, lat = args.requests, args.latency_ms
    listen = ["--host", HOST, "--prometheus-host", HOST]
    with _procs() as procs:
        w = _mock(procs, "regular", "sglang", lat)
        _measure("direct (mock worker)", w, [w], n)
    routers = {
        "sglang-router": [sys.executable, "-m", "sglang_router.launch_router", "--policy", "round_robin", *listen],
        "smg": ["smg", "launch", "--policy", "round_robin", "--host", HOST],
        "vllm-router": ["vllm-router", *listen],
    }
    for name, argv in routers.items():
        if shutil.which(argv[0]) is None and argv[0] != sys.executable:
            print(f"  {name}: not installed (make deps), left out")
            continue
        flavor = "vllm" if name == "vllm-router" else "sglang"
        for pd in (False, True):
            with _procs() as procs:
                if pd:
                    boot = _free_port()
                    extra = ("--bootstrap-port", str(boot)) if flavor == "sglang" else ()
                    pre = _mock(procs, "prefill", flavor, lat, *extra)
                    decodes = [_mock(procs, "decode", flavor, lat) for _ in range(2)]
                    flag = "--vllm-pd-disaggregation" if flavor == "vllm" else "--pd-disaggregation"
                    workers = [flag, "--prefill", f"http://{HOST}:{pre}", *([str(boot)] if flavor == "sglang" else [])]
                    for d in decodes:
                        workers += ["--decode", f"http://{HOST}:{d}"]
                    engines, prefill = decodes, (pre if flavor == "vllm" else None)
                else:
                    w = _mock(procs, "regular", flavor, lat)
                    workers, engines, prefill = ["--worker-urls", f"http://{HOST}:{w}"], [w], None
                port, metrics = _free_port(), _free_port()
                _start(procs, [*argv, *workers, "--port", str(port), "--prometheus-port", str(metrics)])
                _wait(port, "/health", timeout=90)
                _measure(f"{name} {'P/D 1p2d' if pd else '1 worker'}", port, engines, n, prefill)


if __name__ == "__main__":
    main()
