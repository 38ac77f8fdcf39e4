"""One printable line, whatever a file name or a message holds (shared by the command line's outputs)."""

from __future__ import annotations


def printable(text: str) -> str:
    """Control characters (a newline in a name) are escaped, so one message stays one line."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
