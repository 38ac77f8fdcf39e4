"""The load board: how mock workers tell the mock GPU exporter on their node how busy they are.

A real exporter reads the GPUs; the mock one has none, so each mock worker writes a small JSON file
(its GPUs, requests in flight, a smoothed request rate, KV-cache use) every half second, and the
exporter of the same node (the same listen address) reads them on every scrape. The board is a
directory: `$SRT_MOCK_LOAD_DIR`, else one per job under the temp directory when a job id is set
(`SLURM_JOB_ID`, or `SRT_JOB_ID` of the local launcher); without either it is off and the exporter
keeps its set readings. Standard library only, like the rest of the mock.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

#: how often a worker writes its line, and after how long without one the exporter forgets it
PUBLISH_EVERY_S = 0.5
STALE_AFTER_S = 3.0
#: time constant of the worker's request-rate average
RATE_TAU_S = 2.0


def board_dir() -> Path | None:
    """The board of this process's job, or None when there is none (no job id and no override)."""
    explicit = os.environ.get("SRT_MOCK_LOAD_DIR")
    if explicit:
        return Path(explicit)
    job = os.environ.get("SLURM_JOB_ID") or os.environ.get("SRT_JOB_ID")
    if not job or "/" in job or job.startswith("."):
        return None
    return Path(tempfile.gettempdir()) / "srt-tui-mock-load" / job


@dataclass(frozen=True)
class WorkerLoad:
    """One worker's line on the board."""

    host: str
    port: int
    pid: int
    #: GPU indices of the node the worker uses; None: all of them (no mask set)
    gpus: tuple[int, ...] | None
    in_flight: int
    #: requests finished per second, averaged over about RATE_TAU_S
    rate: float
    kv_usage: float
    time: float


def gpus_of(mask: str | None) -> tuple[int, ...] | None:
    """GPU indices from a visibility mask (`0,1,2,3`); None when unset or not indices (UUIDs)."""
    if not mask:
        return None
    parts = [p.strip() for p in mask.split(",")]
    return tuple(int(p) for p in parts) if all(p.isdigit() for p in parts) else None


class RateMeter:
    """A request rate from a growing counter, averaged exponentially so it rises and decays smoothly."""

    def __init__(self) -> None:
        self.rate = 0.0
        self._last: tuple[float, int] | None = None

    def update(self, now: float, total: int) -> float:
        """Feed the counter's value at `now`; returns the averaged rate."""
        if self._last is not None and now > self._last[0]:
            dt = now - self._last[0]
            instant = max(0, total - self._last[1]) / dt
            keep = math.exp(-dt / RATE_TAU_S)
            self.rate = instant + (self.rate - instant) * keep
        self._last = (now, total)
        return self.rate


def _file(board: Path, host: str, port: int) -> Path:
    return board / f"{host.replace(':', '_')}_{port}.json"


def publish(board: Path, load: WorkerLoad) -> None:
    """Write (atomically) one worker's line."""
    board.mkdir(parents=True, exist_ok=True)
    target = _file(board, load.host, load.port)
    tmp = target.with_name(f".{target.name}.{load.pid}.tmp")
    tmp.write_text(json.dumps(asdict(load)), encoding="utf-8")
    tmp.replace(target)


def withdraw(board: Path, host: str, port: int) -> None:
    """Remove a stopping worker's line."""
    _file(board, host, port).unlink(missing_ok=True)


def read_board(board: Path, host: str, now: float | None = None) -> list[WorkerLoad]:
    """The fresh lines of workers listening on `host` (the exporter's node); stale or broken ones skipped."""
    now = time.time() if now is None else now
    out: list[WorkerLoad] = []
    try:
        files = sorted(board.glob("*.json"))
    except OSError:
        return []
    for path in files:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            gpus = raw["gpus"]
            load = WorkerLoad(
                str(raw["host"]),
                int(raw["port"]),
                int(raw["pid"]),
                tuple(int(g) for g in gpus) if gpus is not None else None,
                int(raw["in_flight"]),
                float(raw["rate"]),
                float(raw["kv_usage"]),
                float(raw["time"]),
            )
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if load.host == host and now - load.time <= STALE_AFTER_S:
            out.append(load)
    return out
