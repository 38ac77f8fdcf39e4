"""Helpers for the mocker tests: real mock-worker, mock GPU exporter and router processes on free
loopback ports."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
READY_TIMEOUT_S = 20.0
ROUTER_COMMON = [
    "--host", HOST,
    "--policy", "round_robin",
    "--prometheus-host", HOST,
    "--health-check-interval-secs", "1",
    "--health-failure-threshold", "2",
    "--health-success-threshold", "1",
    "--health-check-timeout-secs", "1",
    "--worker-startup-check-interval", "1",
]  # fmt: skip


def free_port() -> int:
    """A port nobody listens on right now (bind port 0 and let the kernel choose)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def port_open(port: int, host: str = HOST) -> bool:
    """Whether something accepts TCP connections on the port."""
    try:
        with socket.create_connection((host, port), timeout=0.2):
            return True
    except OSError:
        return False


def wait_until(predicate: Callable[[], bool], timeout: float, what: str) -> float:
    """Poll ``predicate`` every 0.1 s; returns the seconds it took, fails the test after ``timeout``."""
    started = time.monotonic()
    while not predicate():
        if time.monotonic() - started > timeout:
            pytest.fail(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.1)
    return time.monotonic() - started


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for child processes: this checkout importable, hub lookups kept on loopback."""
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    env["HF_ENDPOINT"] = "http://127.0.0.1:9"
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


@dataclass
class Proc:
    """A child process with its combined output in a log file."""

    name: str
    popen: subprocess.Popen[bytes]
    log: Path

    def tail(self, lines: int = 40) -> str:
        """The end of the process log, for failure messages."""
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        """Terminate, then kill if it does not go within a few seconds."""
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(timeout=5)


@dataclass
class Worker:
    """A running mock worker."""

    name: str
    role: str
    port: int
    proc: Proc
    bootstrap_port: int | None = None

    @property
    def url(self) -> str:
        """Base URL."""
        return f"http://{HOST}:{self.port}"

    def get(self, path: str, **params: Any) -> httpx.Response:
        """GET on the worker."""
        return httpx.get(self.url + path, params=params, timeout=5, trust_env=False)

    def post(self, path: str, json: Any = None, **params: Any) -> httpx.Response:
        """POST on the worker."""
        return httpx.post(self.url + path, json=json, params=params, timeout=5, trust_env=False)

    def stats(self) -> dict[str, Any]:
        """The worker's own counters."""
        response = self.get("/mock/stats")
        response.raise_for_status()
        result: dict[str, Any] = response.json()
        return result

    def served(self) -> int:
        """Generation requests answered OK so far."""
        return int(self.stats()["generation"]["ok"])


@dataclass
class Router:
    """A running sglang-router or vllm-router."""

    kind: str
    port: int
    prometheus_port: int
    proc: Proc

    @property
    def url(self) -> str:
        """Base URL."""
        return f"http://{HOST}:{self.port}"

    @property
    def metrics_url(self) -> str:
        """The router's own Prometheus endpoint."""
        return f"http://{HOST}:{self.prometheus_port}/metrics"


@dataclass
class Exporter:
    """A running mock GPU exporter (`python -m srt_tui.mock exporter`)."""

    kind: str
    port: int
    proc: Proc
    gpus: int = 8
    node_name: str = ""

    @property
    def url(self) -> str:
        """Base URL."""
        return f"http://{HOST}:{self.port}"

    @property
    def metrics_url(self) -> str:
        """What a job's endpoints.json lists for this node."""
        return self.url + "/metrics"

    def set(self, index: int | None = None, **values: float | str) -> list[dict[str, Any]]:
        """Set util/power/temp of one GPU (or all); returns every GPU's readings as the exporter has them."""
        params = {k: str(v) for k, v in values.items()} | ({"index": str(index)} if index is not None else {})
        response = httpx.post(self.url + "/mock/gpu", params=params, timeout=5, trust_env=False)
        response.raise_for_status()
        gpus: list[dict[str, Any]] = response.json()["gpus"]
        return gpus

    def readings(self) -> list[dict[str, Any]]:
        """Every GPU's readings as the exporter has them."""
        response = httpx.get(self.url + "/mock/gpu", timeout=5, trust_env=False)
        response.raise_for_status()
        gpus: list[dict[str, Any]] = response.json()["gpus"]
        return gpus

    def scrapes(self) -> int:
        """How many times /metrics was requested."""
        response = httpx.get(self.url + "/mock/stats", timeout=5, trust_env=False)
        response.raise_for_status()
        return int(response.json()["requests"].get("/metrics", 0))


