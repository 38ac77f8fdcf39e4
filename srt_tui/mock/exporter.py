"""A mock GPU metrics exporter: `/metrics` in the shape of NVIDIA's DCGM exporter or AMD's
device-metrics-exporter (utilisation, power, temperature, memory used per GPU), with values that follow
the load of the mock workers on its node (see `loadboard`) or that a test sets.

``python -m srt_tui.mock exporter --port P --kind dcgm|device-metrics [--gpus N] [--node-name NAME]`` serves
``GET /metrics``, ``GET /health`` and the test controls ``POST /mock/gpu?index=I&util=U&power=W&temp=T``
(index omitted: every GPU; a value of ``none`` removes that series; a value set so stays, it no longer
follows the load) and ``GET /mock/stats`` (requests per path, so a test can tell that nobody scraped).
Standard library only, like the mock worker.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import socket
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from srt_tui.bench.wire import HttpError
from srt_tui.mock.http import Request, ResponseWriter
from srt_tui.mock.listener import Listener, stop_on_signals
from srt_tui.mock.loadboard import WorkerLoad, board_dir, read_board

PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8"
FIELDS = ("util", "power", "temp", "mem")
#: the fields a test can set (memory only follows the load)
SETTABLE = ("util", "power", "temp")
MAX_GPUS = 64
#: how fast readings follow the load: up within about a second, back to idle within a few
RISE_TAU_S = 0.5
DECAY_TAU_S = 2.0
#: a worker's load (requests in flight + rate/10) at which its GPUs read 50 % busy
HALF_BUSY_LOAD = 2.0


@dataclass(frozen=True)
class Series:
    """One metric family of a product: its name, HELP text and how its values are printed."""

    name: str
    help: str
    fmt: str


@dataclass(frozen=True)
class Product:
    """What one real exporter looks like: metric names per field, identity labels, idle power."""

    model: str
    series: dict[str, Series]
    idle_power_w: float
    labels: Callable[[str, int], tuple[tuple[str, str], ...]]
    #: power at full load, and memory (in the unit of the memory series) per GPU
    max_power_w: float = 700.0
    memory: float = 81559.0


def _dcgm_labels(node: str, gpu: int) -> tuple[tuple[str, str], ...]:
    """DCGM's per-GPU labels, in the order dcgm-exporter prints them."""
    return (
        ("gpu", str(gpu)),
        ("UUID", f"GPU-{uuid.uuid5(uuid.NAMESPACE_DNS, f'{node}/{gpu}')}"),
        ("pci_bus_id", f"00000000:{0x18 + 0x10 * gpu:02X}:00.0"),
        ("device", f"nvidia{gpu}"),
        ("modelName", "Mock H100 80GB HBM3"),
        ("Hostname", node),
    )


def _amd_labels(node: str, gpu: int) -> tuple[tuple[str, str], ...]:
    """The AMD device-metrics-exporter's per-GPU labels."""
    return (
        ("card_model", "Mock MI300X"),
        ("card_series", "AMD Instinct MI300X OAM"),
        ("card_vendor", "Advanced Micro Devices, Inc. [AMD/ATI]"),
        ("gpu_compute_partition_type", "spx"),
        ("gpu_id", str(gpu)),
        ("gpu_partition_id", "0"),
        ("hostname", node),
        ("serial_number", uuid.uuid5(uuid.NAMESPACE_DNS, f"{node}/{gpu}").hex[:16].upper()),
    )


PRODUCTS: dict[str, Product] = {
    "dcgm": Product(
        "Mock H100",
        {
            "util": Series("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", "{:.0f}"),
            "power": Series("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", "{:.6f}"),
            "temp": Series("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", "{:.0f}"),
            "mem": Series("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", "{:.0f}"),
        },
        70.0,
        _dcgm_labels,
        700.0,
        81559.0,
    ),
    "device-metrics": Product(
        "Mock MI300X",
        {
            "util": Series("gpu_gfx_activity", "Graphics engine activity (%)", "{:g}"),
            "power": Series("gpu_power_usage", "GPU power usage (W)", "{:g}"),
            "temp": Series("gpu_junction_temperature", "GPU junction temperature (C)", "{:g}"),
            "mem": Series("gpu_used_vram", "GPU used VRAM (MB)", "{:.0f}"),
        },
        140.0,
        _amd_labels,
        750.0,
        196592.0,
    ),
}
KINDS = tuple(PRODUCTS)


@dataclass
class Gpu:
    """One GPU's current readings (None: the exporter does not report that series)."""

    util: float | None
    power: float | None
    temp: float | None
    mem: float | None = None


