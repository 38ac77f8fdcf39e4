"""Keys in the order they were typed, each one done before the next is handed out.

Textual gives a key to the widget that has the focus when the app reads it, and runs a binding only once the key
has bubbled back up to the app. In a burst (a fast typist over ssh, `tmux send-keys`, key repeat) the next key was
handed out before the one before had done its work: a Backspace, a binding of the field, ran after the letters
typed after it (`mockr BSpace er` gave `mockrer`); a key typed after `/` reached the list the filter was opening
over; `l` after an Enter that opened the job view went to the list it was leaving. So the app hands out one key at
a time: the next waits until everything the one before set going has been handled (its binding, the focus it
moved, a screen pushed or popped, a view switched), and, while a screen says its answer is coming from a worker
(`HoldKeys`: the profile chosen, the Monitor's first refresh), until it is in. A key the app binds with priority
(ctrl+c) never waits. One mechanism for every field and screen: no widget needs its own ordering.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from textual import events
from textual.app import App
from textual.message_pump import MessagePump
from textual.screen import Screen

#: the longest the next key waits for the one before to be done (a step mounted on a busy login node takes a
#: second or two); then it goes
SETTLE_MAX_S = 5.0
#: the longest keys wait for a worker a screen said is coming (`HoldKeys`; a cold profile read)
HOLD_MAX_S = 3.0
#: turns of the event loop in a row with nothing left to handle that mean "done" (a handler that awaited resumes
#: within a turn and queues what it does next)
QUIET_TURNS = 3

#: a key or a paste: what the operator typed, handed out in order
Typed = events.Key | events.Paste


class KeyQueue:
    """The app's keys, one at a time: the app gives each key it reads to ``typed``, which hands it out now (through
    ``route``, the app's own handling) or queues it behind the keys before it."""

    def __init__(self, app: App[Any], route: Callable[[Typed], Awaitable[None]]) -> None:
        self._app = app
        self._route = route
        #: keys typed while another was being handled, oldest first
        self._waiting: deque[Typed] = deque()
        #: a key is being handled (or is on its way back to the app to be): the next one waits
        self._busy = False
        #: the keys sent back to the app to be handled now (by id: an event is not hashable by value)
        self._released: set[int] = set()
        #: keys wait for a screen's worker until then (monotonic seconds), or None
        self._hold_until: float | None = None
        self._settling: asyncio.Task[None] | None = None

    @property
    def done(self) -> bool:
        """Every key typed so far has been handled (none waits, none is being handled)."""
        return not (self._busy or self._waiting or self._hold_until is not None)

    async def typed(self, event: Typed) -> None:
        """A key the app read (or one sent back to it): handed out now, or queued behind the keys before it."""
        if self._priority(event):  # handled at once, and nothing waits for it
            await self._route(event)
            return
        if id(event) in self._released:
            self._released.discard(id(event))
        elif not self.done:
            self._waiting.append(event)
            return
        self._busy = True
        screens = self._screens()
        try:
            await self._route(event)
        finally:
            self._settling = asyncio.create_task(self._settle(screens))

    def hold(self, on: bool) -> None:
        """A screen's answer comes from a worker (on) or is in (off): keys wait for it, `HOLD_MAX_S` at most."""
        if on:
            self._hold_until = time.monotonic() + HOLD_MAX_S
            self._app.set_timer(HOLD_MAX_S, self._hold_expired)
            return
        if self._hold_until is None:
            return
        self._hold_until = None
        if not self._busy:  # what the answer set going is done first
            self._busy = True
            self._settling = asyncio.create_task(self._settle(self._screens()))

    def _hold_expired(self) -> None:
        if self._hold_until is not None and time.monotonic() >= self._hold_until - 0.05:
            self.hold(False)

    def _priority(self, event: Typed) -> bool:
        """ctrl+c (Quit) and any other key the app binds with priority: never queued behind other keys."""
        if not isinstance(event, events.Key):
            return False
        return any(b.priority for b in self._app._bindings.key_to_bindings.get(event.key, ()))

    async def _settle(self, screens: list[Screen[Any]]) -> None:
        """Wait until everything the last key set going is done, then hand out the next key."""
        try:
            deadline = time.monotonic() + SETTLE_MAX_S
            quiet = turns = 0
            while quiet < QUIET_TURNS and time.monotonic() < deadline and self._app.is_running:
                await asyncio.sleep(0 if turns < 100 else 0.001)  # a long wait (a mount, a thread): no busy loop
                turns += 1
                quiet = quiet + 1 if self._idle(screens) else 0
        finally:
            self._busy = False
            self._next()

    def _next(self) -> None:
        """The oldest waiting key, sent back to the app (handled in its own turn, after what is queued there)."""
        if self._busy or self._hold_until is not None or not self._waiting or not self._app.is_running:
            return
        event = self._waiting.popleft()
        self._busy = True
        self._released.add(id(event))
        self._app.post_message(event)

    def _screens(self) -> list[Screen[Any]]:
        try:
            return self._app.screen_stack
        except Exception:  # no screen yet (starting) or any more (closing)
            return []

    def _idle(self, screens: list[Screen[Any]]) -> bool:
        """Nothing queued anywhere a key can act: the app, the screens it was typed on and those shown now, and
        every widget of theirs (what waits for the next repaint does not hold the keys)."""
        seen = {id(s) for s in screens}
        every = screens + [s for s in self._screens() if id(s) not in seen]
        pumps: list[MessagePump] = [self._app]
        for screen in every:
            pumps.extend(screen.walk_children(with_self=True))
        return all(p._message_queue.empty() and not p._next_callbacks for p in pumps)
