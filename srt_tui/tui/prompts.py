"""A small modal that asks for a path (open a recipe, save a dry-run, save a recipe, add a job). With a `check`, an
entry it refuses keeps the prompt open, the reason under the field, so the operator fixes it there."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.cells import cell_len
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.geometry import Region
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from srt_tui.tui.dismiss_once import DismissOnce
from srt_tui.tui.workers import ReportsWorkerErrors


class PathPrompt(ReportsWorkerErrors, DismissOnce[str | None], ModalScreen[str | None]):
    """Enter confirms the typed path, Esc cancels (dismisses with None)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        title: str,
        value: str = "",
        note: str = "",
        *,
        check: Callable[[str], str | None] | None = None,
        id: str | None = None,  # noqa: A002 (Textual's `id`)
    ) -> None:
        """``check`` (run in a thread: it may read files) says why an entry cannot be taken, or None to take it."""
        super().__init__(id=id)
        self._title = title
        self._value = value
        self._note = note
        self._check = check

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-box"):
            yield Label(self._title, id="prompt-title")
            yield Input(self._value, id="prompt-input", select_on_focus=False)
            error = Static("", id="prompt-error")
            error.display = False
            yield error
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
        if value and self._check is not None:
            self._checked(value)
            return
        self.dismiss(value or None)

    @on(Input.Changed, "#prompt-input")
    def _edited(self) -> None:
        self.query_one("#prompt-error", Static).display = False  # the reason was the old entry's

    @work(thread=True, exclusive=True, group="prompt-check", name="prompt-check", exit_on_error=False)
    def _checked(self, value: str) -> None:
        assert self._check is not None
        error = self._check(value)
        self.app.call_from_thread(self._answered, value, error)

    def _answered(self, value: str, error: str | None) -> None:
        """The check's answer: the entry taken, or the prompt kept open with the reason under the field."""
        if error is None:
            self.dismiss(value)
            return
        shown = self.query_one("#prompt-error", Static)
        shown.update(error)
        shown.display = True

    def action_cancel(self) -> None:
        self.dismiss(None)
