"""dolphie's refresh loop, shared by the screens that poll: a run starts now, or right after the one that is
running, and the next timed run is armed only once the previous one finished, so a slow source never stacks
runs or blocks a key."""

from __future__ import annotations

from collections.abc import Callable

from textual.message_pump import MessagePump
from textual.timer import Timer


class RearmedLoop:
    """`run_now()` starts a run (`start`, which starts a worker); the screen calls `finished()` when the run's
    result arrived, which starts the run asked for meanwhile or arms the next one after `interval` seconds."""

    def __init__(self, node: MessagePump, start: Callable[[], object]) -> None:
        self._node = node
        self._start = start
        #: a run is under way (its result has not arrived yet)
        self.running = False
        self._again = False
        self._timer: Timer | None = None

    def run_now(self) -> None:
        """Start a run now, or right after the one that is running."""
        if self.running:
            self._again = True
            return
        self.stop()
        self.running = True
        self._start()

    def finished(self, interval: float | None) -> None:
        """The run's result arrived: run again at once if asked meanwhile, else in `interval` s (None: never)."""
        self.running = False
        if self._again:
            self._again = False
            self.run_now()
        elif interval is not None:
            self._timer = self._node.set_timer(interval, self.run_now)

    def stop(self) -> None:
        """Disarm the timed run (a run under way still finishes)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
