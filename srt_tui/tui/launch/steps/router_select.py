"""The topology step's router choice: the frontends this recipe's engine and topology allow, the written one first.

The options come from `core.frontend_choice` (the rule validation applies), so the list follows the
topology as it is edited: an aggregated single worker offers direct serving, prefill/decode only routers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, Select, Static

if TYPE_CHECKING:
    from srt_tui.core.frontends.choice import FrontendChoice

#: the one option before the first `show` (and between two lists, so the new one's label is drawn)
PLACEHOLDER = ("…", "")


#: under a direct choice with routers listed: the operator may put one in front
ADD_ROUTER_HINT = "▼ lists routers to put in front"


class RouterSelect(Vertical):
    """`Router [choice ▾]`, shown only when there is something to choose (or the written one does not fit); under
    a direct choice (the worker serves, as the plan says), a hint that a router can be added from the list."""

    DEFAULT_CSS = """
    RouterSelect { height: auto; margin: 0 1; }
    RouterSelect > Horizontal { height: 1; }
    RouterSelect Label { width: 9; color: $text-primary; text-style: bold; }
    RouterSelect Select { width: 1fr; }
    RouterSelect > #router-hint { height: auto; padding-left: 9; color: $text-muted; }
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(id=id)
        self._options: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Label("Router")
            # no blank entry: there is always a router (or direct serving) to run; options arrive with `show`
            yield Select[str]([PLACEHOLDER], id="router-select", compact=True, allow_blank=False)
        yield Static(ADD_ROUTER_HINT, id="router-hint")

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
                # set_options selects the first option without redrawing it when its value is the one already
                # selected (`sglang`, direct for one worker, `sglang → sglang-router` for two): through the
                # placeholder, the value changes and the shown label is the new list's
                select.set_options([PLACEHOLDER])
                select.set_options(options)
            if select.value != pick:
                select.value = pick
        direct = next(c.direct for c in choices if c.written == pick)
        self.query_one("#router-hint", Static).display = direct and len(choices) > 1
        return pick
