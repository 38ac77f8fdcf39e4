"""Setup's confirmation before writing over an existing profile file, naming the keys that would be lost or changed
(`srt_tui.setup.overwrite`: the rule `setup --probe --write` follows too)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Label, Static

from srt_tui.setup.overwrite import change_lines
from srt_tui.tui.monitor.dialogs import YesNoScreen


class ConfirmOverwrite(YesNoScreen):
    """Asks before Setup writes over an existing profile: `y` writes, `n`/Esc keeps the file as it is."""

    DEFAULT_CSS = """
    ConfirmOverwrite { align: center middle; }
    #overwrite-box { width: 76; max-width: 95%; height: auto; max-height: 90%; border: round $warning;
        padding: 0 1; background: $surface; }
    #overwrite-title { text-style: bold; }
    #overwrite-note { margin: 1 0; }
    #overwrite-buttons { height: auto; align-horizontal: right; }
    #overwrite-buttons Button { margin-left: 1; }
    """
    prefix: ClassVar[str] = "overwrite"
    box_title: ClassVar[str] = "Overwrite profile"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Overwrite"),
        Binding("n,escape", "answer(False)", "Keep the file"),
    ]
    keys_hint: ClassVar[str] = "y overwrites · Enter, n or Esc keeps the file"

    def __init__(self, shown_path: str, lost: list[str], changed: list[str], notes: Sequence[str] = ()) -> None:
        super().__init__(id="confirm-overwrite")
        self.shown_path = shown_path
        self.lost = lost
        self.changed = changed
        #: what is wrong with the file it writes over and what replaces it (an `mpi_plugin` that does not load here)
        self.notes = list(notes)

    def note(self) -> str:
        """The keys the write loses and changes, one a line, then what it fixes in the file (`notes`)."""
        lines = change_lines(self.lost, self.changed)
        said = "\n".join(lines) or ("" if self.notes else "No key is lost or changed (comments are rewritten).")
        return "\n".join([said, *(f"Note: {n}" for n in self.notes)]).strip("\n")

    def compose(self) -> ComposeResult:
        with Vertical(id="overwrite-box"):
            yield Label(f"Overwrite {self.shown_path}?", id="overwrite-title")
            yield Static(self.note(), id="overwrite-note")
            yield from self.yes_no("Overwrite (y)", "Keep the file (n)", "warning")