def default_gpus(kind: str, count: int) -> list[Gpu]:
    """Deterministic idle readings: 0 % busy, idle power plus the index, 30 °C plus the index."""
    idle = PRODUCTS[kind].idle_power_w
    return [Gpu(0.0, idle + i, 30.0 + i) for i in range(count)]


def _escape(value: str) -> str:
    """A label value escaped for the text format."""
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def render(kind: str, node: str, gpus: list[Gpu]) -> str:
    """The whole ``/metrics`` text: HELP, TYPE and one sample per GPU for each series."""
    product = PRODUCTS[kind]
    labels = [",".join(f'{k}="{_escape(v)}"' for k, v in product.labels(node, i)) for i in range(len(gpus))]
    lines: list[str] = []
    for name in FIELDS:
        series = product.series[name]
        lines += [f"# HELP {series.name} {series.help}", f"# TYPE {series.name} gauge"]
        for i, gpu in enumerate(gpus):
            value = getattr(gpu, name)
            if value is not None:
                lines.append(f"{series.name}{{{labels[i]}}} {series.fmt.format(value)}")
    return "\n".join(lines) + "\n"


def busy_percent(load: WorkerLoad) -> float:
    """How busy a worker's GPUs read: saturating in requests in flight plus a tenth of the request rate."""
    amount = load.in_flight + load.rate / 10
    return 100.0 * amount / (amount + HALF_BUSY_LOAD)


class LoadFollower:
    """Moves each GPU's readings toward what the load of the workers on it implies, smoothed over time.

    Fields a test set (`POST /mock/gpu`) are pinned and left alone.
    """

    def __init__(self, kind: str, host: str, board: Path) -> None:
        self.product = PRODUCTS[kind]
        self.host = host
        self.board = board
        self._busy: list[float] = []
        self._last: float | None = None

    def targets(self, count: int, loads: list[WorkerLoad]) -> tuple[list[float], list[float | None]]:
        """(busy %, memory used) per GPU from the workers on this node; memory None where no worker is."""
        busy = [0.0] * count
        mem: list[float | None] = [None] * count
        for load in loads:
            for i in load.gpus if load.gpus is not None else range(count):
                if 0 <= i < count:
                    busy[i] = min(100.0, busy[i] + busy_percent(load))
                    held = (0.55 + 0.35 * min(1.0, load.kv_usage)) * self.product.memory
                    mem[i] = min(self.product.memory, (mem[i] or 0.0) + held)
        return busy, mem

    def update(self, gpus: list[Gpu], pinned: list[set[str]], now: float) -> None:
        """Read the board and move every unpinned reading of `gpus` toward the load."""
        busy, mem = self.targets(len(gpus), read_board(self.board, self.host, now))
        if len(self._busy) != len(gpus):
            self._busy = [0.0] * len(gpus)
        dt = 0.0 if self._last is None else max(0.0, now - self._last)
        self._last = now
        idle = self.product.idle_power_w
        for i, gpu in enumerate(gpus):
            tau = RISE_TAU_S if busy[i] > self._busy[i] else DECAY_TAU_S
            self._busy[i] = busy[i] + (self._busy[i] - busy[i]) * math.exp(-dt / tau)
            util = round(self._busy[i], 1) if self._busy[i] >= 0.05 else 0.0
            if "util" in pinned[i] and gpu.util is not None:
                util = gpu.util  # power and temperature follow the utilisation shown
            fresh = {
                "util": util,
                "power": idle + i + (self.product.max_power_w - idle) * util / 100,
                "temp": 30.0 + i + 0.4 * util,
                "mem": mem[i],
            }
            for name, value in fresh.items():
                if name not in pinned[i]:
                    setattr(gpu, name, value)


