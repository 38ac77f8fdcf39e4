"""A small modal that asks for a path (open a recipe, save a dry-run, save a recipe)."""

from __future__ import annotations

from typing import ClassVar

from rich.cells import cell_len
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.geometry import Region
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from srt_tui.tui.dismiss_once import DismissOnce


class PathPrompt(DismissOnce[str | None], ModalScreen[str | None]):
    """Enter confirms the typed path, Esc cancels (dismisses with None)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, value: str = "", note: str = "", *, id: str | None = None) -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(id=id)
        self._title = title
        self._value = value
        self._note = note

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-box"):
            yield Label(self._title, id="prompt-title")
            yield Input(self._value, id="prompt-input", select_on_focus=False)
            yield Static(self._note or "Enter to confirm · Esc to cancel", id="prompt-note")

    def on_mount(self) -> None:
        field = self.query_one(Input)
        field.focus()
        # the cursor is at the end, but Textual leaves a first value scrolled to its start: a path's end (the
        # dry-run's time stamp, the file name) is what the operator checks, so it is in view
        end = Region(cell_len(field.value), 0, 1, 1)  # the cursor's cell
        self.call_after_refresh(lambda: field.scroll_to_region(end, animate=False, force=True))

    @on(Input.Submitted, "#prompt-input")
    def _submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        self.dismiss(value or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
