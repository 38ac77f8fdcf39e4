"""What every screen may know of the app (clock, read-only, profile, Slurm reachability), and how it watches it.

The app owns one `ContextHub` and builds every mode's screen with it; screens and widgets read
`hub.context` and subscribe to its changes with `hub.watch(node, callback)`. Nothing under `tui/`
reaches for the App class (no `isinstance`/`getattr` on `self.app`), so no module imports `app.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from textual.signal import Signal

if TYPE_CHECKING:
    from textual.dom import DOMNode

#: `checking` until the first answer; `off` when the app was started without the check (tests, screenshots)
SlurmState = Literal["checking", "up", "down", "off"]
Clock = Callable[[], datetime]


#: the header's profile until one is given or chosen (Launch asks for one; Monitor and Setup need none)
NO_PROFILE = "(choose one)"


@dataclass(frozen=True)
class AppContext:
    """One immutable view of the app's state; a change replaces it whole, so a watcher sees every change."""

    #: everything time-dependent reads this clock (tests and screenshots freeze it)
    clock: Clock = datetime.now
    #: `--read-only`: every mutating action is hidden or refused
    read_only: bool = False
    #: the profile given with `-p` (the wizard preselects it), or None
    profile_spec: str | None = None
    #: the header's profile: `-p`'s name until one is chosen in the wizard, then `name (source)`
    profile_label: str = NO_PROFILE
    slurm_state: SlurmState = "checking"
    #: why Slurm is (un)reachable, as the newest check or Setup probe said
    slurm_reason: str = ""
    #: the cluster that answered while Slurm is up ('' when down, or its name is not known)
    slurm_cluster: str = ""
    #: profiles Setup has written in this run, and the newest one's name: the Launch profile list reads the files
    #: again (and puts its cursor on that one) instead of waiting for `r`
    profiles_written: int = 0
    written_profile: str = ""

    def now(self) -> datetime:
        """The current time by the context's clock."""
        return self.clock()


class ContextHub:
    """Holds the current `AppContext` and tells subscribed nodes of each new one (a Textual signal)."""

    def __init__(self, owner: DOMNode, context: AppContext) -> None:
        self._context = context
        self._changed: Signal[AppContext] = Signal(owner, "app-context")

    @property
    def context(self) -> AppContext:
        """The current context."""
        return self._context

    def update(self, **changes: Any) -> None:
        """Replace fields of the context (`hub.update(slurm_state="up")`) and tell every watcher."""
        new = replace(self._context, **changes)
        if new != self._context:
            self._context = new
            self._changed.publish(new)

    def watch(self, node: DOMNode, callback: Callable[[AppContext], object], *, init: bool = True) -> None:
        """Call `callback` with each new context while `node` is mounted (and now, with `init`).

        Called from the node's `on_mount` (a signal only takes running nodes); the callback runs at once
        on publish, so every screen's header shows the same state in the same frame.
        """
        self._changed.subscribe(node, callback, immediate=True)
        if init:
            callback(self._context)
