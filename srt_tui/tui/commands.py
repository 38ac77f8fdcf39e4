"""Command palette provider: switch modes, move through the wizard, open help."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

MODE_COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("launch", "Launch mode", "Profile → recipe → topology → preview → submit"),
    ("monitor", "Monitor mode", "Watch submitted jobs: Slurm state, workers, router, counters"),
    ("setup", "Setup mode", "Probe a cluster and write a profile"),
)


class ListedCommands(Provider):
    """A provider over a fixed list of (name, help, callback): every entry discoverable, fuzzy-searched."""

    def _commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        raise NotImplementedError

    async def discover(self) -> Hits:
        for name, help_text, callback in self._commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)


class SrtCommands(ListedCommands):
    """Modes and help, discoverable in the palette (ctrl+p) without typing."""

    def _commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        app = self.app
        out: list[tuple[str, str, Callable[[], object]]] = [
            (name, help_text, partial(app.switch_mode, mode)) for mode, name, help_text in MODE_COMMANDS
        ]
        out.append(("Help: keys", "Every key of the current screen", partial(app.run_action, "help")))
        return out
