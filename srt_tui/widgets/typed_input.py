"""An Input whose pattern limits what is typed or pasted into it, never what is deleted.

Textual's ``restrict`` matches the whole value after each edit, so a value that came from a file and already breaks
the pattern (a recipe's ``tp-size: eight``) could not lose a character to Backspace: only Ctrl-U cleared it.
"""

from __future__ import annotations

import re
from typing import Any

from textual.widgets import Input


class TypedInput(Input):
    """An Input taking only text that matches ``typed`` (a count's digits) as it is typed or pasted; deleting or
    replacing a value that does not match stays possible, so the field can be corrected key by key."""

    def __init__(self, value: str | None = None, *, typed: str, **kwargs: Any) -> None:
        super().__init__(value, **kwargs)
        self.typed = typed

    def replace(self, text: str, start: int, end: int) -> None:
        """Refuse (with the bell, as ``restrict`` does) inserted text that is not of ``typed``; deletions pass."""
        if text and re.fullmatch(self.typed, text) is None:
            self.restricted()
            return
        super().replace(text, start, end)
