"""An Input whose pattern limits what is typed or pasted into it, never what is deleted.

Textual's ``restrict`` matches the whole value after each edit, so a value that came from a file and already breaks
the pattern (a recipe's ``tp-size: eight``) could not lose a character to Backspace: only Ctrl-U cleared it.
"""

from __future__ import annotations

import re
from typing import Any

from textual.widgets import Input

#: what a refused key's toast says after what the field takes: a k9s user's `?` typed in a count was refused, and
#: nothing said how to leave the field or reach Help (op12); both work in every text field
WAYS_OUT = "Esc leaves the field; F1 help"


class TypedInput(Input):
    """An Input taking only text that matches ``typed`` (a count's digits) as it is typed or pasted; deleting or
    replacing a value that does not match stays possible, so the field can be corrected key by key."""

    def __init__(self, value: str | None = None, *, typed: str, says: str, **kwargs: Any) -> None:
        super().__init__(value, **kwargs)
        self.typed = typed
        #: what the field takes, said when a character is refused (`GPUs: digits only`): the bell alone left the
        #: operator guessing why `abc` vanished (issue 21)
        self.says = says

    def replace(self, text: str, start: int, end: int) -> None:
        """Refuse inserted text that is not of ``typed``, with the bell (as ``restrict`` does) and a toast saying what
        the field takes (the same words each time, so a burst of refused keys shows it once); deletions pass."""
        if text and re.fullmatch(self.typed, text) is None:
            self.restricted()
            self.notify(f"{self.says}\n{WAYS_OUT}", title="Not typed", severity="warning", timeout=4)
            return
        super().replace(text, start, end)
