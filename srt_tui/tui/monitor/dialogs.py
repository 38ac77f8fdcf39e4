"""Monitor mode's confirmations before a destructive action (k9s: confirm, and say what will run)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static
from textual.widgets.button import ButtonVariant

from srt_tui.tui.dismiss_once import DismissOnce


class YesNoScreen(DismissOnce[bool], ModalScreen[bool]):
    """A yes/no modal before a destructive action: `y` or the `<prefix>-yes` button dismisses with True; `n`, Esc,
    or Enter on the `<prefix>-no` button with False.

    Subclasses give the widget-id prefix, the box's border title, the bindings' words, and compose the box
    (`#<prefix>-box` holding `yes_no`'s buttons). The safe button has the focus from the first frame on (Textual
    focused the first button, the destructive one, until `on_mount` moved it: an Enter typed in the same burst as
    `d` removed the job), so Enter never confirms; the box's foot says which keys do what.
    """

    #: the safe choice is focused as the screen is first shown, before any key reaches it
    AUTO_FOCUS = ".-safe"
    prefix: ClassVar[str] = "confirm"
    box_title: ClassVar[str] = "Confirm"
    #: the box's foot: which key confirms, which keep things as they are
    keys_hint: ClassVar[str] = "y confirms · Enter, n or Esc cancels"

    def on_mount(self) -> None:
        box = self.query_one(f"#{self.prefix}-box")
        box.border_title = self.box_title
        box.border_subtitle = self.keys_hint

    def yes_no(self, yes: str, no: str, variant: ButtonVariant) -> ComposeResult:
        """The two buttons: ``yes`` (the destructive one, in ``variant``) and ``no``, the safe one, focused."""
        with Horizontal(id=f"{self.prefix}-buttons"):
            yield Button(yes, variant=variant, id=f"{self.prefix}-yes")
            yield Button(no, id=f"{self.prefix}-no", classes="-safe")

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
    keys_hint: ClassVar[str] = "y cancels the job · Enter, n or Esc keeps it"

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
            yield from self.yes_no(
                "Cancel job (y)", "Keep it queued (n)" if self.queued else "Keep running (n)", "error"
            )
