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

    def note(
        self,
        key: tuple[str, str],
        wall: float,
        health: str,
        detail: str,
        cause_at: float | None = None,
        untimed: bool = False,
    ) -> None:
        """Record the health a refresh saw at wall time ``wall``; a change only when it differs from the last.
        ``cause_at``: ``detail`` is what the job recorded of the worker's end (`killed (signal 9)`, `the job has
        ended`) at that wall time, stamped then and kept even when the health is unchanged: the monitor may have
        seen it `down` (connection refused) a moment before the job said why. ``untimed``: such a cause whose time
        is not known, recorded with none ("") rather than the time this refresh looked."""
        self._seen.pop(key, None)  # re-inserted last: `_seen` stays ordered by when each worker was seen
        self._seen[key] = wall
        changes = self._changes.get(key)
        if changes is None:
            changes = self._changes[key] = deque(maxlen=self.keep)
        cause = (cause_at is not None or untimed) and (not changes or changes[-1].detail != detail)
        if changes and changes[-1].health == health and not cause:
            return
        at = "" if untimed else iso_utc(cause_at if cause_at is not None else wall)
        if changes and at and at < changes[-1].at:  # the job's clock may be behind this one's: the history in order
            at = changes[-1].at
        changes.append(HealthChange(at, health, detail))

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
