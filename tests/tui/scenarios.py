"""Named wizard states reached key by key, shared by the snapshot tests and `scripts/screenshots.py`.

Each scenario is what an operator would type; nothing is injected into widgets behind the app's back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.pilot import Pilot

STEP_ORDER: tuple[str, ...] = ("profile", "recipe", "topology", "preview", "submit")


@dataclass(frozen=True)
class Scenario:
    """A profile (given as `srt-tui -p NAME`), a recipe filter typed after `/`, and role values typed on the
    topology step."""

    name: str
    profile: str
    query: str
    edits: tuple[tuple[str, str], ...] = field(default=())


NVIDIA = Scenario("nvidia", "nvidia-h100", "2p1d-sgl")
AMD = Scenario("amd", "amd-mi300x", "moriio")
INVALID = Scenario("invalid", "nvidia-h100", "2p1d-sgl", (("prefill-gpus", "3"),))
SCENARIOS: dict[str, Scenario] = {s.name: s for s in (NVIDIA, AMD, INVALID)}


async def settle(pilot: Pilot[Any], rounds: int = 20, but: str | None = None) -> None:
    """Wait until every key typed is handled, no worker is pending or running and every queued message is handled.

    A worker may be started by a message handled during the wait (a dismissed prompt's callback),
    so this loops until one quiet round; `rounds` bounds it for screens with periodic workers. `but`: the name of
    workers the test holds (this machine's `host-checks` on a hung mount), not waited for.
    """
    for _ in range(rounds):
        await pilot.pause()
        await typed(pilot)
        busy = [w for w in pilot.app.workers if not w.is_finished and w.name != but]
        if not busy:
            break
        await pilot.app.workers.wait_for_complete(busy)
    await pilot.pause()
    await pilot.pause()


async def typed(pilot: Pilot[Any], timeout: float = 10.0) -> None:
    """Wait until the app has handled every key typed (it hands them out one at a time: `key_order`); a pause
    alone can end early on a loaded machine, where a process waiting for a core looks idle."""
    queue = getattr(pilot.app, "key_queue", None)
    for _ in range(int(timeout / 0.01)):
        if queue is None or queue.done:
            return
        await pilot.pause(0.01)


async def type_into(pilot: Pilot[Any], selector: str, text: str) -> None:
    """Focus an input, select what is there, and type `text` key by key."""
    from textual.widgets import Input

    field = pilot.app.screen.query_one(selector, Input)
    field.focus()
    await pilot.pause()
    field.select_all()
    await pilot.press(*(text or "backspace"))


async def reach(pilot: Pilot[Any], scenario: Scenario, step: str, typed: bool = True, but: str | None = None) -> None:
    """Drive the launch wizard (an app started with `profile=scenario.profile`, so it opens on the recipe list) from
    its first screen to `step`.

    With `typed=False` the recipe filter text is pasted instead of typed key by key (same handlers run;
    snapshots use it to stay fast), every other step is still driven by keys. `but`: workers not waited for
    (`settle`).
    """
    target = STEP_ORDER.index(step)
    await settle(pilot, but=but)
    if target == 0:  # a profile given opens the wizard on the recipe list: the Profile step is one key back
        await pilot.press("escape")
        await settle(pilot, but=but)
        return
    if typed:
        await pilot.press("slash", *scenario.query)
    else:
        from textual.widgets import Input

        await pilot.press("slash")
        pilot.app.screen.query_one("#recipe-filter", Input).insert_text_at_cursor(scenario.query)
        await settle(pilot, but=but)
    if target == 1:  # Tab gives the keys to the filtered list, Esc closes the filter: the cursor stays on the row
        await pilot.press("tab", "escape")
        await settle(pilot, but=but)
        return
    await pilot.press("enter")  # the filter's Enter takes the highlighted recipe: its Topology step
    await settle(pilot, but=but)
    for selector, value in scenario.edits:
        await type_into(pilot, f"#{selector}", value)
        await settle(pilot, but=but)
    if target == 2:
        return
    for _ in range(target - 2):
        await pilot.press("ctrl+n")
        await settle(pilot, but=but)
