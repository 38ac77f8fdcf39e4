"""The topology step's router choice: the frontends this recipe's engine and topology allow, the written one first.

The options come from `core.frontend_choice` (the rule validation applies), so the list follows the
topology as it is edited: an aggregated single worker offers direct serving, prefill/decode only routers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label, Select

if TYPE_CHECKING:
    from srt_tui.core.frontends.choice import FrontendChoice


class RouterSelect(Horizontal):
    """`Router [choice ▾]`, shown only when there is something to choose (or the written one does not fit)."""

    DEFAULT_CSS = """
    RouterSelect { height: 1; margin: 0 1; }
    RouterSelect > Label { width: 9; color: $text-primary; text-style: bold; }
    RouterSelect > Select { width: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(id=id)
        self._options: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        yield Label("Router")
        # no blank entry: there is always a router (or direct serving) to run; options arrive with `show`
        yield Select[str]([("…", "")], id="router-select", compact=True, allow_blank=False)

    def show(self, choices: list[FrontendChoice], chosen: str) -> str:
        """List `choices` with `chosen` selected if it is still listed, else the first; returns the selection."""
        select: Select[str] = self.query_one("#router-select", Select)
        names = [c.written for c in choices]
        pick = chosen if chosen in names else names[0]
        self.display = len(choices) > 1 or not choices[0].fits
        with select.prevent(Select.Changed):
            options = [(c.label, c.written) for c in choices]
            if options != self._options:
                self._options = options
                select.set_options(options)
            if select.value != pick:
                select.value = pick
        return pick
