"""Where Monitor mode gets its snapshots: `SnapshotFeed`, awaited by the Monitor screen's poll worker.

`live.LiveFeed` runs `snapshot.collect.Monitor` on the caller's event loop; `process.ChildFeed` runs the same
feed in a process of its own (`child`), so a refresh of a thousand endpoints never holds the TUI's loop: the
screen only reads the answer (issue 22: a key during a refresh waited for the probes' parsing).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from srt_tui.monitor.model import JobSnapshot

#: a refresh that takes longer is given up (the poll reports it)
REFRESH_TIMEOUT_S = 60.0


class SnapshotFeed(Protocol):
    """Async source of snapshots, awaited on the app's event loop by the Monitor's poll worker."""

    async def refresh(self, jobs: Mapping[str, Path]) -> list[JobSnapshot]:
        """Snapshots of the given jobs, in order."""
        ...

    async def aclose(self) -> None:
        """Release connections, pending fetches and processes."""
        ...