class ExporterApp:
    """Routes of the mock exporter; the GPUs' readings live here. With a load board they follow the
    load of the node's mock workers at every read; a value a test sets stays as set."""

    def __init__(self, kind: str, node: str, gpus: list[Gpu], follower: LoadFollower | None = None) -> None:
        self.kind = kind
        self.node = node
        self.gpus = gpus
        self.follower = follower
        #: fields set through `POST /mock/gpu`, per GPU: those no longer follow the load
        self.pinned: list[set[str]] = [set() for _ in gpus]
        #: requests answered per path, for tests that check who scraped
        self.requests: dict[str, int] = {}
        self.routes: dict[tuple[str, str], Callable[[Request, ResponseWriter], Awaitable[None]]] = {
            ("GET", "/metrics"): self._metrics,
            ("GET", "/health"): self._health,
            ("GET", "/mock/gpu"): self._show,
            ("POST", "/mock/gpu"): self._set,
            ("GET", "/mock/stats"): self._stats,
        }

    async def serve(self, request: Request, rw: ResponseWriter) -> None:
        """Answer one request (errors as JSON) and count it under its path."""
        self.requests[request.path] = self.requests.get(request.path, 0) + 1
        method = "GET" if request.method == "HEAD" else request.method
        handler = self.routes.get((method, request.path))
        try:
            if handler is None:
                known = any(path == request.path for _, path in self.routes)
                raise HttpError(405 if known else 404, "Method Not Allowed" if known else "Not Found")
            await handler(request, rw)
        except HttpError as exc:
            if rw.status is None:
                await rw.send_json(exc.status, {"detail": exc.message})

    def _follow(self) -> None:
        if self.follower is not None:
            self.follower.update(self.gpus, self.pinned, time.time())

    async def _metrics(self, request: Request, rw: ResponseWriter) -> None:
        self._follow()
        await rw.send(200, render(self.kind, self.node, self.gpus).encode(), PROMETHEUS_TEXT)

    async def _health(self, request: Request, rw: ResponseWriter) -> None:
        await rw.send(200, b"OK\n")

    def _state(self) -> dict[str, object]:
        return {"kind": self.kind, "node": self.node, "gpus": [asdict(g) for g in self.gpus]}

    async def _show(self, request: Request, rw: ResponseWriter) -> None:
        self._follow()
        await rw.send_json(200, self._state())

    async def _stats(self, request: Request, rw: ResponseWriter) -> None:
        await rw.send_json(200, {"requests": self.requests})

    async def _set(self, request: Request, rw: ResponseWriter) -> None:
        """Set util/power/temp of GPU ``index`` (or all GPUs); ``none`` drops a series."""
        query = request.query
        targets = list(range(len(self.gpus)))
        if "index" in query:
            index = _number(query, "index")
            if index is None or not index.is_integer() or not 0 <= index < len(self.gpus):
                raise HttpError(400, f"index must be 0..{len(self.gpus) - 1}")
            targets = [int(index)]
        values = {name: _number(query, name) for name in SETTABLE if name in query}
        if not values:
            raise HttpError(400, "give at least one of util, power, temp")
        for i in targets:
            for name, value in values.items():
                setattr(self.gpus[i], name, value)
                self.pinned[i].add(name)
        await rw.send_json(200, self._state())


def _number(query: dict[str, str], key: str) -> float | None:
    """A non-negative number from the query (``none`` is None), else a 400."""
    raw = query[key].strip().lower()
    if raw == "none":
        return None
    try:
        value = float(raw)
    except ValueError as exc:
        raise HttpError(400, f"{key} must be a number or none, not {raw!r}") from exc
    if not value >= 0:
        raise HttpError(400, f"{key} must not be negative")
    return value


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Flags of ``exporter``."""
    p = sub.add_parser("exporter", help="run a mock GPU metrics exporter (DCGM or AMD shape)")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0)")
    p.add_argument("--port", type=int, required=True, help="port to listen on")
    p.add_argument("--kind", choices=KINDS, required=True, help="which exporter to imitate")
    p.add_argument("--gpus", type=int, default=8, help=f"GPUs to report, 1..{MAX_GPUS} (default 8)")
    p.add_argument("--node-name", default="", help="host name in the labels (default this host's name)")


async def _run(app: ExporterApp, host: str, port: int) -> int:
    """Serve until SIGINT/SIGTERM; 1 when the port cannot be bound."""
    stop = stop_on_signals()
    listener = Listener(app)
    try:
        bound = await listener.start(host, port)
    except OSError as exc:
        print(f"mock {app.kind} exporter: cannot listen on {host}:{port}: {exc}", file=sys.stderr)
        return 1
    print(
        f"ready: mock {app.kind} exporter, {len(app.gpus)} GPUs of {app.node}, http://{host}:{bound}/metrics"
        + (f", readings follow the load board {app.follower.board}" if app.follower else ", readings as set"),
        flush=True,
    )
    try:
        await stop.wait()
    finally:
        await listener.close()
    return 0


def exporter_main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the ``exporter`` subcommand; returns the exit code."""
    if not 1 <= args.gpus <= MAX_GPUS:
        parser.error(f"--gpus must be 1..{MAX_GPUS}, not {args.gpus}")
    if not 0 <= args.port <= 65535:
        parser.error(f"--port must be 0..65535, not {args.port}")
    node = args.node_name or socket.gethostname()
    board = board_dir()
    follower = LoadFollower(args.kind, args.host, board) if board is not None else None
    app = ExporterApp(args.kind, node, default_gpus(args.kind, args.gpus), follower)
    try:
        return asyncio.run(_run(app, args.host, args.port))
    except KeyboardInterrupt:
        return 0
