"""The Monitor keeps the collector's full passes short (issue 22, key latency at 1,024 endpoints): what is alive
after each refresh leaves the collector's generations, and a full collection every few refreshes frees the
cycles that died meanwhile."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest

from srt_tui.tui.monitor import screen as monitor_screen
from tests.monitor import frozen
from tests.monitor.tui_apps import FrozenFeed, fed_app


class _Cycle:
    """An object that refers to itself: only the cycle collector frees it."""

    def __init__(self) -> None:
        self.me = self


async def test_each_refresh_settles_the_heap_and_every_few_a_full_collection_frees_the_cycles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(monitor_screen, "SETTLE_EVERY", 4)
    snaps = frozen.fleet()
    app = fed_app(FrozenFeed(snaps), {s.job_id: Path(s.job_dir) for s in snaps}, interval=0.02)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, monitor_screen.MonitorScreen)
        while screen.polls < 2:
            await pilot.pause(0.01)
        cycle = _Cycle()
        alive = weakref.ref(cycle)
        at = screen.polls
        while screen.polls == at or screen.polls % 4 == 1:  # a refresh that is not a full collection's
            await pilot.pause(0.005)
        del cycle
        gc.collect()
        assert alive() is not None  # settled by that refresh: no collection walks it any more
        while (screen.polls - 1) % 4:  # up to the next full collection
            await pilot.pause(0.005)
        assert alive() is None
