"""Typing is safe (operator pass: keys typed fast did other things than what was typed). Every test types a burst,
all its keys queued before the first is handled, as a terminal's read delivers a fast typist's keys, a paste of
keys, `tmux send-keys` or a laggy ssh link: the app hands them out in order, each done before the next.

1. A fresh start opens on the profile list, where `/` filters as on every list; a confirmation before a
   destructive action is never confirmed by an Enter typed in the burst that opened it.
2. The recipe filter opened again is replaced by what is typed; ctrl+n on a filter that matches nothing refuses;
   Esc while typing puts the cursor back on the recipe it was on.
3. Backspace in a burst deletes where it was typed, in every kind of text field.
4. Keys typed while a view is switched or a screen pushed or popped reach the view that comes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.coordinate import Coordinate
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Tree

from srt_tui.monitor.model import JobSnapshot
from srt_tui.tui.app import SrtTuiApp
from srt_tui.tui.context import ContextHub
from srt_tui.tui.launch.screen import LaunchScreen
from srt_tui.tui.logs.screen import LogViewerScreen
from srt_tui.tui.monitor.alljobs.dialogs import ConfirmHide
from srt_tui.tui.monitor.alljobs.source import FrozenJobsSource
from srt_tui.tui.monitor.dialogs import ConfirmCancel
from srt_tui.tui.monitor.screen import MonitorScreen
from tests.monitor import frozen
from tests.monitor.alljobs_frozen import FACTS, app_with, rows
from tests.monitor.tui_apps import FrozenFeed, frozen_app
from tests.setup.recorded import setup_app
from tests.tui.scenarios import NVIDIA, settle
from tests.tui.tui_helpers import FIXED_NOW, burst, make_app, prefill_gpus_field


def _said(app: App[Any]) -> list[str]:
    return [str(n.message) for n in app._notifications]


def _cursor(tree: Tree[Any]) -> str | None:
    node = tree.cursor_node
    return node.data.label if node is not None and node.data is not None else None


# -- 1. the first screen, and confirmations ----------------------------------------------------------------


async def test_a_fresh_start_filters_the_profile_list_with_slash_and_the_burst_switches_nothing() -> None:
    """A fresh start opens on the profile list. `/1p2d Enter Enter` typed there at once (the operator expected the
    recipe filter): `/` did nothing, `1` and `2` switched to the Monitor, `d` asked to remove job local-1 and the
    first Enter removed it. Now `/` opens the profile list's filter, the rest is its text, and Enter says that no
    profile matches; Esc while typing cancels the filter, and `/local` Enter chooses the profile so named."""
    app = make_app(None)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LaunchScreen) and screen.index == 0
        table = screen.query_one("#profile-table", DataTable)
        first = table.cursor_row
        burst(app, "/", *"1p2d", "enter", "enter")
        await settle(pilot)
        field = screen.query_one("#profile-filter", Input)
        assert app.current_mode == "launch" and screen.index == 0 and app.screen is screen, app.current_mode
        assert field.value == "1p2d" and table.row_count == 0
        assert "No profile matches the filter '1p2d': change it, or Esc clears it." in _said(app), _said(app)
        burst(app, "/", *"amd", "escape")  # typed, then cancelled: every profile, the cursor where it was
        await settle(pilot)
        assert not field.display and table.row_count > 2 and table.cursor_row == first
        burst(app, "/", *"local", "enter", "/", *"mocker")  # named exactly: chosen; the rest is the Recipe step's
        await settle(pilot)
        assert (
            isinstance(screen, LaunchScreen)
            and screen.index == 1
            and screen.state.profile is not None
            and screen.state.profile.name == "local"
        )
        assert screen.query_one("#recipe-filter", Input).value == "mocker"


async def test_an_enter_typed_with_the_key_that_asks_never_confirms() -> None:
    """`d` (remove an ended job from the list) or `c` (cancel a job) and Enter in one burst: the Enter reached the
    dialog while its first button, the destructive one, had the focus, and confirmed. The safe button has the
    focus from the first frame; the box says which key does what, and `y` confirms."""
    cancelled: list[str] = []
    app = frozen_app(frozen.fleet(), canceller=lambda job, path: cancelled.append(job))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        monitor = app.screen
        assert isinstance(monitor, MonitorScreen)
        await pilot.press("G")  # the oldest job: failed, so `d` may remove it
        ended = monitor.current_job()
        snap = monitor.snapshot_of(ended)
        assert ended is not None and snap is not None and snap.is_final
        burst(app, "d", "enter")
        await settle(pilot)
        assert monitor.removed == set() and monitor.snapshot_of(ended) is not None and app.screen is monitor
        await pilot.press("g")  # the newest job: still queued or running, so `c` may cancel it
        burst(app, "c", "enter")
        await settle(pilot)
        assert app.screen is monitor and cancelled == []
        await pilot.press("c")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmCancel) and app.focused is dialog.query_one("#confirm-no")
        assert dialog.query_one("#confirm-box").border_subtitle == "y cancels the job · Enter, n or Esc keeps it"
        await pilot.press("escape", "G")
        burst(app, "d", "y")
        await settle(pilot)
        assert monitor.removed == {ended} and not isinstance(app.screen, ConfirmHide)


# -- 2. the recipe filter, opened again ---------------------------------------------------------------------


async def test_a_recipe_filter_opened_again_is_replaced_and_one_that_matches_nothing_chooses_nothing() -> None:
    """Back on the Recipe step (Esc from Topology) the filter still read `mocker-2p1d`; `/mocker-1p1d` appended to it
    (`mocker-2p1dmocker-1p1d`: "No recipe matches."); ctrl+n on a filter matching nothing went on with the recipe
    chosen before, silently; Esc on the filter moved the cursor to `mocker-1p1d`."""
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LaunchScreen)
        burst(app, "/", *"mocker-2p1d", "enter")  # named exactly: chosen, on to Topology
        await settle(pilot)
        assert screen.index == 2 and screen.state.recipe_label == "mocker-2p1d"
        burst(app, "escape", "/", *"mocker-1p1d")
        await settle(pilot)
        field = screen.query_one("#recipe-filter", Input)
        tree: Tree[Any] = screen.query_one("#recipe-tree", Tree)
        assert screen.index == 1 and field.value == "mocker-1p1d" and _cursor(tree) == "mocker-1p1d", field.value
        burst(app, "escape")  # while typing: the filter is cancelled, the cursor back on the recipe chosen
        await settle(pilot)
        assert not field.display and _cursor(tree) == "mocker-2p1d"
        burst(app, "/", *"zzz", "ctrl+n")
        await settle(pilot)
        assert screen.index == 1 and _cursor(tree) is None
        assert "No recipe matches the filter 'zzz': change it, or Esc clears it." in _said(app), _said(app)
        burst(app, "escape", "ctrl+n")
        await settle(pilot)
        assert screen.index == 2 and screen.state.recipe_label == "mocker-2p1d", (
            _said(app),
            _cursor(tree),
            app.focused,
        )


# -- 3. Backspace in every kind of text field -----------------------------------------------------------------


#: each kind of field: the app, the keys that open the field (typed in the same burst) and the field
FIELDS: Mapping[str, tuple[Callable[[], App[Any]], tuple[str, ...], str]] = {
    "recipe filter": (lambda: make_app("local"), ("/",), "#recipe-filter"),
    "profile filter": (lambda: make_app(None), ("/",), "#profile-filter"),
    "jobs filter": (lambda: frozen_app(frozen.fleet()), ("/",), "#jobs-filter"),
    "all-jobs filter": (lambda: app_with(FrozenJobsSource("ann", rows(), FACTS)), ("A", "/"), "#alljobs-filter"),
    "log search": (lambda: frozen_app(frozen.fleet()), ("l", "/"), "#log-search"),
    "prompt": (lambda: make_app("local"), ("o",), "#prompt-input"),
    "setup field": (setup_app, ("shift+tab",), "#opt-paths"),
}


@pytest.mark.parametrize("kind", list(FIELDS))
async def test_backspace_in_a_burst_deletes_where_it_was_typed(kind: str) -> None:
    """`mockr BSpace er-1p` in one burst gave `mockrer-1p` (Textual's Backspace is a binding, run once the key has
    bubbled up to the app, after the letters typed after it went in); even `mo`, BSpace, `ck` sent one after the
    other gave `moc` while the recipe list redrew. The keys that open the field are in the burst too."""
    make, opening, selector = FIELDS[kind]
    app = make()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        burst(app, *opening, *"mockr", "backspace", *"er-1p")
        await settle(pilot)
        field = app.screen.query_one(selector, Input)
        assert field.value == "mocker-1p", (kind, field.value)
        burst(app, "backspace", *"2d", "backspace", "backspace", "d")
        await settle(pilot)
        assert field.value == "mocker-1d", (kind, field.value)


async def test_backspace_in_a_burst_on_a_topology_field() -> None:
    """The wizard's role fields (counts): `1 2 BSpace 3` at once is `13`."""
    app = make_app(NVIDIA.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        box = await prefill_gpus_field(pilot)
        burst(app, "1", "2", "backspace", "3", "backspace", "backspace", "4")
        await settle(pilot)
        assert box.value == "4"


# -- 4. keys across screen and view changes -------------------------------------------------------------------


class SlowFeed(FrozenFeed):
    """The frozen snapshots, a moment after each refresh is asked for (a monitor's first read of its jobs)."""

    async def refresh(self, jobs: Mapping[str, Path]) -> list[JobSnapshot]:
        await asyncio.sleep(1.0)
        return await super().refresh(jobs)


def _app_with_slow_monitor() -> SrtTuiApp:
    def monitor(hub: ContextHub) -> MonitorScreen:
        return MonitorScreen(hub, SlowFeed(frozen.fleet()), discover=False, poll_interval=30.0)

    app = SrtTuiApp(clock=lambda: FIXED_NOW, check_slurm=False, cursor_blink=False, screens={"monitor": monitor})
    app.animation_level = "none"
    return app


async def _until(pilot: Pilot[Any], check: Callable[[], bool]) -> None:
    for _ in range(100):
        if check():
            return
        await pilot.pause(0.05)


async def test_keys_typed_while_the_monitor_opens_reach_it() -> None:
    """`Escape Escape 2 g Enter l` at once from the profile list opened the job view but not its logs, or nothing:
    `g` and Enter reached a list its first refresh had not filled yet, or a widget that was leaving. Keys typed
    while the Monitor reads its jobs wait for them, then go on in order."""
    app = _app_with_slow_monitor()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        burst(app, "escape", "escape", "2", "g", "enter", "l")
        await _until(pilot, lambda: isinstance(app.screen, LogViewerScreen))
        viewer = app.screen
        assert isinstance(viewer, LogViewerScreen), app.screen_stack
        monitor = app.screen_stack[0]
        assert isinstance(monitor, MonitorScreen) and monitor.in_job_view
        first = monitor.query_one("#jobs-table", DataTable).coordinate_to_cell_key(Coordinate(0, 0)).row_key.value
        assert monitor.selected == first


async def test_enter_l_in_all_jobs_opens_the_jobs_logs() -> None:
    """From all jobs (`A`), `Enter l` at once: Enter closed the list and opened the job view, `l` reached the list
    that was closing and was lost."""
    snap = frozen.frozen_job("81290", "nvidia/h100-1p2d-sglang.yaml", "nvidia-h100",
                             job_dir=Path("/home/ann/outputs/81290"))  # fmt: skip
    app = app_with(FrozenJobsSource("ann", rows(), FACTS), snaps=[snap])
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("A")
        await settle(pilot)
        await pilot.press("end")  # 81290, an srt-tui job the Monitor shows
        burst(app, "enter", "l")
        await settle(pilot)
        assert isinstance(app.screen, LogViewerScreen), app.screen_stack
        monitor = app.screen_stack[0]
        assert isinstance(monitor, MonitorScreen) and monitor.in_job_view and monitor.selected == "81290"
