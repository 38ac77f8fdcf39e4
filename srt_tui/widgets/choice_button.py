"""A radio button whose state reads without colour (`●` when chosen, `○` when not), and a set whose arrows choose.

Textual's RadioButton draws the same `●` either way and tells them apart by colour alone, so on a
monochrome terminal (or to a colour-blind operator) the launcher choice was unreadable (issue 11).
The highlighted option of a focused set is reversed, so the cursor reads without colour too.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import RadioButton, RadioSet


class ChoiceButton(RadioButton):
    """RadioButton with a shape, not only a colour, for its value."""

    DEFAULT_CSS = """
    RadioSet:focus > ChoiceButton.-selected > .toggle--label { text-style: bold reverse; }
    """

    @property
    def _button(self) -> Content:
        self.BUTTON_INNER = "●" if self.value else "○"
        return super()._button


class ChoiceSet(RadioSet):
    """A RadioSet whose arrow keys choose, as a radio group does everywhere else (Textual's only moved the
    highlight, Enter chose: the operator saw Slurm highlighted while Local stayed chosen), and stop at the ends
    (↑ on the first option wrapped to the last: a job meant for Slurm went out on Local)."""

    def action_previous_button(self) -> None:
        if self._selected != self._enabled_end(-1):
            super().action_previous_button()
        self._choose_highlighted()

    def action_next_button(self) -> None:
        if self._selected != self._enabled_end(1):
            super().action_next_button()
        self._choose_highlighted()

    def _enabled_end(self, direction: int) -> int | None:
        """The index of the last enabled option that way (-1: the first one), None when none is."""
        enabled = [i for i, child in enumerate(self.children) if not child.disabled]
        return (enabled[-1] if direction > 0 else enabled[0]) if enabled else None

    def _choose_highlighted(self) -> None:
        index = self._selected
        if index is not None and isinstance(button := self.children[index], RadioButton) and not button.value:
            button.value = True
