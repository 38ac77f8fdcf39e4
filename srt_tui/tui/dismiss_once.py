"""Screens that close once. A second Enter or Esc that arrives before the first close is done (one burst over
a laggy SSH link, key repeat) dismissed again: that popped the screen beneath, or the last one
(`ScreenStackError`, and the app was gone)."""

from __future__ import annotations

from typing import TypeVar

from textual.await_complete import AwaitComplete
from textual.screen import Screen

ResultT = TypeVar("ResultT")


class DismissOnce(Screen[ResultT]):
    """A screen whose `dismiss` acts once, and only while it is the one on top (list it before ModalScreen)."""

    _srt_dismissed = False

    def dismiss(self, result: ResultT | None = None) -> AwaitComplete:
        """Close with ``result`` unless this screen is already closing or is not the current one."""
        if self._srt_dismissed or self.app.screen is not self:
            return AwaitComplete.nothing()  # type: ignore[no-untyped-call, no-any-return]
        self._srt_dismissed = True
        return super().dismiss(result)