@dataclass
class Launcher:
    """Starts mock workers and routers as real processes and stops them all at the end."""

    tmp: Path
    procs: list[Proc] = field(default_factory=list)

    def spawn(self, name: str, argv: Sequence[str], env: dict[str, str] | None = None) -> Proc:
        """Start a process with output to ``<tmp>/<name>.log``."""
        log = self.tmp / f"{name}.log"
        with open(log, "wb") as fh:
            popen = subprocess.Popen(list(argv), stdout=fh, stderr=subprocess.STDOUT, env=child_env(env))
        proc = Proc(name, popen, log)
        self.procs.append(proc)
        return proc

    def start_worker(
        self,
        role: str = "regular",
        *args: str,
        flavor: str = "sglang",
        name: str | None = None,
        bootstrap_port: int | None = None,
        env: dict[str, str] | None = None,
        port: int | None = None,
    ) -> Worker:
        """Launch a mock worker without waiting for it."""
        port = port or free_port()
        name = name or f"{role[0]}{port}"
        argv = [sys.executable, "-m", "srt_tui.mock", "serve", "--host", HOST, "--port", str(port)]
        argv += ["--role", role, "--flavor", flavor, "--name", name, "--token-latency-ms", "0", *args]
        if bootstrap_port is not None:
            argv += ["--bootstrap-port", str(bootstrap_port)]
        return Worker(name, role, port, self.spawn(name, argv, env), bootstrap_port)

    def wait_worker(self, worker: Worker, timeout: float = READY_TIMEOUT_S) -> Worker:
        """Block until the worker answers /health."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if worker.proc.popen.poll() is not None:
                pytest.fail(f"worker {worker.name} exited early:\n{worker.proc.tail()}")
            if port_open(worker.port):
                try:
                    if worker.get("/health").status_code == 200:
                        return worker
                except httpx.HTTPError:
                    pass
            time.sleep(0.05)
        pytest.fail(f"worker {worker.name} not ready after {timeout}s:\n{worker.proc.tail()}")

    def start_exporter(
        self,
        kind: str,
        *,
        gpus: int = 8,
        node_name: str | None = None,
        port: int | None = None,
        env: dict[str, str] | None = None,
    ) -> Exporter:
        """Launch a mock GPU exporter without waiting for it (`env`: e.g. its load board)."""
        port = port or free_port()
        node = node_name or f"{kind}-node-{port}"
        argv = [sys.executable, "-m", "srt_tui.mock", "exporter", "--host", HOST, "--port", str(port)]
        argv += ["--kind", kind, "--gpus", str(gpus), "--node-name", node]
        return Exporter(kind, port, self.spawn(f"exporter-{kind}-{port}", argv, env), gpus, node)

    def wait_exporter(self, exporter: Exporter, timeout: float = READY_TIMEOUT_S) -> Exporter:
        """Block until the exporter answers /health."""

        def ready() -> bool:
            if exporter.proc.popen.poll() is not None:
                pytest.fail(f"exporter on {exporter.port} exited early:\n{exporter.proc.tail()}")
            try:
                return httpx.get(exporter.url + "/health", timeout=1, trust_env=False).status_code == 200
            except httpx.HTTPError:
                return False

        wait_until(ready, timeout, f"the {exporter.kind} exporter on port {exporter.port}")
        return exporter

    def workers(self, *specs: tuple[str, str], flavor: str = "sglang") -> list[Worker]:
        """Start (role, name) workers in parallel, then wait for all; prefills get bootstrap ports."""
        started = [
            self.start_worker(role, flavor=flavor, name=name, bootstrap_port=free_port() if role == "prefill" else None)
            for role, name in specs
        ]
        return [self.wait_worker(w) for w in started]

    def router(self, kind: str, workers: Sequence[Worker], *extra: str) -> Router:
        """Start sglang-router or vllm-router in front of ``workers`` and wait until all are registered."""
        port, prom = free_port(), free_port()
        module = "sglang_router.launch_router" if kind == "sglang" else "vllm_router.launch_router"
        argv = [sys.executable, "-m", module, *ROUTER_COMMON, "--port", str(port), "--prometheus-port", str(prom)]
        argv += ["--log-level", "warn" if kind == "sglang" else "warning"]
        pd = any(w.role != "regular" for w in workers)
        if not pd:
            argv += ["--worker-urls", *(w.url for w in workers)]
        else:
            argv.append("--pd-disaggregation" if kind == "sglang" else "--vllm-pd-disaggregation")
            for w in workers:
                if w.role == "prefill":
                    argv += ["--prefill", w.url]
                    if kind == "sglang":
                        argv.append(str(w.bootstrap_port) if w.bootstrap_port else "none")
                else:
                    argv += ["--decode", w.url]
            if kind == "sglang":
                argv.append("--disable-circuit-breaker")
        router = Router(kind, port, prom, self.spawn(f"{kind}-router-{port}", [*argv, *extra]))
        self._wait_router(router, len(workers))
        return router

    def _wait_router(self, router: Router, expected: int, timeout: float = READY_TIMEOUT_S) -> None:
        """Block until /readiness is 200 and /workers lists every worker as healthy."""
        deadline = time.monotonic() + timeout
        last = ""
        while time.monotonic() < deadline:
            if router.proc.popen.poll() is not None:
                pytest.fail(f"{router.kind} router exited early:\n{router.proc.tail()}")
            try:
                ready = httpx.get(router.url + "/readiness", timeout=2, trust_env=False)
                listing = httpx.get(router.url + "/workers", timeout=2, trust_env=False)
                last = f"{ready.status_code} {ready.text} / {listing.text[:300]}"
                if ready.status_code == 200 and listing.status_code == 200:
                    entries = listing.json().get("workers", [])
                    if len(entries) == expected and all(e.get("is_healthy") for e in entries):
                        return
            except httpx.HTTPError as exc:
                last = repr(exc)
            time.sleep(0.1)
        pytest.fail(f"{router.kind} router not ready after {timeout}s ({last}):\n{router.proc.tail()}")

    def close(self) -> None:
        """Stop everything this launcher started."""
        for proc in reversed(self.procs):
            proc.stop()
        self.procs.clear()
