"""The base of a mode's screen (Launch, Monitor, Setup): nothing is rendered for it while the app is starting.

Textual mounts the first screen while the app is still starting, inside the app's batch of start-up updates, and
lays it out and renders it at each change meanwhile; every such frame is thrown away (`App._display` draws nothing
during a batch). For the first screens that was two or three whole renders (~10 ms each on this machine) before the
one that reached the terminal. A mode screen holds them: its first frame is rendered at the app's first turn, when
the app reads its message queue, which it does only once its start-up batch has ended.
"""

from __future__ import annotations

from typing import Any
from weakref import WeakSet

from textual.app import App
from textual.screen import Screen

#: the apps that have read their message queue, so have started: their mode screens render at once
_started: WeakSet[App[Any]] = WeakSet()


class ModeScreen(Screen[None]):
    """A screen of one of the app's modes: no frame of it is rendered before the app has started."""

    #: a frame was asked for while the app was starting: it is rendered at the app's first turn (unless one was since)
    _frame_held = False

    def _compositor_refresh(self) -> None:
        """Textual's refresh, held until the app has started (Textual says so only in private state: `_is_mounted`
        is set before the start-up batch ends, `is_running` long before). tests/tui/test_first_frame.py checks that
        no frame is rendered and thrown away, and that the first one is drawn."""
        if self.app not in _started:
            if not self._frame_held:
                self._frame_held = True
                self.app.call_later(self._draw_held_frame)  # the app reads its queue once it has started
            return
        self._frame_held = False
        super()._compositor_refresh()

    def _draw_held_frame(self) -> None:
        """The app's first turn: it has started, and the frame held meanwhile is drawn (if this screen still shows)."""
        _started.add(self.app)
        if self._frame_held and self.is_current:
            self._frame_held = False
            super()._compositor_refresh()
