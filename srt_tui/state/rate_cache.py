"""Counter samples kept between one-shot `srt-tui status` runs, so `watch srt-tui status` shows req/s.

A cache, not a record: unreadable or unwritable files are ignored, and the newest sample per worker
replaces the last one atomically.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from srt_tui.core.jobdir.bounded import read_bytes
from srt_tui.core.paths import user_state_dir
from srt_tui.state.statefile import write_replacing


class CounterHistory(Protocol):
    """What the cache needs of the monitor's counter history (state sits below the monitor, so a protocol)."""

    window_s: float

    def seed(self, saved: Mapping[str, Sequence[float]], wall_minus_mono: float, now: float) -> None: ...

    def export(self, wall_minus_mono: float) -> dict[str, tuple[float, float]]: ...


def _path() -> Path:
    return user_state_dir() / "counters.json"


def _offset() -> float:
    """Wall clock minus the monotonic clock the history uses."""
    return time.time() - time.monotonic()


def _read() -> dict[str, list[float]]:
    try:
        saved = json.loads(read_bytes(_path(), "state"))
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(saved, dict):
        return {}
    return {k: v for k, v in saved.items() if isinstance(v, list) and len(v) == 2 and all(_number(x) for x in v)}


def _number(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def load_into(history: CounterHistory) -> None:
    """Seed `history` with the samples earlier runs saved (those still inside the rate window)."""
    history.seed(_read(), _offset(), time.monotonic())


def save_from(history: CounterHistory) -> None:
    """Merge the newest sample of every series into the file; other jobs' samples stay until they age out."""
    path = _path()
    oldest = time.time() - history.window_s
    merged = {k: v for k, v in _read().items() if v[0] >= oldest}
    merged.update({k: [t, total] for k, (t, total) in history.export(_offset()).items()})
    with contextlib.suppress(OSError):  # a cache: a run that cannot save just shows no rate next time
        write_replacing(path, json.dumps(merged))
