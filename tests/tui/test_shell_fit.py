"""At 80×24 the shell keeps what matters in view: the footer shows `? Help` and `q Quit`, the header the Slurm mark."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.widgets._footer import FooterKey

from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import settle
from tests.tui.tui_helpers import make_app


def _cut_keys(app: App[None]) -> dict[str, int]:
    """Footer keys of the current screen that end under the palette's `^p` (or past the edge): hidden."""
    keys = list(app.screen.query(FooterKey))
    palette = [k.region.x for k in keys if k.has_class("-command-palette")]
    limit = min(palette, default=app.size.width)
    return {k.action: k.region.right for k in keys if not k.has_class("-command-palette") and k.region.right > limit}


@pytest.mark.parametrize("open_job", [None, "81234"], ids=["jobs-list", "job-view"])
async def test_monitor_footer_keeps_help_and_quit_at_80_columns(open_job: str | None) -> None:
    app = frozen_app([frozen.nvidia("healthy")], open_job=open_job)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.pause()
        keys = {k.action: k.region for k in app.screen.query(FooterKey)}
        assert {"help", "quit"} <= set(keys), sorted(keys)
        assert not _cut_keys(app)


async def test_every_wizard_steps_footer_keeps_help_and_quit_at_80_columns() -> None:
    """Profile → Recipe → Topology → Preview → Submit: a step that adds a key must not push `? Help` out."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for step, keys in enumerate(
            [(), ("enter",), ("slash", *"mocker-1p1d", "enter", "enter"), ("ctrl+n",), ("ctrl+n",)]
        ):
            if keys:
                await pilot.press(*keys)
                await settle(pilot)
            shown = {k.action for k in app.screen.query(FooterKey)}
            assert {"help", "quit"} <= shown, (step, sorted(shown))
            assert not _cut_keys(app), (step, _cut_keys(app))


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


async def test_jobs_list_footer_says_enter_opens_and_a_lists_all_jobs_at_80_columns() -> None:
    """Issue 21 polish: the list's footer named neither Enter (DataTable's hidden `enter` won) nor `A`."""
    app = frozen_app([frozen.nvidia("healthy")])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.pause()
        shown = {(k.key, k.description) for k in app.screen.query(FooterKey)}
        assert {("enter", "Open"), ("A", "All jobs")} <= shown, sorted(shown)
        assert not _cut_keys(app)
        await pilot.press("enter")  # what the footer says
        await pilot.pause()
        assert getattr(app.screen, "in_job_view", False)
