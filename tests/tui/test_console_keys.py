"""Keys that must do what they say (issue 11, item 6): Esc on the jobs list is not offered when there
is nothing to go back from; Home/End and j/k/g/G move the row cursor of every table."""

from __future__ import annotations

from textual.widgets import DataTable

from srt_tui.tui.monitor.screen import MonitorScreen
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import settle
from tests.tui.tui_helpers import make_app, walk_rows


def _offers_escape(screen: MonitorScreen) -> bool:
    """Whether the footer shows `esc` (an enabled, shown binding)."""
    active = screen.active_bindings.get("escape")
    return active is not None and active.enabled and active.binding.show


async def test_escape_on_the_jobs_list_is_offered_only_when_it_does_something() -> None:
    app = frozen_app(frozen.fleet())
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MonitorScreen) and not screen.in_job_view
        assert not _offers_escape(screen)  # the bare list: nothing to go back from
        await pilot.press("slash", "8", "1", "2")
        assert _offers_escape(screen)
        await pilot.press("escape")  # clears the filter, as the footer said
        assert screen.query_text == "" and not _offers_escape(screen)
        await pilot.press("enter")
        assert screen.in_job_view and _offers_escape(screen)
        await pilot.press("escape")
        assert not screen.in_job_view


async def test_jobs_table_moves_with_home_end_j_k_g_and_capital_g() -> None:
    app = frozen_app(frozen.fleet())
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await walk_rows(pilot, app.screen.query_one("#jobs-table", DataTable))


async def test_the_profile_table_moves_with_home_end_and_vim_keys() -> None:
    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await walk_rows(pilot, app.screen.query_one("#profile-table", DataTable))
