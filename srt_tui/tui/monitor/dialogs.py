"""Monitor mode's confirmations before a destructive action (k9s: confirm, and say what will run)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from srt_tui.tui.dismiss_once import DismissOnce


class YesNoScreen(DismissOnce[bool], ModalScreen[bool]):
    """A yes/no modal: `y` or the `<prefix>-yes` button dismisses with True, `n`/Esc or `<prefix>-no` with False.

    Subclasses give the widget-id prefix, the box's border title, the bindings' words, and compose the box
    (`#<prefix>-box` holding the `#<prefix>-yes`/`#<prefix>-no` buttons); "no" has the focus, so Enter is safe.
    """

    prefix: ClassVar[str] = "confirm"
    box_title: ClassVar[str] = "Confirm"

    def on_mount(self) -> None:
        self.query_one(f"#{self.prefix}-box").border_title = self.box_title
        self.query_one(f"#{self.prefix}-no", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id in (f"{self.prefix}-yes", f"{self.prefix}-no"):
            self.dismiss(event.button.id == f"{self.prefix}-yes")

    def action_answer(self, yes: bool) -> None:
        """Dismiss with the operator's answer."""
        self.dismiss(yes)


class ConfirmCancel(YesNoScreen):
    """Asks before cancelling a job: `y` or the red button cancels, `n`/Esc keeps it running."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Cancel the job"),
        Binding("n,escape", "answer(False)", "Keep it running"),
    ]

    def __init__(self, job_id: str, name: str, how: str, queued: bool = False) -> None:
        super().__init__(id="confirm-cancel")
        self.job_id = job_id
        self.job_name = name
        self.how = how
        #: the job waits in Slurm's queue: nothing runs yet, so nothing is "kept running"
        self.queued = queued

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Label(f"Cancel job {self.job_id} ({self.job_name})?", id="confirm-title")
            stops = "It leaves Slurm's queue." if self.queued else "Every worker, the router and the benchmark stop."
            yield Static(f"This runs {self.how}. {stops}", id="confirm-note")
            with Horizontal(id="confirm-buttons"):
                yield Button("Cancel job (y)", variant="error", id="confirm-yes")
                yield Button("Keep it queued (n)" if self.queued else "Keep running (n)", id="confirm-no")
