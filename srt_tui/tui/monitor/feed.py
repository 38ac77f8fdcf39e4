"""Where Monitor mode gets its snapshots, and how it cancels jobs — both injectable for tests.

`LiveFeed` runs the async `srt_tui.monitor.Monitor` on its own event loop in a background thread, so
the pooled connections, back-off state and counter history live across refreshes and no probe work
ever runs on the UI's loop: the screen's poll worker (a thread) just waits for the refresh's result.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ...monitor.model import JobSnapshot

if TYPE_CHECKING:
    from ...monitor.collect import Monitor
    from ...slurm.client import SlurmClient

#: cancels a job; may return the line to show the operator ("… already ended: nothing to cancel")
Canceller = Callable[[str, Path], "str | None"]
REFRESH_TIMEOUT_S = 60.0


class SnapshotFeed(Protocol):
    """Blocking source of snapshots (called from a worker thread, never from the UI loop)."""

    def refresh(self, jobs: Mapping[str, Path]) -> list[JobSnapshot]:
        """Snapshots of the given jobs, in order."""
        ...

    def close(self) -> None:
        """Release connections and threads."""
        ...


class FrozenFeed:
    """Always the same snapshots (tests, screenshots and replays); records how often it was asked."""

    def __init__(self, snapshots: Sequence[JobSnapshot]) -> None:
        self.snapshots = list(snapshots)
        self.calls = 0

    def refresh(self, jobs: Mapping[str, Path]) -> list[JobSnapshot]:
        """The frozen snapshots of the tracked jobs (all of them when none is tracked)."""
        self.calls += 1
        return [s for s in self.snapshots if s.job_id in jobs] if jobs else list(self.snapshots)

    def close(self) -> None:
        """Nothing to release."""


class LiveFeed:
    """The real monitor on a private event loop thread; the Slurm client is chosen on first need."""

    def __init__(
        self,
        slurm_transport: str | None = None,
        *,
        monitor_factory: Callable[[], Monitor] | None = None,
        **monitor_options: float,
    ) -> None:
        self._transport = slurm_transport
        self._factory = monitor_factory
        self._options = monitor_options
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._monitor: Monitor | None = None
        self._injected = False
        self._lock = threading.Lock()

    def _start(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="srt-monitor-loop", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def _slurm(self) -> SlurmClient | None:
        from ...slurm.select import get_client

        try:
            return get_client(self._transport, require_reachable=False)
        except Exception:  # no transport at all: the Slurm source shows why
            return None

    def refresh(self, jobs: Mapping[str, Path]) -> list[JobSnapshot]:
        """One refresh on the monitor's loop; blocks the calling (worker) thread until it is done."""
        from ...monitor.collect import Monitor
        from ...slurm.local import is_local_job

        if self._monitor is None:
            self._monitor = self._factory() if self._factory else Monitor(None, **self._options)  # type: ignore[arg-type]
            self._injected = self._factory is not None
        if not self._injected and self._monitor.slurm is None and any(not is_local_job(j) for j in jobs):
            self._monitor.slurm = self._slurm()
        fut: Future[list[JobSnapshot]] = asyncio.run_coroutine_threadsafe(
            self._monitor.refresh(dict(jobs)), self._start()
        )
        return fut.result(timeout=REFRESH_TIMEOUT_S)

    def close(self) -> None:
        """Close the monitor and stop the loop thread."""
        loop, monitor = self._loop, self._monitor
        if loop is None:
            return
        if monitor is not None:
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(monitor.aclose(), loop).result(timeout=5)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._loop = self._thread = None


def default_cancel(job_id: str, job_dir: Path) -> str:
    """Cancel a job the way `srt-tui cancel` does; what happened, in one line."""
    from ...slurm.cancel import cancel_job

    return cancel_job(job_id, job_dir).describe()
