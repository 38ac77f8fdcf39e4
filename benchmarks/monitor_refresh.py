"""Monitor refresh cost for 16, 128 and 1,024 real mocker endpoints on loopback.

For each size it starts that many real mock workers (`benchmarks/mock_fleet.py`: up to 256
`srt_tui.mock` MockServers per process, each on its own port), writes job directories of 16 workers
each (1, 8 and 64 jobs), and measures with one reused `Monitor`:

* wall and CPU time (this process) of a cold refresh (new connections) and of steady refreshes;
* Slurm queries per refresh (a counting SlurmClient; in-process by default, `--slurm cli` wraps the
  real command-line transport, which needs the local test cluster);
* UI input latency while refreshing: the real app in Monitor mode polls the same jobs continuously
  through `LiveFeed`, and the time from a key press until its handler ran is measured while a
  refresh is in flight (Textual Pilot, headless).

Optionally (`--httpx`) the same GETs with httpx.AsyncClient, the reason the monitor has its own
client (benchmarks/monitor_http.py compares the two properly). Each larger size ends with a ratio row: its steady
CPU over the smallest size's scaled linearly (above 1: the refresh grows faster than the endpoints).
Run: `python benchmarks/monitor_refresh.py [--sizes 16,128,1024] [--slurm fake|cli] [--httpx]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.ratios import row  # noqa: E402
from srt_tui.monitor.snapshot.collect import Monitor  # noqa: E402
from srt_tui.slurm.client import JobState  # noqa: E402

PER_PROCESS = 256
PER_JOB = 16


class FakeSlurm:
    """In-process SlurmClient answering RUNNING for every id (counts queries)."""

    name = "fake"
    supports_json = False
    in_process = True
    last_error: str | None = None

    def __init__(self) -> None:
        self.queries = 0

    def query(self, job_ids: Sequence[str]) -> dict[str, JobState]:
        self.queries += 1
        return {j: JobState(j, "bench", "RUNNING") for j in job_ids}


def counting_cli() -> object:
    """The real CLI transport, counting queries."""
    from srt_tui.slurm.cli_transport import CliTransport

    class Counting(CliTransport):
        queries = 0

        def query(self, job_ids: Sequence[str]) -> dict[str, JobState]:
            Counting.queries += 1
            return super().query(job_ids)

    return Counting()


def free_ports(n: int) -> list[int]:
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [int(s.getsockname()[1]) for s in socks]
    for s in socks:
        s.close()
    return ports


def start_fleet(ports: list[int], *, nice: int = 0) -> list[subprocess.Popen[bytes]]:
    """Mock workers answering on ``ports``; ``nice``: they stand for GPU nodes elsewhere, whose CPU a login
    node's TUI does not share (benchmarks of the TUI's own latency run them at a low priority)."""
    procs = []
    for i in range(0, len(ports), PER_PROCESS):
        chunk = ",".join(map(str, ports[i : i + PER_PROCESS]))
        procs.append(
            subprocess.Popen(
                [sys.executable, str(REPO / "benchmarks" / "mock_fleet.py"), "--ports", chunk],
                stdout=subprocess.PIPE,
                env={**os.environ, "PYTHONPATH": str(REPO)},
                preexec_fn=(lambda: os.nice(nice)) if nice else None,  # noqa: PLW1509 (no threads yet)
            )
        )
    for p in procs:
        assert p.stdout is not None
        line = p.stdout.readline().decode().strip()
        if not line.startswith("ready"):
            raise SystemExit(f"mock fleet did not start: {line!r}")
    return procs


def write_jobs(base: Path, ports: list[int]) -> dict[str, Path]:
    jobs = {}
    for j in range(0, len(ports), PER_JOB):
        job_id = str(700000 + j // PER_JOB)
        d = base / job_id
        (d / "logs").mkdir(parents=True)
        chunk = ports[j : j + PER_JOB]
        procs: list[dict[str, Any]] = [
            {"name": f"agg_{i}", "role": "agg", "kind": "worker", "node_index": i // 8, "gpus": [i % 8],
             "visible_devices": str(i % 8), "port": p, "url": f"http://127.0.0.1:{p}", "log": f"logs/agg_{i}.log",
             "node_rank": 0}
            for i, p in enumerate(chunk)
        ]  # fmt: skip
        plan = {"name": f"bench-{job_id}", "profile": "local", "topology": f"agg{len(chunk)}", "engine": "mocker",
                "frontend": "none", "nodes": (len(chunk) + 7) // 8, "gpus_per_node": 8, "processes": procs,
                "router": None}  # fmt: skip
        endpoints = {
            "workers": [{"name": p["name"], "role": "agg", "url": p["url"], "health_url": p["url"] + "/health",
                         "metrics_url": p["url"] + "/metrics"} for p in procs],
            "router": None,
        }  # fmt: skip
        (d / "plan.json").write_text(json.dumps(plan))
        (d / "endpoints.json").write_text(json.dumps(endpoints))
        (d / "job.json").write_text(json.dumps({"job_id": job_id, "name": plan["name"], "launcher": "slurm"}))
        (d / "status.jsonl").write_text(json.dumps({"stage": "serving", "time": "2026-01-01T00:00:00Z"}) + "\n")
        jobs[job_id] = d
    return jobs


@dataclass(frozen=True)
class RefreshStats:
    """Cold refresh (wall, cpu), steady refreshes' walls and CPUs, Slurm queries per refresh."""

    cold: tuple[float, float]
    wall: list[float]
    cpu: list[float]
    queries_per_refresh: float


