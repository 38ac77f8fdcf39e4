"""Messages of Setup mode: the probe worker reports each step's progress, then the whole run."""

from __future__ import annotations

from textual.message import Message

from srt_tui.setup.probes import ProbeRun


class ProbeProgress(Message):
    """A probe step changed state (posted from the worker thread)."""

    def __init__(self, step: str, status: str, detail: str) -> None:
        super().__init__()
        self.step, self.status, self.detail = step, status, detail


class ProbesDone(Message):
    """Every probe finished."""

    def __init__(self, run: ProbeRun) -> None:
        super().__init__()
        self.run = run
