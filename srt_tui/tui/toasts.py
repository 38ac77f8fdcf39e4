"""Which toasts show where: one rule for the whole app (the app wires it in; no screen has its own).

Textual's toasts are the app's: each screen's rack shows all of them, so they drew over the `?` Help and outlived
the view they were about (a "Submit failed" toast stayed on the Preview after Esc). The rule:

1. Help, the command palette and dialogs are never covered by toasts from before they opened: those are hidden
   while it is open and come back when it closes. A toast raised while Help or the palette is open waits for it
   to close; a dialog's own (raised while it is on top: "copied", "the shell did not start") show on it.
2. Going back dismisses what is on screen: Esc (back, close, a wizard step back) and a screen closing (Esc, q, a
   dialog answered) end the toasts shown, so none outlives the view it was about.
3. A toast whose words are on screen already is not shown twice.
4. An error is never lost before it could be read: one on screen for less than `ERROR_READ_S` stays, wherever the
   operator goes, until it has been; hidden behind Help, its time does not run.

Otherwise a toast follows the operator (a mode key, a screen opened on top) for its time, as Textual's do: the
"Submitted" toast goes with the job to Monitor. Information and warnings are about the moment: their time runs
hidden or not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from time import time
from typing import Any
from uuid import uuid4

from textual.app import App
from textual.notifications import Notification, Notify
from textual.screen import Screen

#: the seconds an error stays on screen at least, whatever the operator does (Textual's default timeout)
ERROR_READ_S = 5.0
#: a toast with less time left than this is not shown again
_LEAST_S = 0.2


@dataclass
class _Toast:
    """One toast across its showings (each showing is a new Textual notification)."""

    notification: Notification
    limit: float  # an error: the seconds it is shown in all
    deadline: float  # information and warnings: when it ends, shown or not
    shown_s: float = 0.0  # seconds on screen before this showing
    since: float = 0.0  # when this showing started

    @property
    def error(self) -> bool:
        return self.notification.severity == "error"

    def left(self, now: float) -> float:
        """The seconds it has still to be shown."""
        return self.limit - self.shown_s if self.error else self.deadline - now


class ToastKeeper:
    """Applies the rule for ``app``: `raised` for each notification, `screen_changed` after each screen change, and
    `went_back` on Esc. ``waits`` says which screens have no toasts of their own (Help, the palette)."""

    def __init__(self, app: App[Any], waits: Callable[[Screen[Any]], bool], clock: Callable[[], float] = time) -> None:
        self.app = app
        self.waits = waits
        self.clock = clock  # how long a toast has been on screen is read on it (tests move it by hand)
        self._shown: dict[str, _Toast] = {}  # by notification identity: on screen, or on their way to it
        self._reshown: set[str] = set()  # identities this keeper posted, not yet seen by `raised`
        self._held: dict[Screen[Any], tuple[str, list[_Toast]]] = {}  # hidden while this modal is open (its mode)
        self._stack: list[Screen[Any]] = []  # the screens after the last change, and their mode
        self._mode = ""

    def raised(self, notification: Notification) -> bool:
        """A notification is about to be shown: whether it may be (False: it is held, or was withdrawn)."""
        now = self.clock()
        if notification.identity in self._reshown:  # shown again by this keeper (unless withdrawn since)
            self._reshown.discard(notification.identity)
            return notification.identity in self._shown
        if self._on_screen(notification):  # the same words already up (Enter twice on a filter that matches nothing)
            return False
        toast = _Toast(notification, notification.timeout, notification.raised_at + notification.timeout, since=now)
        screen = self.app.screen
        if self.waits(screen):  # Help or the palette: the toast waits for it to close
            self._held.setdefault(screen, (self.app.current_mode, []))[1].append(toast)
            return False
        self._shown[notification.identity] = toast
        return True

    def _on_screen(self, notification: Notification) -> bool:
        """A toast with the same words and severity is shown now."""
        live = self.app._notifications  # Textual's own collection (see `_take`)
        said = (notification.title, notification.message, notification.severity)
        return any(
            (t.notification.title, t.notification.message, t.notification.severity) == said and t.notification in live
            for t in self._shown.values()
        )

    def went_back(self) -> None:
        """Esc: what is on screen was seen; only errors not read yet stay, until they have been."""
        if self._shown:
            now = self.clock()
            self._show(self._unread(self._take(now)), now)

    def screen_changed(self, screen: Screen[Any]) -> None:
        """After a push, pop, switch or mode change: hide under a modal, dismiss on a close, bring back what a
        closed modal hid."""
        now = self.clock()
        stack, mode = list(self.app.screen_stack), self.app.current_mode
        closed = mode == self._mode and any(s not in stack for s in self._stack)
        self._stack, self._mode = stack, mode
        back: list[_Toast] = []
        if closed:
            back = self._unread(self._take(now))
        elif screen.is_modal and screen not in self._held:
            self._held[screen] = (mode, self._take(now))
        for modal, (held_mode, toasts) in list(self._held.items()):
            if held_mode == mode and modal not in stack:
                del self._held[modal]
                back += toasts
        self._show(back, now)

    def _take(self, now: float) -> list[_Toast]:
        """The toasts on screen, taken off it (dismissed by a click or expired: dropped), their time counted."""
        live = self.app._notifications  # Textual's own collection: what is still shown (no public view of it)
        taken = [
            toast for identity, toast in self._shown.items() if identity in self._reshown or toast.notification in live
        ]
        for toast in taken:
            toast.shown_s += now - toast.since
        self._shown.clear()  # a re-showing still on its way is withdrawn: `raised` drops it
        if len(live):
            self.app.clear_notifications()
        self._hide_under_modals()
        return taken

    def _hide_under_modals(self) -> None:
        """Screens under a modal are drawn beneath it: their racks drop the toasts taken (Textual refreshes only the
        rack of the screen on top)."""
        for screen in self.app.screen_stack[:-1]:
            screen.query("ToastHolder").remove()

    @staticmethod
    def _unread(toasts: list[_Toast]) -> list[_Toast]:
        """Of ``toasts`` leaving the screen, the errors not read yet: kept until they have been up ERROR_READ_S."""
        unread = [toast for toast in toasts if toast.error and toast.shown_s < ERROR_READ_S]
        for toast in unread:
            toast.limit = min(toast.limit, ERROR_READ_S)
        return unread

    def _show(self, toasts: list[_Toast], now: float) -> None:
        """Show ``toasts`` again, each for the time it has left (a new notification: Textual times each anew)."""
        for toast in toasts:
            left = toast.left(now)
            if left < _LEAST_S:
                continue
            # raised now on Textual's clock (the wall clock), which times it out
            toast.notification = replace(toast.notification, identity=str(uuid4()), raised_at=time(), timeout=left)
            toast.since = now
            self._shown[toast.notification.identity] = toast
            self._reshown.add(toast.notification.identity)
            self.app.post_message(Notify(toast.notification))
