"""The palette (ctrl+p) offers the current screen's actions, not only the modes (issue 11): submit in the
launch preview, cancel / open job / open log / results in the Monitor, what is possible now only."""

from __future__ import annotations

from typing import Any

from textual.command import CommandPalette
from textual.screen import Screen

from srt_tui.tui.launch.screen import LaunchScreen
from srt_tui.tui.monitor.dialogs import ConfirmCancel
from srt_tui.tui.monitor.screen import MonitorScreen
from srt_tui.tui.palette import ScreenActions
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import NVIDIA, reach, settle
from tests.tui.tui_helpers import make_app


def offered(screen: Screen[Any]) -> list[str]:
    """The titles the palette's screen provider offers on ``screen`` now."""
    return [title for title, _, _ in ScreenActions(screen)._commands()]


async def run_from_palette(pilot, words: str) -> None:  # type: ignore[no-untyped-def]
    """Open the palette, type ``words``, run the best match, as an operator would."""
    await pilot.press("ctrl+p")
    await pilot.pause()
    assert isinstance(pilot.app.screen, CommandPalette)
    await pilot.press(*words)
    await pilot.pause(0.3)  # the palette searches its providers in the background
    await pilot.press("enter")
    await settle(pilot)


async def test_monitor_offers_job_actions_and_cancel_runs_from_the_palette() -> None:
    cancelled: list[str] = []
    app = frozen_app(frozen.fleet(), canceller=lambda job, _dir: cancelled.append(job))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MonitorScreen)
        titles = offered(screen)
        for title in ("Open job", "Open log", "Results", "Cancel job", "Remove job", "All jobs", "Add job"):
            assert title in titles
        assert "Worker detail" not in titles  # no worker is shown on the jobs list
        job = screen.current_job()
        await run_from_palette(pilot, "cancel job")
        assert isinstance(app.screen, ConfirmCancel) and app.screen.job_id == job
        await pilot.press("y")
        await settle(pilot)
        assert cancelled == [job]
        screen.open_job(job or "")
        await pilot.pause()
        titles = offered(screen)
        assert "Worker detail" in titles and "Open job" not in titles  # already open
        assert "All jobs" not in titles  # a jobs-list key (check_action), as its footer says


async def test_read_only_monitor_offers_no_cancel() -> None:
    app = frozen_app(frozen.fleet(), read_only=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        titles = offered(app.screen)
        assert "Cancel job" not in titles and "Remove job" not in titles and "Open job" in titles


async def test_launch_offers_submit_from_the_preview_on_and_it_goes_to_the_launcher_choice() -> None:
    app = make_app(NVIDIA.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LaunchScreen)
        assert not any(t.startswith("Submit") for t in offered(screen))  # profile step: nothing to submit
        await reach(pilot, NVIDIA, "preview", typed=False)
        assert "Submit…" in offered(screen)
        await run_from_palette(pilot, "submit")
        assert screen.index == 4  # the Submit step: the launcher is chosen there, never submitted blind
        assert "Submit" in offered(screen)


async def test_keys_in_the_palette_opens_the_one_help() -> None:
    """Issue 21 review: the palette listed Textual's own `Keys` (a side panel of widget bindings) beside
    `Help: keys`; typing `keys` opened the side panel. One help: `?`'s."""
    from srt_tui.tui.help_screen import HelpScreen

    app = frozen_app(frozen.fleet())
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert "Keys" not in [c.title for c in app.get_system_commands(app.screen)]
        await run_from_palette(pilot, "keys")
        assert isinstance(app.screen, HelpScreen) and not app.screen.query("HelpPanel")
