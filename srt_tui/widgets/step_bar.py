"""Breadcrumbs of a multi-step flow: done steps ticked, skipped ones dashed, the current one highlighted, the choices
so far."""

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
    #: steps passed by without being shown (a whole sweep skips Topology): `– 3 Topology`, never ticked
    skipped: reactive[frozenset[int]] = reactive(frozenset())

    def __init__(self, labels: tuple[str, ...], *, id: str | None = None) -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(id=id)
        self.labels = labels

    def _style(self, name: str) -> Style:
        """A component class's own style (no inherited background), for text spans."""
        return self.get_component_rich_style(name, partial=True)

    def render(self) -> Text:
        """The crumbs, then the note right after them. When the note's first choice would not show (at 80 columns
        the Submit step kept only the profile, not the recipe), the crumbs of the steps done, then of all but the
        current one, shrink to their numbers first: the recipe says more than the steps' names."""
        width = self.content_region.width
        for short in ("", "done", "all"):
            crumbs = self._crumbs(short)
            room = width - crumbs.cell_len - 3
            if not width or short == "all" or shows_choice(self.note, room):
                break
        if note := fit_note(self.note, room if width else None):
            crumbs.append("   " + note, style=self._style("step-bar--note"))
        return crumbs

    def _crumbs(self, short: str) -> Text:
        """`✓ 1 Profile › ✓ 2 Recipe ›  3 Topology  › …`; ``short`` `done`: the steps done as `✓ 1`, `all`: every
        step but the current one by its number alone."""
        st = self._style
        out = Text()
        for i, label in enumerate(self.labels):
            if i:
                out.append(" › ", style=st("step-bar--todo"))
            named = i == self.current or not short or (short == "done" and i > self.current)
            shown = f"{i + 1} {label}" if named else str(i + 1)
            if i == self.current:
                out.append(f" {shown} ", style=st("step-bar--current"))
            elif i in self.skipped and i < self.current:
                out.append(f"– {shown}", style=st("step-bar--todo"))
            elif i <= self.reached:
                out.append(f"✓ {shown}" if i < self.current else shown, style=st("step-bar--done"))
            else:
                out.append(shown, style=st("step-bar--todo"))
        return out


#: the fewest columns a choice is cut to (its start, `…`, its end) rather than left out
CUT_MIN = 12


def shows_choice(note: str, room: int) -> bool:
    """Whether `fit_note` keeps the note's first choice (its second part: the recipe) whole in ``room``."""
    parts = [p for p in note.split(" · ") if p]
    return len(parts) < 2 or len(parts[1]) <= room


def fit_note(note: str, room: int | None) -> str:
    """The note's ` · `-separated parts that fit ``room`` columns, whole (None: all of it). At 80 columns
    it was cut to `local ·`: the first part (the profile, which the header names) gives way first, then the
    last ones; when none of those fits, the second (the recipe) loses its middle, never its end, in ``room``
    when that leaves `CUT_MIN` columns, else the first alone; nothing rather than a part cut at its end. An empty
    note, or no room at all (the crumbs alone overflow 62 columns), is nothing: it raised IndexError there."""
    parts = [p for p in note.split(" · ") if p]
    if room is None or len(" · ".join(parts)) <= room:
        return " · ".join(parts)
    if not parts or room <= 0:
        return ""
    first, rest = parts[0], parts[1:]
    while rest and len(" · ".join(rest)) > room:
        rest.pop()
    if rest:
        return " · ".join(rest)
    if len(parts) > 1 and room >= CUT_MIN:
        keep = room - 1
        return parts[1][: keep // 3] + "…" + parts[1][len(parts[1]) - (keep - keep // 3) :]
    return first if len(first) <= room else ""
