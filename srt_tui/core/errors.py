"""Error types that carry a location (file, line, field) and a fix, so the CLI can print one clear line."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True)
class Problem:
    """One validation finding: where it is, what is wrong, and how to fix it."""

    field: str
    message: str
    hint: str = ""
    file: str | None = None
    line: int | None = None
    severity: str = "error"

    def render(self) -> str:
        """Format as `file:line: field: message (fix: hint)`."""
        where = ""
        if self.file:
            where = f"{self.file}:{self.line}: " if self.line else f"{self.file}: "
        text = f"{where}{self.field}: {self.message}" if self.field else f"{where}{self.message}"
        if self.hint:
            text += f" (fix: {self.hint})"
        return text


@dataclass
class SrtError(Exception):
    """Base error of srt-tui: a list of problems that stops the current command."""

    problems: list[Problem] = field(default_factory=list)

    def __str__(self) -> str:
        return "\n".join(p.render() for p in self.problems)


class ConfigError(SrtError):
    """A profile or recipe that cannot be loaded or validated."""


class TopologyError(SrtError):
    """A topology that does not fit the cluster or the engine."""


def config_error(
    message: str, *, field: str = "", hint: str = "", file: str | None = None, line: int | None = None
) -> ConfigError:
    """Build a ConfigError holding a single problem."""
    return ConfigError([Problem(field=field, message=message, hint=hint, file=file, line=line)])


def did_you_mean(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str:
    """The hint naming the choice closest to a misspelt `word` (a key, a name, a value of a closed set) as
    "did you mean `x`?", or "" when none is close: the one wording of every such hint."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=cutoff)
    return f"did you mean `{close[0]}`?" if close else ""


def choices_hint(word: str, choices: Iterable[str], lead: str = "one of") -> str:
    """The fix for a value outside a closed set: the nearest choice when one is close, then all of them."""
    listed = list(choices)
    every = f"{lead}: {', '.join(listed)}"
    close = did_you_mean(word, listed)
    return f"{close} ({every})" if close else every


#: who shows a message: the command line (its flags) or the TUI (its steps and fields). A fix that says where to
#: change something is composed once and worded for the face that shows it
Face = Literal["cli", "tui"]


def whole_number(value: object) -> int | None:
    """A count as a recipe or a form writes it: an int or its ASCII digits (`8`, `"8"`), else None (`8x`, `eight`,
    `-1`, `8.0`, `true`): the one reading of a count, shared by the checks that refuse one and the code reading it."""
    text = str(value) if isinstance(value, (int, str)) and not isinstance(value, bool) else ""
    return int(text) if text.isascii() and text.isdigit() else None


def count_problem(value: object, field: str, minimum: int, hint: str) -> Problem | None:
    """Why ``value`` at ``field`` is not a count of at least ``minimum`` (None when it is one): the one wording of
    such a refusal, whether the recipe file (`srt-tui dry-run`) or the TUI's role form says the value."""
    number = whole_number(value)
    if number is None:
        return Problem(field, f"`{value}` is not a whole number", hint)
    if number < minimum:
        return Problem(field, f"must be at least {minimum}", hint)
    return None
