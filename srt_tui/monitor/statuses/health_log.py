"""Each worker's health changes across refreshes, bounded: what the worker detail shows as its history.

Only changes are kept (a worker healthy for an hour is one entry, not 1,800), at most ``KEEP`` per
worker; workers not seen for a while are forgotten like the counter history's series.
"""

from __future__ import annotations

from collections import deque

from srt_tui.monitor.model import HealthChange, iso_utc

#: changes kept per worker (the oldest go first)
KEEP = 20


class HealthLog:
    """(job, worker) → its last health changes, each stamped with the wall time of the refresh that saw it."""

    def __init__(self, keep: int = KEEP) -> None:
        self.keep = keep
        self._changes: dict[tuple[str, str], deque[HealthChange]] = {}
        self._seen: dict[tuple[str, str], float] = {}

    def note(self, key: tuple[str, str], wall: float, health: str, detail: str) -> None:
        """Record the health a refresh saw at wall time ``wall``; a change only when it differs from the last."""
        self._seen.pop(key, None)  # re-inserted last: `_seen` stays ordered by when each worker was seen
        self._seen[key] = wall
        changes = self._changes.get(key)
        if changes is None:
            changes = self._changes[key] = deque(maxlen=self.keep)
        if changes and changes[-1].health == health:
            return
        changes.append(HealthChange(iso_utc(wall), health, detail))

    def changes(self, key: tuple[str, str]) -> tuple[HealthChange, ...]:
        """The recorded changes, oldest first."""
        return tuple(self._changes.get(key, ()))

    def prune(self, older_than: float) -> None:
        """Forget workers not seen since wall time ``older_than``: only the oldest are looked at (the ended
        jobs' thousands of workers, seen once and frozen since, are not scanned every refresh)."""
        for key, _ in _oldest(self._seen, older_than):
            del self._seen[key]
            self._changes.pop(key, None)


def _oldest(seen: dict[tuple[str, str], float], older_than: float) -> list[tuple[tuple[str, str], float]]:
    """The leading entries of the seen-order dict older than ``older_than``."""
    out = []
    for key, t in seen.items():
        if t >= older_than:
            break
        out.append((key, t))
    return out
