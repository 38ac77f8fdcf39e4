"""The base of a mode's screen (Launch, Monitor, Setup): nothing is rendered for it while the app is starting, and
the first one is styled once.

Textual mounts the first screen while the app is still starting, inside the app's batch of start-up updates, and
lays it out and renders it at each change meanwhile; every such frame is thrown away (`App._display` draws nothing
during a batch). For the first screens that was two or three whole renders (~10 ms each on this machine) before the
one that reached the terminal. A mode screen holds them: its first frame is rendered at the app's first turn, when
the app reads its message queue, which it does only once its start-up batch has ended.

Textual also styled the first screen's widgets three times before that frame: as they mounted, again when the screen
got its width class (`-narrow`/`-wide`) at its first resize, and again as it was first shown (`ScreenResume`); and it
parsed every stylesheet again for a screen it had not styled yet. A mode screen made while the app starts carries its
width class from the start and counts as styled by the stylesheet just read, and its first showing restyles nothing.
"""

from __future__ import annotations

from typing import Any
from weakref import WeakSet

from textual import events
from textual._context import NoActiveAppError
from textual.app import App
from textual.message import Message
from textual.screen import Screen

#: the apps that have read their message queue, so have started: their mode screens render at once
_started: WeakSet[App[Any]] = WeakSet()


class ModeScreen(Screen[None]):
    """A screen of one of the app's modes: no frame of it is rendered before the app has started, and one made while
    the app starts is styled once."""

    #: a frame was asked for while the app was starting: it is rendered at the app's first turn (unless one was since)
    _frame_held = False
    #: made while the app was starting, and not shown yet (`_on_screen_resume`)
    _styled_at_start = False

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(id=id)
        try:
            app = self.app
        except NoActiveAppError:  # made outside an app: styled when it is mounted, as any screen
            return
        if app._is_mounted:  # started (or a screen made after the start: `_started` knows only apps whose first
            return  # screen held a frame, and one made later must be styled as any screen)
        self._styled_at_start = True
        # the stylesheet was just read with today's theme: Textual parsed every rule again for a screen it had not
        # styled yet (`App.refresh_css`)
        self._css_update_count = app._css_update_count
        # the width class Textual sets at the first resize, which restyled every widget of the screen
        breakpoints = (self.HORIZONTAL_BREAKPOINTS if self.HORIZONTAL_BREAKPOINTS is not None
                       else app.HORIZONTAL_BREAKPOINTS) or []  # fmt: skip
        self.add_class(*self._get_breakpoint_classes(app.size.width, breakpoints), update=False)

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        """Textual restyles a screen's widgets each time it is shown: the first time, they were styled as they mounted
        a moment ago."""
        if self._styled_at_start:
            self._styled_at_start = False
            event.refresh_styles = False
        super()._on_screen_resume(event)

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
        self._draw()

    def _draw_held_frame(self) -> None:
        """The app's first turn: it has started, and the frame held meanwhile is drawn (if this screen still shows)."""
        _started.add(self.app)
        if self._frame_held and self.is_current:
            self._frame_held = False
            self._draw()

    class Drawn(Message):
        """A mode screen's first frame after the app started has gone to the terminal (`SrtTuiApp.after_first_frame`:
        a refresh's after-callbacks also run for a frame held, so they came before it)."""

    #: the Drawn message was sent
    _told_drawn = False

    def _draw(self) -> None:
        super()._compositor_refresh()
        if not self._told_drawn:
            self._told_drawn = True
            self.app.post_message(self.Drawn())
