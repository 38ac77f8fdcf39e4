"""The base of a mode's screen (Launch, Monitor, Setup): nothing is rendered for it while the app is starting, and
the first one is styled once.

Textual mounts the first screen while the app is still starting, inside the app's batch of start-up updates, and
lays it out and renders it at each change meanwhile; every such frame is thrown away (`App._display` draws nothing
during a batch). For the first screens that was two or three whole renders (~10 ms each on this machine) before the
one that reached the terminal. A mode screen holds them: its first frame is rendered once the app has started, at the
resize Textual sends it then or, if that came first, at the app's first turn.

Textual also styled the first screen's widgets three times before that frame: as they mounted, again when the screen
got its width class (`-narrow`/`-wide`) at its first resize, and again as it was first shown (`ScreenResume`); and it
parsed every stylesheet again for a screen it had not styled yet. A mode screen made while the app starts carries its
width class from the start and counts as styled by the stylesheet just read, and its first showing restyles nothing.
"""

from __future__ import annotations

from textual import events
from textual._context import NoActiveAppError
from textual.screen import Screen


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
        if app._is_mounted:
            return
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
