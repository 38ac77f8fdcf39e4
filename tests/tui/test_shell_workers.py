"""A worker that dies of an exception reaches the one app-level handler: one notification, once."""

from __future__ import annotations

from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import settle


async def test_a_failed_screen_worker_is_reported_once_by_the_app() -> None:
    app = frozen_app([frozen.nvidia("healthy")])
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)

        def boom() -> None:
            raise RuntimeError("disk on fire")

        app.screen.run_worker(boom, name="boom", thread=True, exit_on_error=False)
        await settle(pilot)
        failed = [n for n in app._notifications if n.title == "Background task failed"]
        assert [n.message for n in failed] == ["boom failed: disk on fire"]
        assert [n.severity for n in failed] == ["error"]
