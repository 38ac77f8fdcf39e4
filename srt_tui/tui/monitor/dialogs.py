"""Monitor mode's confirmation before a destructive action (k9s: confirm, and say what will run)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static


class ConfirmCancel(ModalScreen[bool]):
    """Asks before cancelling a job: `y` or the red button cancels, `n`/Esc keeps it running."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Cancel the job"),
        Binding("n,escape", "answer(False)", "Keep it running"),
    ]

    def __init__(self, job_id: str, name: str, how: str) -> None:
        super().__init__(id="confirm-cancel")
        self.job_id = job_id
        self.job_name = name
        self.how = how

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Label(f"Cancel job {self.job_id} ({self.job_name})?", id="confirm-title")
            yield Static(f"This runs {self.how}. Every worker, the router and the benchmark stop.", id="confirm-note")
            with Horizontal(id="confirm-buttons"):
                yield Button("Cancel job (y)", variant="error", id="confirm-yes")
                yield Button("Keep running (n)", variant="default", id="confirm-no")

    def on_mount(self) -> None:
        self.query_one("#confirm-box").border_title = "Confirm"
        self.query_one("#confirm-no", Button).focus()

    @on(Button.Pressed, "#confirm-yes")
    def _yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#confirm-no")
    def _no(self) -> None:
        self.dismiss(False)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
