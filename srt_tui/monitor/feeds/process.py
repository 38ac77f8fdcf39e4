"""`ChildFeed`: the live feed in a process of its own (`child`), so a refresh never holds the TUI's event loop.

The child keeps the Monitor (pooled connections, back-off, counter history) across refreshes; the TUI's loop only
writes the request and reads the answer, where an ended job's frozen snapshot is not sent again. A child that
dies or stops answering is reported by the refresh that saw it (with its last words) and started anew by the next.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from srt_tui.monitor.feeds import REFRESH_TIMEOUT_S
from srt_tui.monitor.feeds.child import SAME_JOBS, encode, read_frame
from srt_tui.monitor.model import JobSnapshot

#: how much of the child's stderr is kept to say why it died
STDERR_TAIL = 4096


class ChildFeed:
    """A SnapshotFeed whose Monitor runs in `python -m srt_tui.monitor.feeds.child`."""

    def __init__(
        self,
        slurm_transport: str | None = None,
        *,
        factory: str | None = None,
        env: Mapping[str, str] | None = None,
        **monitor_options: float,
    ) -> None:
        self._config = json.dumps({"transport": slurm_transport, "options": monitor_options, "factory": factory})
        self._env = {**os.environ, **(env or {})}
        self._proc: asyncio.subprocess.Process | None = None
        self._stderr: collections.deque[bytes] = collections.deque()
        self._drain: asyncio.Task[None] | None = None
        self._last: dict[str, JobSnapshot] = {}
        #: the jobs the child was last sent (unchanged ones are not sent again)
        self._sent: dict[str, Path] | None = None

    async def _child(self) -> asyncio.subprocess.Process:
        """The running child, started on first need (or again after one died)."""
        if self._proc is None or self._proc.returncode is not None:
            self._last, self._sent = {}, None
            self._stderr.clear()
            self._proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "srt_tui.monitor.feeds.child", self._config,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                env=self._env, start_new_session=True, limit=2**20,
            )  # fmt: skip
            self._drain = asyncio.create_task(self._keep_stderr(self._proc))
        return self._proc

    async def _keep_stderr(self, proc: asyncio.subprocess.Process) -> None:
        """Read the child's stderr as it comes (a full pipe would stop it), keeping the last STDERR_TAIL bytes."""
        assert proc.stderr is not None
        kept = 0
        while chunk := await proc.stderr.read(4096):
            self._stderr.append(chunk)
            kept += len(chunk)
            while kept - len(self._stderr[0]) >= STDERR_TAIL:
                kept -= len(self._stderr.popleft())

    def _last_words(self) -> str:
        text = b"".join(self._stderr).decode(errors="replace").strip().splitlines()
        return text[-1] if text else "no message"

    async def refresh(self, jobs: Mapping[str, Path]) -> list[JobSnapshot]:
        """One refresh in the child; gives up after REFRESH_TIMEOUT_S (the child is then stopped)."""
        proc = await self._child()
        assert proc.stdin is not None and proc.stdout is not None
        tracked = dict(jobs)
        try:
            proc.stdin.write(encode(SAME_JOBS if tracked == self._sent else tracked))
            self._sent = tracked
            await proc.stdin.drain()
            answer = await asyncio.wait_for(read_frame(proc.stdout), REFRESH_TIMEOUT_S)
        except TimeoutError:
            await self._stop()
            raise TimeoutError(
                f"the monitor process did not answer in {REFRESH_TIMEOUT_S:g} s (started anew)"
            ) from None
        except (BrokenPipeError, ConnectionResetError):
            answer = None
        if answer is None:  # it died: say why, the next refresh starts another
            code = await proc.wait()
            if self._drain is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self._drain, 2)
            raise RuntimeError(f"the monitor process exited ({code}): {self._last_words()}")
        kind, body = answer
        if kind != "ok":
            raise RuntimeError(str(body))
        snaps = [self._last[job_id] if snap is None else snap for job_id, snap in body]
        self._last = {s.job_id: s for s in snaps}
        return snaps

    async def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.returncode is not None:
            return
        assert proc.stdin is not None
        proc.stdin.close()  # its end of stream: it closes its connections and exits
        try:
            await asyncio.wait_for(proc.wait(), 2)
        except TimeoutError:
            proc.kill()
            await proc.wait()

    async def aclose(self) -> None:
        """Stop the child (it closes its connections first)."""
        await self._stop()
        if self._drain is not None:
            self._drain.cancel()