async def measure_refreshes(jobs: dict[str, Path], slurm: object, rounds: int) -> RefreshStats:
    monitor = Monitor(slurm)  # type: ignore[arg-type]
    samples = []
    try:
        for r in range(rounds + 1):
            t0, c0 = time.perf_counter(), time.process_time()
            snaps = await monitor.refresh(jobs)
            samples.append((time.perf_counter() - t0, time.process_time() - c0))
            bad = sum(1 for s in snaps for w in s.workers if w.health != "healthy")
            if bad:
                raise SystemExit(f"refresh {r}: {bad} endpoints not healthy")
            await asyncio.sleep(0.3)
    finally:
        await monitor.aclose()
    warm = samples[1:]
    return RefreshStats(
        samples[0], [w for w, _ in warm], [c for _, c in warm], monitor.slurm_queries / monitor.refreshes
    )


async def measure_httpx(ports: list[int]) -> tuple[float, float]:
    import httpx

    limits = httpx.Limits(max_connections=len(ports) * 2, max_keepalive_connections=len(ports) * 2)
    async with httpx.AsyncClient(limits=limits, trust_env=False, timeout=120) as client:

        async def one(port: int) -> None:
            await client.get(f"http://127.0.0.1:{port}/health")
            await client.get(f"http://127.0.0.1:{port}/metrics")

        await asyncio.gather(*(one(p) for p in ports))  # warm the pool
        t0, c0 = time.perf_counter(), time.process_time()
        await asyncio.gather(*(one(p) for p in ports))
        return time.perf_counter() - t0, time.process_time() - c0


def fake_monitor() -> Any:
    """A Monitor over FakeSlurm (what the app's monitor process builds for `monitor_app(..., child=True)`)."""
    return Monitor(FakeSlurm())  # type: ignore[arg-type]


def monitor_app(jobs: dict[str, Path], slurm: object, *, child: bool = False) -> Any:
    """The real app in Monitor mode on `jobs`, refreshing as fast as it can (every 0.01 s); `child`: its feed in a
    process of its own as the TUI runs it (ChildFeed, over a fresh FakeSlurm there), else on the app's loop."""
    from srt_tui.monitor.feeds import SnapshotFeed
    from srt_tui.monitor.feeds.live import LiveFeed
    from srt_tui.monitor.feeds.process import ChildFeed
    from srt_tui.tui.app import SrtTuiApp
    from srt_tui.tui.monitor.screen import MonitorScreen

    feed: SnapshotFeed = (
        ChildFeed(factory="benchmarks.monitor_refresh:fake_monitor", env={"PYTHONPATH": str(REPO)})
        if child
        else LiveFeed(monitor_factory=lambda: Monitor(slurm))  # type: ignore[arg-type]
    )

    class App(SrtTuiApp):
        DEFAULT_MODE = "monitor"
        CSS_PATH = str(REPO / "srt_tui" / "tui" / "app.tcss")

        def __init__(self) -> None:
            super().__init__(
                check_slurm=False,
                cursor_blink=False,
                screens={
                    "monitor": lambda hub: MonitorScreen(hub, feed, jobs=jobs, discover=False, poll_interval=0.01)
                },
            )

    return App()


