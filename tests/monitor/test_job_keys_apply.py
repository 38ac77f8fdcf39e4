"""Issue 21 polish: the job view's footer and the palette offer only what can apply to the job the keys act on
(an ended job: no `c Cancel job`, no `b Smoke`), and follow the job when it changes state."""

from __future__ import annotations

from dataclasses import replace

from srt_tui.tui.monitor.screen import MonitorScreen
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app


def shown(screen: MonitorScreen, key: str) -> bool:
    """Whether the footer offers ``key`` (`b` where no smoke test runs, `c` on an ended job, is bound too, hidden: it
    says why)."""
    active = screen.active_bindings.get(key)
    return active is not None and active.binding.show


def offered(screen: MonitorScreen) -> list[str]:
    """The palette's Monitor entries the screen offers now (as the palette's provider filters them)."""
    return [a.title for a in screen.palette_actions() if screen.check_action(a.action, ())]


async def test_an_ended_jobs_view_offers_neither_cancel_nor_smoke() -> None:
    running = frozen.nvidia("healthy", "81234")
    ended = replace(running, job_id="81235", stage="cancelled", slurm_state="CANCELLED", stage_detail="")
    app = frozen_app([running, ended], open_job="81235")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MonitorScreen) and screen.in_job_view
        keys = screen.active_bindings
        assert not shown(screen, "c") and not shown(screen, "b"), sorted(keys)
        assert not {"Cancel job", "Smoke test", "Copy SSH forward"} & set(offered(screen)), offered(screen)
        # the running job: both offered; when it ends, the footer follows without a key pressed
        screen.open_job("81234")
        await pilot.pause()
        assert screen.active_bindings["c"].enabled and screen.active_bindings["b"].enabled
        assert {"Cancel job", "Smoke test"} <= set(offered(screen))
        screen.snapshots = [replace(running, stage="completed", slurm_state="COMPLETED"), ended]
        await pilot.pause()
        assert not shown(screen, "c") and not shown(screen, "b")


async def test_smoke_is_disabled_until_the_job_serves_and_the_lists_cancel_follows_the_cursor() -> None:
    starting = replace(frozen.nvidia("healthy", "81234"), stage="starting")
    ended = replace(frozen.nvidia("healthy", "81235"), stage="failed", slurm_state="FAILED")
    app = frozen_app([starting, ended], open_job="81234")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MonitorScreen)
        assert not screen.active_bindings["b"].enabled  # shown dimmed: it will apply once the job serves
        # queued in Slurm: nothing will serve for a while, so the footer does not offer it at all (operator pass)
        screen.snapshots = [replace(starting, stage="pending", slurm_state="PENDING"), ended]
        await pilot.pause()
        assert not shown(screen, "b") and shown(screen, "c")
        screen.snapshots = [starting, ended]
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        rows = {}
        for key in ("home", "down"):  # each row in turn, whatever the list's order
            await pilot.press(key)
            await pilot.pause()
            rows[screen.current_job()] = shown(screen, "c")
        assert rows == {"81234": True, "81235": False}, rows
