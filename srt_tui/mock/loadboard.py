"""The load board: how mock workers tell the mock GPU exporter on their node how busy they are.

A real exporter reads the GPUs; the mock one has none, so each mock worker writes a small JSON file
(its GPUs, requests in flight, a smoothed request rate, KV-cache use) every half second, and the
exporter of the same node (the same listen address) reads them on every scrape. The board is a
directory: `$SRT_MOCK_LOAD_DIR`, else one per job in a 0700 directory of the user's under the temp
directory when a job id is set (`SLURM_JOB_ID`, or `SRT_JOB_ID` of the local launcher); without either it
is off and the exporter keeps its set readings. The temp directory is shared with other users: a board
directory that is a link, another user's or writable by others is not used (the board is off, said once),
and its files are written new (O_EXCL|O_NOFOLLOW) and read only when they are regular files.
Standard library only, like the rest of the mock.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import secrets
import stat
import sys
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
    """The board of this process's job, or None when there is none (no job id and no override) or when the
    place it would be is not safely this user's."""
    explicit = os.environ.get("SRT_MOCK_LOAD_DIR")
    if explicit:
        return Path(explicit)
    job = os.environ.get("SLURM_JOB_ID") or os.environ.get("SRT_JOB_ID")
    if not job or not re.fullmatch(r"(?:local-)?[0-9]+", job):
        return None
    return _private(Path(tempfile.gettempdir()) / f"srt-tui-mock-load-{os.geteuid()}", job)


def _private(parent: Path, job: str) -> Path | None:
    """``parent/job``, both made 0700 and checked to be real directories of this user nobody else writes."""
    for path in (parent, parent / job):
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o700)
        try:
            st = os.lstat(path)
        except OSError:
            return None
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077:
            print(f"srt-tui mock: {path} is not a private directory of this user: load board off", file=sys.stderr)
            return None
    return parent / job


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
    """Write (atomically) one worker's line: a new temp file (never through a link), then renamed."""
    board.mkdir(mode=0o700, parents=True, exist_ok=True)
    target = _file(board, load.host, load.port)
    tmp = target.with_name(f".{target.name}.{load.pid}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(asdict(load)))
        tmp.replace(target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _read_regular(path: Path) -> str:
    """A board file's text, when it is a small regular file (not a link, FIFO or device)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"{path} is not a regular file")
        return fh.read(64 * 1024).decode("utf-8", errors="replace")


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
            raw = json.loads(_read_regular(path))
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
