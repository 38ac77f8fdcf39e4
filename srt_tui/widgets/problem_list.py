"""Validation findings: each names its field, says what is wrong and how to fix it."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

if TYPE_CHECKING:
    from srt_tui.core.errors import Problem


class ProblemList(Widget):
    """Errors first, then warnings; an all-clear line when there are none (or before them: ``ok_first``, what is
    valid said while other checks fail, as Topology's valid plan above this machine's ✗)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "problem-list--error",
        "problem-list--warning",
        "problem-list--field",
        "problem-list--hint",
        "problem-list--ok",
    }

    DEFAULT_CSS = """
    ProblemList { height: auto; }
    ProblemList > .problem-list--error { color: $text-error; text-style: bold; }
    ProblemList > .problem-list--warning { color: $text-warning; text-style: bold; }
    ProblemList > .problem-list--field { color: $text-accent; text-style: bold; }
    ProblemList > .problem-list--hint { color: $text-muted; }
    ProblemList > .problem-list--ok { color: $text-success; }
    """

    problems: reactive[list[Problem]] = reactive(list, layout=True, always_update=True)
    ok_text: reactive[str] = reactive("✓ no problems", layout=True)
    #: the all-clear line is shown above the findings too
    ok_first = False

    def show(self, problems: list[Problem], ok_text: str | None = None, *, ok_first: bool = False) -> None:
        """Replace the findings (and the all-clear text, shown above them too with ``ok_first``)."""
        if ok_text is not None:
            self.ok_text = ok_text
        self.ok_first = ok_first
        self.problems = list(problems)

    @property
    def text(self) -> str:
        """Plain text of what is shown (for tests and screen readers)."""
        return self.render().plain

    def render(self) -> Text:
        """One line per finding plus its fix."""
        if not self.problems:
            return Text(self.ok_text, style=self.get_component_rich_style("problem-list--ok", partial=True))
        out = Text()
        if self.ok_first and self.ok_text:
            out.append(self.ok_text, style=self.get_component_rich_style("problem-list--ok", partial=True))
            out.append("\n")
        ordered = [p for p in self.problems if p.severity == "error"] + [
            p for p in self.problems if p.severity != "error"
        ]
        for i, p in enumerate(ordered):
            if i:
                out.append("\n")
            error = p.severity == "error"
            out.append(
                "✗ " if error else "! ",
                style=self.get_component_rich_style(
                    "problem-list--error" if error else "problem-list--warning", partial=True
                ),
            )
            if p.field:
                out.append(p.field, style=self.get_component_rich_style("problem-list--field", partial=True))
                out.append(": ")
            out.append(p.message)
            if p.hint:
                out.append(
                    f"\n   fix: {p.hint}", style=self.get_component_rich_style("problem-list--hint", partial=True)
                )
        return out
