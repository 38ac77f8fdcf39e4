"""A radio button whose state reads without colour: `●` when chosen, `○` when not.

Textual's RadioButton draws the same `●` either way and tells them apart by colour alone, so on a
monochrome terminal (or to a colour-blind operator) the launcher choice was unreadable (issue 11).
The highlighted option of a focused set is reversed, so the cursor reads without colour too.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import RadioButton


class ChoiceButton(RadioButton):
    """RadioButton with a shape, not only a colour, for its value."""

    DEFAULT_CSS = """
    RadioSet:focus > ChoiceButton.-selected > .toggle--label { text-style: bold reverse; }
    """

    @property
    def _button(self) -> Content:
        self.BUTTON_INNER = "●" if self.value else "○"
        return super()._button
