"""Whether the TUI has a terminal to run on: `srt-tui` (and `srt-tui setup`) off one, over `ssh host srt-tui` without
-t, from cron or with `</dev/null`, started the full app, which wrote its escape codes into the pipe or file and
waited for keys that never came."""

from __future__ import annotations

import sys


def _is_terminal(stream: object) -> bool:
    """Whether ``stream`` is a terminal (a closed or replaced stream is not)."""
    try:
        return bool(getattr(stream, "isatty", lambda: False)())
    except (OSError, ValueError):  # closed (`<&-`), or a stream without a descriptor
        return False


def not_terminals() -> list[str]:
    """The standard streams the TUI needs that are no terminal: it reads its keys on stdin, Textual draws on stderr
    (Textual 8; stdout in others) and what it prints when it ends goes to stdout. Empty: it can start."""
    streams = (("stdin", sys.stdin), ("stdout", sys.stdout), ("stderr", sys.stderr))
    return [name for name, stream in streams if not _is_terminal(stream)]


def said(names: list[str]) -> str:
    """`stdin`, `stdin and stdout`, `stdin, stdout and stderr`: the streams named in a sentence."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def no_terminal_message(names: list[str], what: str = "the TUI") -> str:
    """The one line `srt-tui` says instead of starting ``what`` off a terminal, naming the streams that are not one
    and the ways on: a command (the TUI's headless face) or `ssh -t`."""
    verb = "is not one" if len(names) == 1 else "are not one"
    return (
        f"{what} needs a terminal, and {said(names)} {verb} here (a pipe, a file, `ssh host srt-tui` without -t, "
        "cron); use a command instead, e.g. `srt-tui status` or `srt-tui jobs` (`srt-tui --help` lists them), or "
        "`ssh -t` for the TUI"
    )
