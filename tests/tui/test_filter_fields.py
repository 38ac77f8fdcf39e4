"""Every list's `/` filter is one widget with one look (new-operator pass, s36): the jobs list's and the wizard's
fields were indented by a cell and all jobs' was flush with the screen's edge, each screen styling its own Input."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input

from srt_tui.tui.launch.screen import LaunchScreen
from srt_tui.tui.monitor.alljobs.source import FrozenJobsSource
from srt_tui.widgets.filter_field import FilterField
from tests.monitor import frozen
from tests.monitor.alljobs_frozen import FACTS, app_with, rows
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import settle
from tests.tui.tui_helpers import make_app


def _look(field: Input) -> tuple[object, ...]:
    """What sets a field's look apart: its type, margins, border and height as laid out."""
    styles = field.styles
    return (type(field), tuple(styles.margin), styles.border_top, field.region.x, field.region.height)


async def _filter_of(pilot: Any) -> Input:
    await pilot.press("slash")
    await settle(pilot)
    focused = pilot.app.focused
    assert isinstance(focused, Input), focused
    return focused


async def test_every_filter_field_looks_alike() -> None:
    looks = {}
    async with frozen_app([frozen.nvidia("healthy", "81234")]).run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        looks["jobs"] = _look(await _filter_of(pilot))
    async with app_with(FrozenJobsSource("ann", rows(), FACTS)).run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("A")
        await settle(pilot)
        looks["all jobs"] = _look(await _filter_of(pilot))
    async with make_app().run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(pilot.app.screen, LaunchScreen)
        looks["profiles"] = _look(await _filter_of(pilot))
    assert all(look[0] is FilterField for look in looks.values()), looks
    assert len(set(looks.values())) == 1, looks
