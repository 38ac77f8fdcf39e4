"""The app's word on Slurm follows the Monitor's refreshes (issue 21 operator pass): the header, the jobs status
line and the job view say the same thing about the controller."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.monitor.tui_apps import FrozenFeed


async def test_the_header_and_the_status_line_follow_what_the_monitors_refresh_hears_from_slurm() -> None:
    """Operator pass (issue 21): with slurmctld gone, the header said `Slurm ✓` for up to 30 s (its own check)
    while the job view said ✗, and the jobs status line kept `Slurm ✓` throughout (read from an ended job's
    frozen snapshot). Both follow the Monitor's latest word from Slurm about a live job."""
    from dataclasses import replace

    from textual.widgets import Static

    from srt_tui.monitor.model import SourceState
    from srt_tui.tui.app import SrtTuiApp
    from srt_tui.tui.monitor.screen import MonitorScreen
    from tests.monitor import frozen

    ended = replace(frozen.nvidia(job_id="81230"), stage="completed", sources=(SourceState("slurm", True),))
    answered = replace(frozen.nvidia(job_id="81234"), sources=(SourceState("slurm", True),))
    lost = SourceState("slurm", False, "slurm_load_jobs error: Unable to contact slurm controller")

    class App(SrtTuiApp):
        DEFAULT_MODE = "monitor"

    feed = FrozenFeed([ended, answered])
    jobs = {s.job_id: Path(s.job_dir) for s in (ended, answered)}

    def monitor(hub: Any) -> MonitorScreen:
        return MonitorScreen(hub, feed, jobs=jobs, discover=False, poll_interval=0.2)

    async def until(pilot: Any, state: str) -> None:
        for _ in range(50):
            await pilot.pause(0.1)
            if app.context.slurm_state == state:
                return

    app = App(clock=frozen.fixed_clock, slurm_probe=lambda: (True, "sinfo answered"), cursor_blink=False,
              screens={"monitor": monitor})  # fmt: skip
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, MonitorScreen)
        await until(pilot, "up")
        feed.snapshots = [ended, replace(answered, sources=(lost,))]  # slurmctld goes away
        await until(pilot, "down")  # at the next refresh, not at the header's own check 30 s later
        assert app.context.slurm_state == "down" and "Unable to contact" in app.context.slurm_reason, app.context
        status = str(screen.query_one("#jobs-status", Static).content)
        assert "Slurm ✗" in status and "Slurm ✓" not in status, status  # not the ended job's frozen word
        feed.snapshots = [ended, answered]  # and back
        await until(pilot, "up")
        assert app.context.slurm_reason == "the Monitor's Slurm query answered", app.context