async def measure_ui_latency(jobs: dict[str, Path], slurm: object, presses: int) -> dict[str, float]:
    """Key-press-to-handled latency in the real app while LiveFeed refreshes continuously."""
    from textual import events

    from srt_tui.tui.monitor.screen import MonitorScreen

    app = monitor_app(jobs, slurm)
    latencies: list[float] = []
    took: list[float] = []
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        driver = app._driver
        assert driver is not None
        assert isinstance(screen, MonitorScreen)
        while screen.polls < 1:  # first (cold) refresh
            await pilot.pause(0.05)
        for _ in range(presses):
            while not screen._polling:  # a refresh is in flight
                await asyncio.sleep(0.005)
            await asyncio.sleep(0.02)
            before = screen.sort
            key = events.Key("s", "s")
            key.set_sender(app)
            t0 = time.perf_counter()
            driver.send_message(key)  # as a terminal key press arrives (Pilot.press would also wait for idle)
            while screen.sort == before:
                await asyncio.sleep(0.0005)
            latencies.append(time.perf_counter() - t0)
            if screen.last_took_s is not None:
                took.append(screen.last_took_s)
        polls = screen.polls
    return {
        "median": statistics.median(latencies),
        "max": max(latencies),
        "polls": float(polls),
        "refresh_in_app": statistics.median(took) if took else float("nan"),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="16,128,1024")
    p.add_argument("--rounds", type=int, default=5, help="steady refreshes after the cold one")
    p.add_argument("--presses", type=int, default=8, help="key presses for the UI latency")
    p.add_argument("--slurm", choices=("fake", "cli"), default="fake")
    p.add_argument("--httpx", action="store_true", help="also time httpx.AsyncClient on the same GETs")
    args = p.parse_args()
    load = os.getloadavg()[0]
    print(f"machine: {os.cpu_count()} CPUs, load average {load:.2f}; Python {sys.version.split()[0]}")
    print("endpoints jobs | cold wall/cpu | steady wall med/max | steady cpu med/max | slurm q/refresh | "
          "UI key latency med/max (in-app refresh)" + (" | httpx wall/cpu" if args.httpx else ""))  # fmt: skip
    steady: dict[int, float] = {}
    for n in (int(x) for x in args.sizes.split(",")):
        ports = free_ports(n)
        fleet = start_fleet(ports)
        try:
            with tempfile.TemporaryDirectory() as tmp:
                jobs = write_jobs(Path(tmp), ports)
                slurm = FakeSlurm() if args.slurm == "fake" else counting_cli()
                r = asyncio.run(measure_refreshes(jobs, slurm, args.rounds))
                ui = asyncio.run(measure_ui_latency(jobs, FakeSlurm() if args.slurm == "fake" else slurm, args.presses))
                hx = asyncio.run(measure_httpx(ports)) if args.httpx else None
            (cold_w, cold_c), wall, cpu = r.cold, r.wall, r.cpu
            steady[n] = statistics.median(cpu)
            line = (
                f"{n:>9} {len(jobs):>4} | {cold_w:5.3f} / {cold_c:5.3f} s | "
                f"{statistics.median(wall):5.3f} / {max(wall):5.3f} s | "
                f"{statistics.median(cpu):5.3f} / {max(cpu):5.3f} s | "
                f"{r.queries_per_refresh:.2f} | "
                f"{ui['median'] * 1000:5.1f} / {ui['max'] * 1000:5.1f} ms ({ui['refresh_in_app']:.3f} s)"
            )
            if hx is not None:
                line += f" | {hx[0]:6.3f} / {hx[1]:6.3f} s"
            print(line, flush=True)
        finally:
            for proc in fleet:
                proc.kill()
                proc.wait()
    smallest = min(steady, default=0)
    for n, cpu_s in steady.items():  # the floor: the smallest size's CPU scaled linearly, measured in this run
        if n != smallest and steady[smallest] > 0:
            linear = steady[smallest] * n / smallest
            row(f"steady refresh CPU, {n} endpoints", cpu_s, linear, f"{smallest} endpoints x{n // smallest}")


if __name__ == "__main__":
    main()
