"""An Input whose Backspace keeps its place among the keys typed after it.

Textual runs Backspace as a key binding, dispatched after the key event itself; in a burst (`BSpace 4` sent
at once over ssh or tmux) the `4` was inserted first and the late Backspace then deleted it, leaving the field
empty (issue 21, defect 9). Handling Backspace in the key event keeps the order the keys were typed in.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input


class OrderedInput(Input):
    """Input that deletes on Backspace as the key arrives, before any key typed after it."""

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "backspace":
            event.stop()
            event.prevent_default()
            self.action_delete_left()
            return
        await super()._on_key(event)
