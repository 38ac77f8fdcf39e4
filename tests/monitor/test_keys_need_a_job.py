"""An empty jobs list's footer offered `l Logs` and `c Cancel`, which did nothing there (new-operator pass, s36): a
job's keys are offered only while a job is selected, and typed without one they say so and how to get one."""

from __future__ import annotations

import pytest

from srt_tui.tui.monitor.screen import NO_JOB, MonitorScreen
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import settle

#: the footer's keys that act on a job
JOB_KEYS = {"enter", "l", "c", "R", "e", "C", "b"}


def _offered(screen: MonitorScreen) -> set[str]:
    return {key for key, active in screen.active_bindings.items() if active.binding.show}


async def test_an_empty_list_offers_no_job_keys() -> None:
    app = frozen_app([])
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MonitorScreen) and screen.current_job() is None
        assert not _offered(screen) & JOB_KEYS, _offered(screen)


@pytest.mark.parametrize("key", ["l", "c", "R", "e", "C"])
async def test_a_job_key_with_no_job_says_so(key: str) -> None:
    app = frozen_app([])
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press(key)
        await settle(pilot)
        assert [str(n.message) for n in app._notifications] == [NO_JOB]
        assert isinstance(app.screen, MonitorScreen)


async def test_a_selected_job_offers_them() -> None:
    app = frozen_app([frozen.nvidia("healthy", "81234")])
    async with app.run_test(size=(160, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MonitorScreen)
        assert {"l", "c"} <= _offered(screen), _offered(screen)
