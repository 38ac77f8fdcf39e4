"""Which toasts show where (srt_tui/tui/toasts.py, wired once in the app): Help, the palette and dialogs are never
covered by toasts from before they opened; Esc and a screen closing dismiss what was on screen; an error is never
lost before it could be read; otherwise a toast follows the operator.

Operator pass: the smoke test's toast drew over the `?` Help; a "Submit failed" toast stayed on the Preview
after Esc."""

from __future__ import annotations

import time
from typing import Any, ClassVar

import pytest
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.pilot import Pilot
from textual.screen import ModalScreen
from textual.widgets import Static

from srt_tui.tui import toasts
from srt_tui.tui.app import SrtTuiApp
from srt_tui.tui.help_screen import HelpScreen
from srt_tui.tui.logs.screen import LogViewerScreen
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app


def on_screen(app: SrtTuiApp) -> list[str]:
    """The toasts drawn on the screen on top: their messages (the title, if any, on the line before)."""
    return sorted(str(toast.render()).splitlines()[-1] for toast in app.screen.query("Toast"))


class Dialog(ModalScreen[None]):
    """A dialog (as the worker detail, a confirmation): Esc closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Close")]

    def compose(self) -> ComposeResult:
        yield Static("a dialog")


#: a toast's own time where its end is not what a test is about: Textual times toasts on the wall clock (5 s by
#: default), and on a loaded machine the steps of a test took longer: opening Setup the first time took 4.5 s,
#: which ended the "Submitted" toast on its way there
LASTS = 600.0


async def _settle(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    await pilot.pause()


async def _until_gone(pilot: Pilot[Any], app: SrtTuiApp) -> None:
    """Until no toast is on screen (their Textual timers ran out); a guard of 30 s against a wait without end."""
    deadline = time.monotonic() + 30
    while on_screen(app):
        assert time.monotonic() < deadline, f"still on screen after 30 s: {on_screen(app)}"
        await pilot.pause(0.05)


async def test_help_is_never_covered_and_what_it_hid_comes_back() -> None:
    app = frozen_app([frozen.nvidia("healthy")])
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await _settle(pilot)
        app.notify("81234 smoke test: 20 ok, 0 failed", timeout=LASTS)
        app.notify("Cannot run the pager", severity="error", timeout=LASTS)
        await _settle(pilot)
        assert on_screen(app) == ["81234 smoke test: 20 ok, 0 failed", "Cannot run the pager"]
        await pilot.press("question_mark")
        await _settle(pilot)
        assert isinstance(app.screen, HelpScreen) and on_screen(app) == []
        assert not list(app.screen_stack[0].query("Toast")), "hidden, not dimmed under the Help"
        app.notify("refresh failed: squeue timed out", severity="error", timeout=LASTS)  # Help is open: it waits
        await _settle(pilot)
        assert on_screen(app) == []
        await pilot.press("escape")
        await _settle(pilot)
        assert not isinstance(app.screen, HelpScreen)
        assert on_screen(app) == sorted(
            ["81234 smoke test: 20 ok, 0 failed", "Cannot run the pager", "refresh failed: squeue timed out"]
        )


async def test_esc_dismisses_the_toasts_shown_but_an_error_not_read_yet(monkeypatch: pytest.MonkeyPatch) -> None:
    """The "Submit failed" case: Esc (a wizard step back, here the Monitor's Esc) ends what was on screen; an error
    that appeared less than ERROR_READ_S ago stays until it has been up that long, then goes."""
    monkeypatch.setattr(toasts, "ERROR_READ_S", 2.0)
    app = frozen_app([frozen.nvidia("healthy")])
    start, later = time.time(), [0.0]  # the keeper's clock stands still but when the test moves it: a loaded
    app.toasts.clock = lambda: start + later[0]  # machine does not make a toast read
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await _settle(pilot)
        app.notify("Job 81234 submitted with the slurm launcher.", title="Submitted", timeout=LASTS)
        app.notify("sbatch: error: invalid partition", title="Submit failed", severity="error", timeout=LASTS)
        await _settle(pilot)
        assert len(on_screen(app)) == 2
        await pilot.press("escape")
        await _settle(pilot)
        assert on_screen(app) == ["sbatch: error: invalid partition"]  # not read yet: it stays
        # up ERROR_READ_S in all (the keeper's clock stood still: all of it left), not its own time: it goes with
        # the view it was about, when its Textual timer runs out
        assert [n.timeout for n in app._notifications] == [2.0]
        await _until_gone(pilot, app)
        app.notify("A smoke test is already running.", severity="warning", timeout=LASTS)
        app.notify("the shell did not start", severity="error", timeout=LASTS)
        await _settle(pilot)
        later[0] += 2.5  # read: Esc ends the error too
        await pilot.press("escape")
        await _settle(pilot)
        assert on_screen(app) == []


async def test_closing_a_screen_ends_its_toasts_and_a_dialogs_own_show_on_it() -> None:
    app = frozen_app([frozen.nvidia("healthy")], open_job="81234")
    start = time.time()
    app.toasts.clock = lambda: start  # no toast is read while the test runs, however long a loaded machine takes
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await _settle(pilot)
        await pilot.press("l")
        await _settle(pilot)
        assert isinstance(app.screen, LogViewerScreen)
        app.notify("/jobs/81234/logs/router.log does not exist yet.", severity="warning", timeout=LASTS)
        await _settle(pilot)
        assert on_screen(app) == ["/jobs/81234/logs/router.log does not exist yet."]
        await pilot.press("q")  # the viewer closes: its toast does not outlive it
        await _settle(pilot)
        assert not isinstance(app.screen, LogViewerScreen) and on_screen(app) == []
        await pilot.press("l")
        await _settle(pilot)
        app.notify("Cannot run the pager 'nope'", severity="error", timeout=LASTS)
        await _settle(pilot)
        await pilot.press("escape")  # Esc, then the close: an error not read yet goes along to Monitor, once
        await _settle(pilot)
        assert not isinstance(app.screen, LogViewerScreen)
        assert on_screen(app) == ["Cannot run the pager 'nope'"]
        app.clear_notifications()
        app.notify("81234 smoke test: 20 ok, 0 failed", timeout=LASTS)
        await _settle(pilot)
        await app.push_screen(Dialog())
        await _settle(pilot)
        assert on_screen(app) == []  # the dialog is not covered by the toast from before it opened
        app.notify("command sent to the clipboard (OSC 52)", timeout=LASTS)  # the dialog's own: shown on it
        await _settle(pilot)
        assert on_screen(app) == ["command sent to the clipboard (OSC 52)"]
        await pilot.press("escape")
        await _settle(pilot)
        assert on_screen(app) == ["81234 smoke test: 20 ok, 0 failed"]  # back under the dialog's: in its time


async def test_a_toast_follows_the_operator_to_another_mode() -> None:
    """The app's own move (a submitted job opens in Monitor) or a mode key: the toast is not lost on the way."""
    app = frozen_app([frozen.nvidia("healthy")])
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await _settle(pilot)
        app.notify("Job 81234 submitted with the slurm launcher.", title="Submitted", timeout=LASTS)
        await _settle(pilot)
        await pilot.press("3")
        await _settle(pilot)
        assert app.current_mode == "setup"
        assert on_screen(app) == ["Job 81234 submitted with the slurm launcher."]


async def test_the_same_words_already_on_screen_are_not_shown_twice() -> None:
    """Operator pass 4: `/1p2d Enter Enter` on the profile list stacked two "No profile matches …" toasts."""
    app = frozen_app([frozen.nvidia("healthy")])
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await _settle(pilot)
        for _ in range(2):
            app.notify("No profile matches the filter '1p2d'", severity="warning", timeout=LASTS)
            await _settle(pilot)
        # another severity: its own toast
        app.notify("No profile matches the filter '1p2d'", severity="error", timeout=LASTS)
        await _settle(pilot)
        assert on_screen(app) == ["No profile matches the filter '1p2d'"] * 2
