"""The base of a mode's screen (Launch, Monitor, Setup): nothing is rendered for it while the app is starting.

Textual mounts the first screen while the app is still starting, inside the app's batch of start-up updates, and
lays it out and renders it at each change meanwhile; every such frame is thrown away (`App._display` draws nothing
during a batch). For the first screens that was two or three whole renders (~10 ms each on this machine) before the
one that reached the terminal. A mode screen holds them: its first frame is rendered once the app has started, at the
resize Textual sends it then or, if that came first, at the app's first turn.
"""

from __future__ import annotations

from textual.screen import Screen


class ModeScreen(Screen[None]):
    """A screen of one of the app's modes: no frame of it is rendered before the app has started."""

    #: a frame was asked for while the app was starting: it is rendered at the app's first turn (unless one was since)
    _frame_held = False

    def _compositor_refresh(self) -> None:
        """Textual's refresh, held while the app is starting. "Started" is Textual's `_is_mounted` of the app, set
        as its start-up ends (`is_running` is true long before); Textual is pinned, and tests/tui/test_first_frame.py
        checks that no frame is rendered and thrown away, and that the first one is drawn."""
        if not self.app._is_mounted:
            if not self._frame_held:
                self._frame_held = True
                self.app.call_later(self._draw_held_frame)  # the app reads its queue once it has started
            return
        self._frame_held = False
        super()._compositor_refresh()

    def _draw_held_frame(self) -> None:
        """The frame held while the app started, unless one was rendered since (at the resize)."""
        if self._frame_held and self.is_current:
            self._frame_held = False
            super()._compositor_refresh()
