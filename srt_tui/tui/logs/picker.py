"""`o` in the log viewer: every log of the job in a list, the one shown highlighted; Enter opens one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from srt_tui.monitor.model import LogRef
from srt_tui.tui.dismiss_once import DismissOnce


class LogPicker(DismissOnce[int | None], ModalScreen[int | None]):
    """Dismisses with the index of the chosen log, or None on Esc."""

    DEFAULT_CSS = """
    LogPicker { align: center middle; }
    LogPicker > #log-picker { width: 90%; max-width: 120; height: auto; max-height: 80%;
                              border: round $primary; background: $surface; padding: 0 1; }
    LogPicker #log-picker-list { height: auto; max-height: 30; border: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "cancel", "Cancel")]

    def __init__(self, logs: Sequence[LogRef], index: int) -> None:
        super().__init__()
        self.logs = list(logs)
        self.index = index

    def compose(self) -> ComposeResult:
        with Vertical(id="log-picker"):
            yield Label("Open which log? (Enter opens · Esc cancels)")
            options = [
                Option(Text.assemble((f"{ref.name:<14}", "bold"), f" {ref.kind:<10} ", (ref.path, "dim")), id=str(i))
                for i, ref in enumerate(self.logs)
            ]
            yield OptionList(*options, id="log-picker-list")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = self.index
        options.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option_index)

    def action_cancel(self) -> None:
        self.dismiss(None)
