"""Textual's Footer, fitted to its width: at 80 columns the keys a screen names as giving way leave it, in that
order, so the ones that matter show whole; every key still works and `?` Help still lists it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.cells import cell_len
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.binding import Binding
    from textual.screen import Screen

#: what a key takes besides its key and description: a column before the key, between them, after them
KEY_PADDING = 3
#: what the command palette's key takes besides (Footer draws it compact): a column between them, its left
#: border and its right padding
PALETTE_PADDING = 3


class FitFooter(Footer):
    """A Footer that leaves out the keys of ``gives_way`` (actions, the first to leave first) while the keys it
    shows would not fit its width; worked out anew when the keys or the width change."""

    def __init__(self, gives_way: Iterable[str], *, id: str | None = None) -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(id=id)
        self.gives_way = tuple(gives_way)
        #: the actions left out the last time the keys were composed
        self.left_out: frozenset[str] = frozenset()

    def compose(self) -> ComposeResult:
        self.left_out = self._leaving(self.size.width)
        self._composed = self._keys()
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                if widget.action in self.left_out:
                    continue
                if not widget.has_class("-command-palette"):  # (Footer binds every key's `compact` but that one's)
                    # its `compact` as bound, before it mounts: a key started compact and its binding then undid it,
                    # each a restyle of the key (two of every key at every compose)
                    widget.set_reactive(FooterKey.compact, self.compact)
            yield widget

    def on_resize(self) -> None:
        """A width that leaves out other keys composes them anew (a footer is recomposed only when they change)."""
        if self._bindings_ready and self._leaving(self.size.width) != self.left_out:
            self._recompose_soon()

    def bindings_changed(self, screen: Screen[object]) -> None:
        """Textual's, but the keys are composed anew only when what the footer shows changed, once for every change
        made before the footer next reads its queue: Textual recomposed every key at each change of the screen's
        bindings (a screen's start changes them two or three times, a focus move once), most leaving it as it was."""
        self._bindings_ready = True
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self._recompose_soon()

    #: a recompose is asked for: it is in the footer's own queue
    _recompose_asked = False
    #: what the keys were last composed from (`_keys`)
    _composed: tuple[object, ...] | None = None

    def _recompose_soon(self) -> None:
        """Ask for a recompose in the footer's own queue, never `call_after_refresh`: that parks it on the screen
        current then (a dialog the footer's screen just opened), and a dialog closed before its first frame (`c y`,
        `l q` in one read) dropped it; the footer, still waiting for it, let every later change of its keys pass."""
        if not self._recompose_asked:
            self._recompose_asked = self.call_later(self._recompose_now)

    async def _recompose_now(self) -> None:
        """Compose the keys anew if what they show changed; not while another screen is on top of the footer's (a
        dialog, the log viewer): no one reads them there, and Textual publishes the screen's keys when it is back."""
        self._recompose_asked = False
        if self.app.screen is not self.screen:
            return
        if self._keys() != self._composed or self._leaving(self.size.width) != self.left_out:
            await self.recompose()

    def _keys(self) -> tuple[object, ...]:
        """What Footer composes its keys from: the screen's shown bindings as it reads them, and its own settings
        (nothing until the bindings are known)."""
        if not self._bindings_ready:
            return ()
        shown = tuple(
            (key, b.action, b.description, b.group, b.tooltip, enabled, tooltip, self.app.get_key_display(b))
            for key, (_, b, enabled, tooltip) in self.screen.active_bindings.items()
            if b.show or key == self.app.COMMAND_PALETTE_BINDING
        )
        return (shown, self.show_command_palette, self.compact)

    def _leaving(self, width: int) -> frozenset[str]:
        """The actions of `gives_way` to leave out so that the shown keys fit ``width`` (none before layout)."""
        if width <= 0 or not self._bindings_ready:
            return frozenset()
        shown: dict[str, Binding] = {}  # one key an action, as Footer shows them
        palette: Binding | None = None
        for key, active in self.screen.active_bindings.items():
            if (
                key == self.app.COMMAND_PALETTE_BINDING
                and self.show_command_palette
                and self.app.ENABLE_COMMAND_PALETTE
            ):
                palette = active.binding
            if active.binding.show:
                shown.setdefault(active.binding.action, active.binding)
        widths = {action: self._width(binding) for action, binding in shown.items()}
        room = width - (self._width(palette, PALETTE_PADDING) if palette is not None else 0)
        total, leaving = sum(widths.values()), set()
        for action in self.gives_way:
            if total <= room:
                break
            if action in widths:
                total -= widths.pop(action)
                leaving.add(action)
        return frozenset(leaving)

    def _width(self, binding: Binding, padding: int = KEY_PADDING) -> int:
        """The columns a key takes in the footer: ` key description `."""
        return cell_len(self.app.get_key_display(binding)) + cell_len(binding.description) + padding
