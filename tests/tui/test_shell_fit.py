"""At 80×24 the shell keeps what matters in view: the footer shows `? Help` and `q Quit`, the header the Slurm mark."""

from __future__ import annotations

import pytest
from textual.widgets._footer import FooterKey

from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app


@pytest.mark.parametrize("open_job", [None, "81234"], ids=["jobs-list", "job-view"])
async def test_monitor_footer_keeps_help_and_quit_at_80_columns(open_job: str | None) -> None:
    app = frozen_app([frozen.nvidia("healthy")], open_job=open_job)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.pause()
        keys = {k.action: k.region for k in app.screen.query(FooterKey)}
        assert {"help", "quit"} <= set(keys), sorted(keys)
        cut = {action: region.right for action, region in keys.items() if region.right > 80}
        assert not cut, cut


async def test_header_cuts_a_long_profile_name_never_the_slurm_mark() -> None:
    from srt_tui.tui.header import AppHeader

    app = frozen_app([frozen.nvidia("healthy")], read_only=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.hub.update(profile_label="a-very-long-cluster-profile-name-for-prod (user)", slurm_state="down")
        await pilot.pause()
        header = app.screen.query_one(AppHeader)
        line = header.render().plain
        assert len(line) <= 80 and line.rstrip().endswith("Slurm ✗"), line
        assert "read-only" in line and "a-very-long" in line and "…" in line
