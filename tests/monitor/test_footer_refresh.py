"""The Monitor's footer is recomposed only when what its keys can do changes (issue 22: every refresh and cursor
move recomposed Textual's Footer, a dozen widgets styled anew, a third of a key's repaint at 64 jobs)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from textual.widgets import Footer

from tests.monitor import frozen
from tests.monitor.tui_apps import FrozenFeed, fed_app
from tests.tui.scenarios import settle


def footer_keys(app: object) -> list[object]:
    """The footer's key widgets as they are now (a recompose replaces them)."""
    return list(app.screen.query_one(Footer).children)  # type: ignore[attr-defined]


async def test_footer_kept_across_refreshes_and_renewed_when_a_job_ends() -> None:
    running = frozen.nvidia()
    feed = FrozenFeed([running])
    app = fed_app(feed, {running.job_id: Path(running.job_dir)}, interval=0.05)
    async with app.run_test(size=(120, 36)) as pilot:
        while feed.calls < 2:
            await pilot.pause(0.05)
        await settle(pilot)
        before = footer_keys(app)
        assert any("Cancel" in str(key.render()) for key in before)  # type: ignore[attr-defined]
        calls = feed.calls
        while feed.calls < calls + 4:  # four refreshes with nothing changed
            await pilot.pause(0.05)
        await settle(pilot)
        assert footer_keys(app) == before

        feed.snapshots = [dataclasses.replace(running, stage="completed", slurm_state="COMPLETED")]
        calls = feed.calls
        while feed.calls < calls + 2:
            await pilot.pause(0.05)
        await settle(pilot)
        after = footer_keys(app)
        assert after != before
        assert not any("Cancel" in str(key.render()) for key in after)  # type: ignore[attr-defined]
