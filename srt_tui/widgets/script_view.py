"""The exact launch script, highlighted as bash with line numbers, scrollable both ways."""

from __future__ import annotations

from rich.syntax import Syntax
from textual.app import ComposeResult
from textual.containers import ScrollableContainer
from textual.widgets import Static


class ScriptView(ScrollableContainer):
    """Read-only script text (rich Syntax: no tree-sitter needed)."""

    DEFAULT_CSS = """
    ScriptView { height: 1fr; }
    ScriptView > Static { width: auto; height: auto; }
    """

    def __init__(self, script: str = "", *, id: str | None = None, classes: str | None = None) -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(id=id, classes=classes, can_focus=True)
        self._script = script

    @property
    def script(self) -> str:
        """The text shown, exactly as it will be written to sbatch.sh."""
        return self._script

    def compose(self) -> ComposeResult:
        yield Static(self._syntax(), id="script-text")

    def _syntax(self) -> Syntax:
        dark = self.app.current_theme.dark if self.is_attached else True
        background = self.background_colors[1].hex if self.is_attached else None
        return Syntax(
            self._script,
            "bash",
            theme="monokai" if dark else "friendly",
            line_numbers=True,
            word_wrap=False,
            background_color=background,
            indent_guides=False,
        )

    def show(self, script: str) -> None:
        """Replace the script and scroll back to the top."""
        self._script = script
        if self.is_mounted:
            self.query_one("#script-text", Static).update(self._syntax())
            self.scroll_home(animate=False)
