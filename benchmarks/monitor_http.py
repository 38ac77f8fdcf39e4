#!/usr/bin/env python3
"""The monitor's HTTP: one shared pooled `httpx.AsyncClient` beside the hand-written keep-alive client.

For 16, 128 and 1,024 real mock workers on loopback (benchmarks/mock_fleet.py) one pass is what a refresh
asks of every worker: `/health` and `/metrics`, all endpoints at once. Each client is warmed (its connections
open) and then timed over `--rounds` passes, the two alternated so they share the machine's load; the figure is
the CPU time of this process per pass (median). httpx is used as the issue asks: one client for the whole
run, HTTP/1.1, limits sized to the endpoints (a connection per endpoint kept alive), no per-request client.
The floor is the hand-written client (`srt_tui.monitor.probes.http.ProbeClient`, what the Monitor uses), so
the ratio is httpx's cost over it; the issue's rule: within 1.5x, switch to httpx; else keep the hand-written
client and drop httpx from the runtime requirements.

    python benchmarks/monitor_http.py [--sizes 16,128,1024] [--rounds 3]

2026-12-02 (2 cores shared, load ~4-8, httpx 0.28.1), CPU s per pass:

    endpoints  hand-written  httpx   ratio
    16         0.006         0.070   ~11
    128        0.040         0.60    ~15
    1024       httpx failed its warm pass (ReadError after minutes of CPU: its pass is so slow the
               mock workers closed connections it still held); `--httpx-max 128` skips it

httpx is an order of magnitude over the 1.5x rule at every size, so the Monitor keeps its own client and httpx
is a test dependency only (the tests use it as an ordinary client of the mock workers and routers).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.monitor_refresh import free_ports, start_fleet  # noqa: E402
from benchmarks.ratios import median, row  # noqa: E402
from srt_tui.monitor.probes.http import ProbeClient  # noqa: E402

Pass = Callable[[], Awaitable[None]]


def hand_written(ports: list[int]) -> tuple[Pass, Callable[[], None]]:
    """The Monitor's client: /health and /metrics pipelined on each endpoint's kept-alive connection."""
    client = ProbeClient(timeout=60.0, connect_timeout=30.0)

    async def one(port: int) -> None:
        health, metrics = await client.get_many("127.0.0.1", port, ["/health", "/metrics"])
        assert health.status == 200 and metrics.status == 200 and metrics.text()

    async def run() -> None:
        await asyncio.gather(*(one(p) for p in ports))

    return run, client.close


def pooled_httpx(ports: list[int]) -> tuple[Pass, Callable[[], Awaitable[None]]]:
    """One shared httpx.AsyncClient, HTTP/1.1, a kept-alive connection per endpoint."""
    import httpx

    limits = httpx.Limits(max_connections=len(ports), max_keepalive_connections=len(ports))
    client = httpx.AsyncClient(limits=limits, trust_env=False, timeout=120.0, http1=True, http2=False)

    async def one(port: int) -> None:
        health = await client.get(f"http://127.0.0.1:{port}/health")
        metrics = await client.get(f"http://127.0.0.1:{port}/metrics")
        assert health.status_code == 200 and metrics.status_code == 200 and metrics.text

    async def run() -> None:
        await asyncio.gather(*(one(p) for p in ports))

    return run, client.aclose


async def cpu_of(run: Pass) -> float:
    start = time.process_time()
    await run()
    return time.process_time() - start


async def compare(ports: list[int], rounds: int, with_httpx: bool) -> tuple[list[float], list[float]]:
    """(hand-written CPU per pass, httpx CPU per pass), alternated after one warm pass of each."""
    own, own_close = hand_written(ports)
    hx, hx_close = pooled_httpx(ports)
    mine: list[float] = []
    theirs: list[float] = []
    try:
        await own()
        if with_httpx:
            await hx()
        for _ in range(rounds):
            mine.append(await cpu_of(own))
            if with_httpx:
                theirs.append(await cpu_of(hx))
    finally:
        own_close()
        await hx_close()
    return mine, theirs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="16,128,1024")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--httpx-max", type=int, default=1024, help="skip httpx above this many endpoints")
    args = parser.parse_args()
    results = []
    for n in (int(x) for x in args.sizes.split(",")):
        ports = free_ports(n)
        fleet = start_fleet(ports)
        try:
            mine, theirs = asyncio.run(compare(ports, args.rounds, n <= args.httpx_max))
        except Exception as exc:  # noqa: BLE001 - httpx failing at a size is a result too
            print(f"  {n:>5} endpoints: failed ({type(exc).__name__}: {exc})")
            continue
        finally:
            for p in fleet:
                p.kill()
                p.wait()
        print(f"  {n:>5} endpoints: hand-written {[round(x, 4) for x in mine]}  httpx {[round(x, 4) for x in theirs]}")
        results.append((n, median(mine), median(theirs) if theirs else None))
    print(f"The monitor's HTTP, CPU s per pass of /health + /metrics on every endpoint (median of {args.rounds}):")
    for n, mine_s, theirs_s in results:
        if theirs_s is not None:
            row(f"httpx pooled client, {n} endpoints", theirs_s, mine_s, "hand-written", goal=1.5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
