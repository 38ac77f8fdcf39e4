"""Breadcrumbs of a multi-step flow: done steps ticked, the current one highlighted, the choices so far."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget


class StepBar(Widget):
    """`✓ 1 Profile › 2 Recipe › …` plus a summary of what was chosen."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"step-bar--done", "step-bar--current", "step-bar--todo", "step-bar--note"}

    DEFAULT_CSS = """
    StepBar { height: 1; padding: 0 1; background: $boost; }
    StepBar > .step-bar--done { color: $text-success; }
    StepBar > .step-bar--current { background: $primary; color: $text; text-style: bold; }
    StepBar > .step-bar--todo { color: $text-muted; }
    StepBar > .step-bar--note { color: $text-secondary; }
    """

    current: reactive[int] = reactive(0)
    reached: reactive[int] = reactive(0)
    note: reactive[str] = reactive("")

    def __init__(self, labels: tuple[str, ...], *, id: str | None = None) -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(id=id)
        self.labels = labels

    def _style(self, name: str) -> Style:
        """A component class's own style (no inherited background), for text spans."""
        return self.get_component_rich_style(name, partial=True)

    def render(self) -> Text:
        """The crumbs, then the note right after them."""
        st = self._style
        out = Text()
        for i, label in enumerate(self.labels):
            if i:
                out.append(" › ", style=st("step-bar--todo"))
            if i == self.current:
                out.append(f" {i + 1} {label} ", style=st("step-bar--current"))
            elif i <= self.reached:
                out.append(f"✓ {i + 1} {label}" if i < self.current else f"{i + 1} {label}", style=st("step-bar--done"))
            else:
                out.append(f"{i + 1} {label}", style=st("step-bar--todo"))
        room = self.content_region.width - out.cell_len - 3
        if note := fit_note(self.note, room if self.content_region.width else None):
            out.append("   " + note, style=st("step-bar--note"))
        return out


def fit_note(note: str, room: int | None) -> str:
    """The note's ` · `-separated parts that fit ``room`` columns, whole (None: all of it). At 80 columns
    it was cut to `local ·`: the first part (the profile, which the header names) gives way first, then the
    last ones; when none of those fits, the first alone; nothing rather than a part cut."""
    parts = [p for p in note.split(" · ") if p]
    if room is None or len(" · ".join(parts)) <= room:
        return " · ".join(parts)
    first, rest = parts[0], parts[1:]
    while rest and len(" · ".join(rest)) > room:
        rest.pop()
    return " · ".join(rest) or (first if len(first) <= room else "")
