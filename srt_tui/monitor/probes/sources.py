"""Data sources with back-off: each fetch runs as its own task, a failure is remembered with its error
and retried later (exponential back-off), and a fetch still running when a refresh's budget ends keeps
running into the next refresh instead of holding everyone else up.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from srt_tui.monitor.probes.http import HttpFailure


@dataclass
class Source:
    """One fetchable thing (a worker's endpoint, a router URL, the Slurm query) and what it last gave."""

    key: str
    value: Any = None
    ok_at: float | None = None
    error: str = ""
    kind: str = ""  # "" after a success; HttpFailure.kind, "http", or "error" after a failure
    failures: int = 0
    next_at: float = 0.0
    task: asyncio.Task[Any] | None = None
    started_at: float = 0.0
    used_at: float = 0.0
    attempts: int = 0
    #: read at most this often while it answers (0: every refresh); its answer counts as fresh that long
    every: float = 0.0
    #: when the last attempt that failed was started: what the process did after it, we do not know from here
    failed_asked_at: float | None = None

    @property
    def ok(self) -> bool:
        """The last finished attempt succeeded (whatever may be in flight now)."""
        return self.ok_at is not None and not self.kind

    def pending_for(self, now: float) -> float:
        """Seconds the current attempt has been running (0 if none)."""
        return now - self.started_at if self.task is not None else 0.0

    def age(self, now: float) -> float | None:
        """Seconds since the last success (None: never)."""
        return None if self.ok_at is None else max(0.0, now - self.ok_at)


class Sources:
    """The registry: start due fetches, wait for them within a budget, harvest results, back off on errors."""

    def __init__(self, clock: Callable[[], float], backoff_base: float = 0.5, backoff_cap: float = 8.0) -> None:
        self.clock = clock
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self._sources: dict[str, Source] = {}

    def get(self, key: str) -> Source:
        """The source for a key (created on first use)."""
        src = self._sources.get(key)
        if src is None:
            src = self._sources[key] = Source(key)
        return src

    def want(self, key: str, fetch: Callable[[], Awaitable[Any]], now: float, every: float = 0.0) -> Source:
        """Mark a source as needed this refresh and start a fetch if none runs, its back-off passed and, with
        ``every``, its last answer is that many seconds old (one that failed is tried again at once)."""
        src = self.get(key)
        src.used_at = now
        src.every = every
        recent = every > 0 and src.ok and src.ok_at is not None and now - src.ok_at < every
        if src.task is None and now >= src.next_at and not recent:
            src.task = asyncio.ensure_future(fetch())
            src.started_at = now
            src.attempts += 1
        return src

    def in_flight(self) -> list[asyncio.Task[Any]]:
        """Every running fetch."""
        return [s.task for s in self._sources.values() if s.task is not None]

    async def settle(self, budget: float) -> None:
        """Wait until every fetch finished or ``budget`` seconds passed, then harvest the finished ones."""
        tasks = self.in_flight()
        if tasks and budget > 0:
            await asyncio.wait(tasks, timeout=budget)
        self.harvest()

    def harvest(self) -> None:
        """Record the results of finished fetches."""
        now = self.clock()
        for src in self._sources.values():
            task = src.task
            if task is None or not task.done():
                continue
            src.task = None
            if task.cancelled():
                self._failed(src, "error", "cancelled", now)
                continue
            exc = task.exception()
            if exc is None:
                src.value = task.result()
                src.ok_at = now
                src.kind = ""
                src.error = ""
                src.failures = 0
                src.next_at = 0.0
            elif isinstance(exc, HttpFailure):
                self._failed(src, exc.kind, exc.message, now)
            else:
                text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                self._failed(src, "error", text, now)

    def _failed(self, src: Source, kind: str, error: str, now: float) -> None:
        """Remember a failure and when to try again: after a back-off, except a `silent` one (the node took the
        connection, its process did not reply): asking again costs that process one queued connection, and
        the next ask is the one a resumed process (`kill -CONT`) answers at once, so it is asked every refresh."""
        src.kind = kind
        src.error = error
        src.failures += 1
        src.failed_asked_at = src.started_at
        wait = 0.0 if kind == "silent" else min(self.backoff_cap, self.backoff_base * 2 ** (src.failures - 1))
        src.next_at = now + wait

    def prune(self, older_than: float) -> list[str]:
        """Forget sources nobody wanted since ``older_than`` (their running fetches are cancelled)."""
        gone = [k for k, s in self._sources.items() if s.used_at < older_than]
        for key in gone:
            task = self._sources.pop(key).task
            if task is not None:
                task.cancel()
        return gone

    def close(self) -> None:
        """Cancel every running fetch."""
        for src in self._sources.values():
            if src.task is not None:
                src.task.cancel()
                src.task = None
