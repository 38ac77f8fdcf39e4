"""The command palette's actions of the current screen: each screen declares what it can do, and the
palette offers what is possible right now (the screen's own `check_action` decides, as for its keys).

A screen opts in by having `palette_actions()` (see `DeclaresActions`); the provider never asks which
screen it is. Read-only mode, a job view or a wizard step hide and show entries exactly as they do keys.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Protocol, runtime_checkable

from textual.actions import parse

from srt_tui.tui.commands import ListedCommands


@dataclass(frozen=True)
class PaletteAction:
    """One palette entry: its title, a line of help, and the screen action it runs (`cancel_job`)."""

    title: str
    help: str
    action: str


@runtime_checkable
class DeclaresActions(Protocol):
    """A screen whose actions the palette offers."""

    def palette_actions(self) -> Sequence[PaletteAction]:
        """Every action the screen may offer (the ones its `check_action` refuses now are left out)."""
        ...

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Textual's: whether an action may run now."""
        ...


class ScreenActions(ListedCommands):
    """The current screen's declared actions, those possible now."""

    def _commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        screen = self.screen
        if not isinstance(screen, DeclaresActions):
            return []
        out: list[tuple[str, str, Callable[[], object]]] = []
        for entry in screen.palette_actions():
            _, name, params = parse(entry.action)
            if screen.check_action(name, params):  # False hides, None disables: neither is offered
                out.append((entry.title, entry.help, partial(self.screen.run_action, entry.action)))
        return out
