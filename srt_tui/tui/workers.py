"""Worker failures reach one app-level handler.

Textual's `Worker.StateChanged` goes only to the node that started the worker (it does not bubble), so
a node that runs workers mixes in `ReportsWorkerErrors`: a worker that died of an exception becomes a
`WorkerFailed`, which bubbles to the app; the app shows and logs it once. Expected failures are still
reported by the workers themselves with their own messages (SubmitFailed, PollFailed, …).
"""

from __future__ import annotations

from collections.abc import Callable

from textual.message import Message
from textual.worker import Worker, WorkerState


class WorkerFailed(Message):
    """A worker raised instead of reporting; the app notifies the operator and logs the error."""

    def __init__(self, name: str, error: BaseException | None) -> None:
        super().__init__()
        self.name = name
        self.error = error


class ReportsWorkerErrors:
    """Mixin for a screen or widget that runs workers: forwards each failed worker as a `WorkerFailed`."""

    post_message: Callable[[Message], bool]

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Textual calls this beside a subclass's own handler (handlers are looked up along the MRO)."""
        if event.state == WorkerState.ERROR:
            self.post_message(WorkerFailed(event.worker.name, event.worker.error))
