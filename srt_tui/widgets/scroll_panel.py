"""A panel read by scrolling, reachable from the keyboard: Tab focuses it, then j/k, the arrows, PgUp/PgDn, Home
and End scroll it, as in lazygit's side panels; the footer says `j/k Scroll` while it has the keys.

A panel that does not scroll itself (its height follows its content, an ancestor scrolls: the wizard's stacked
`-slim` layout) scrolls that ancestor, so the keys move what the operator sees move."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widget import Widget


class ScrollPanel(VerticalScroll):
    """A focusable vertical scroll view with vim's j/k besides the arrows."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "scroll_down", "Scroll", key_display="j/k", tooltip="Scroll the panel (also ↑ ↓ PgUp PgDn)"),
        Binding("k", "scroll_up", "Scroll up", show=False),
    ]

    def scroller(self) -> Widget:
        """What the keys scroll: this panel when its content overflows it, else the nearest ancestor that scrolls
        (stacked, the panel is as tall as its content and its container scrolls), else this panel."""
        if self.allow_vertical_scroll:
            return self
        for node in self.ancestors:
            if isinstance(node, Widget) and node is not self.screen and node.allow_vertical_scroll:
                return node
        return self

    def action_scroll_down(self) -> None:
        self.scroller().scroll_down(animate=False)

    def action_scroll_up(self) -> None:
        self.scroller().scroll_up(animate=False)

    def action_page_down(self) -> None:
        self.scroller().scroll_page_down(animate=False)

    def action_page_up(self) -> None:
        self.scroller().scroll_page_up(animate=False)

    def action_scroll_home(self) -> None:
        self.scroller().scroll_home(animate=False)

    def action_scroll_end(self) -> None:
        self.scroller().scroll_end(animate=False)
