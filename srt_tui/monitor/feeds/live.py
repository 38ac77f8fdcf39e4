"""The Monitor on the caller's own event loop: pooled connections, back-off state and counter history live across
refreshes; the Slurm query runs in a thread inside the Monitor."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from srt_tui.monitor.feeds import REFRESH_TIMEOUT_S
from srt_tui.monitor.model import JobSnapshot

if TYPE_CHECKING:
    from srt_tui.monitor.snapshot.collect import Monitor
    from srt_tui.slurm.client import SlurmClient


class LiveFeed:
    """The real monitor; the Slurm client is chosen (in a thread: it may run commands) on first need."""

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
        self._monitor: Monitor | None = None
        self._injected = False

    def _slurm(self) -> SlurmClient | None:
        from srt_tui.slurm.select import get_client

        try:
            return get_client(self._transport, require_reachable=False)
        except Exception:  # no transport at all: the Slurm source shows why
            return None

    async def refresh(self, jobs: Mapping[str, Path]) -> list[JobSnapshot]:
        """One refresh of the tracked jobs; gives up after REFRESH_TIMEOUT_S (the poll reports it)."""
        from srt_tui.monitor.snapshot.collect import Monitor
        from srt_tui.slurm.local import is_local_job

        if self._monitor is None:
            self._monitor = self._factory() if self._factory else Monitor(None, **self._options)  # type: ignore[arg-type]
            self._injected = self._factory is not None
        if not self._injected and self._monitor.slurm is None and any(not is_local_job(j) for j in jobs):
            self._monitor.slurm = await asyncio.to_thread(self._slurm)
        return await asyncio.wait_for(self._monitor.refresh(dict(jobs)), REFRESH_TIMEOUT_S)

    async def aclose(self) -> None:
        """Close the monitor's fetches and connections."""
        monitor, self._monitor = self._monitor, None
        if monitor is not None:
            await monitor.aclose()
