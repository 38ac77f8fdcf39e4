"""The base of a mode's screen (Launch, Monitor, Setup) and of the app that shows them (`ModeApp`): nothing is
rendered for a mode screen while the app is starting, and one made then is styled once.

One notion of "the app has started" serves both: `ModeApp.started`, set as the app's start-up batch ends (Textual
says so only in private state: `_is_mounted` is set inside that batch, `is_running` long before). Not at the app's
first turn: messages posted while it starts (the recipe reader's rows, focus, resizes: 16 for `-p local`) are queued
before anything the app's Mount asks for, and under load the held frame waited behind them all.

Textual mounts the first screen while the app is still starting, inside the app's batch of start-up updates, and
lays it out and renders it at each change meanwhile; every such frame is thrown away (`App._display` draws nothing
during a batch). For the first screens that was two or three whole renders (~10 ms each on this machine) before the
one that reached the terminal. A mode screen holds them: its frame is rendered as that batch ends.

Textual also styled the first screen's widgets three times before that frame: as they mounted, again when the screen
got its width class (`-narrow`/`-wide`) at its first resize, and again as it was first shown (`ScreenResume`); and it
parsed every stylesheet again for a screen it had not styled yet. A mode screen made while the app starts carries its
width class from the start and counts as styled by the stylesheet just read, and its first showing restyles nothing.
"""

from __future__ import annotations

from textual import events, on
from textual.app import App
from textual.message import Message
from textual.screen import Screen


def breakpoint_classes(size: int, breakpoints: list[tuple[int, str]]) -> set[str]:
    """The class Textual gives a screen of ``size`` cells for ``breakpoints`` (`App.HORIZONTAL_BREAKPOINTS`): the one
    of the largest breakpoint at most ``size``, none below them all (as `Screen._on_resize` chooses)."""
    return next(({name} for at, name in sorted(breakpoints, reverse=True) if size >= at), set())


class ModeApp(App[None]):
    """An app of mode screens: it knows when it has started (`started`), and draws then the frame its screen held
    while it was starting."""

    #: the app's start-up batch has ended, so a frame reaches the terminal; a mode screen made before is styled at
    #: once (`ModeScreen`), and its frames meanwhile are held
    started = False

    def _end_batch(self) -> None:
        """Textual's end of a batch of updates: the first time none is open once the app is mounted, a frame can reach
        the terminal (the start-up batch, where Compose, Resize and Mount are dispatched, has ended, and so has any
        batch that outlived it: a widget's `recompose` holds one across its awaits). Kept private: no public event
        says so; test_first_frame.py's no-frame and slurm-check tests fail if Textual renames it."""
        super()._end_batch()
        if not self.started and not self._batch_count and self._mounted_event.is_set():
            self.started = True
            screen = self.screen
            if isinstance(screen, ModeScreen):
                screen.draw_held_frame()


class ModeScreen(Screen[None]):
    """A screen of one of the app's modes: no frame of it is rendered before the app has started (`ModeApp.started`),
    and one made while the app starts is styled once. In any other app it is a plain screen."""

    #: a frame was asked for while the app was starting: it is drawn as the app's start-up batch ends
    _frame_held = False
    #: made while the app was starting, and not shown yet (`_first_shown`)
    _styled_at_start = False

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(id=id)
        try:
            app = self.app
        except RuntimeError:  # Textual's NoActiveAppError: made outside an app, styled when it is mounted as any screen
            return
        if not isinstance(app, ModeApp) or app.started:
            return
        self._styled_at_start = True
        # kept private: no public way to tell Textual that the stylesheet just read with today's theme styles this
        # screen, and it parsed every rule again for one it had not styled (`App.refresh_css`); test_first_frame.py's
        # test_the_first_frame_parses_each_stylesheet_once fails if Textual renames it
        self._css_update_count = app._css_update_count
        # the width class Textual sets at the first resize, which restyled every widget of the screen
        horizontal = (
            self.HORIZONTAL_BREAKPOINTS if self.HORIZONTAL_BREAKPOINTS is not None else app.HORIZONTAL_BREAKPOINTS
        )
        vertical = self.VERTICAL_BREAKPOINTS if self.VERTICAL_BREAKPOINTS is not None else app.VERTICAL_BREAKPOINTS
        for breakpoints, cells in ((horizontal, app.size.width), (vertical, app.size.height)):
            self.add_class(*breakpoint_classes(cells, breakpoints or []), update=False)

    @on(events.ScreenResume)
    def _first_shown(self, event: events.ScreenResume) -> None:
        """Textual restyles a screen's widgets each time it is shown (`refresh_styles`, read by Screen's own handler,
        which runs after this subclass's): the first time, they were styled as they mounted a moment ago."""
        if self._styled_at_start:
            self._styled_at_start = False
            event.refresh_styles = False

    def _compositor_refresh(self) -> None:
        """Textual's refresh, held until the app has started. Kept private: it is Textual's one way to a frame, and
        test_first_frame.py's test_no_frame_is_rendered_before_the_app_has_started fails if Textual renames it."""
        app = self.app
        if isinstance(app, ModeApp) and not app.started:
            self._frame_held = True
            return
        self._frame_held = False
        self._draw()

    def draw_held_frame(self) -> None:
        """The app's start-up batch has ended: the frame held meanwhile is drawn, if this screen still shows."""
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
