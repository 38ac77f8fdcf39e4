"""A filter that matches nothing says so on every list (issue 21, op12 item 2): `A` at 80x24 then `/tmp/nonexist`
showed `No Slurm jobs of root (queued, running, or recently ended).` over a status line of `0 of 12 jobs (filter:
tmp/nonexist)`. Now the body says `No job matches 'tmp/nonexist' · Esc clears`, as the Monitor's own jobs list does
(and the profile and recipe steps, `nothing_matches`), and a list with no jobs at all still says it has none."""

from __future__ import annotations

from pathlib import Path

import pytest

from srt_tui.core.text.words import nothing_matches
from srt_tui.tui.monitor.alljobs.source import FrozenJobsSource
from tests.monitor import frozen
from tests.monitor.alljobs_frozen import FACTS, app_with, rows
from tests.monitor.test_alljobs_tui import open_all_jobs, table_ids
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import settle


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private state dir: the hidden-jobs file and the job index of this test only."""
    path = tmp_path / "state"
    monkeypatch.setenv("SRT_TUI_STATE_DIR", str(path))
    return path


async def test_the_all_jobs_list_says_no_job_matches_the_filter_not_that_there_are_none() -> None:
    app = app_with(FrozenJobsSource("root", rows(), FACTS))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_all_jobs(pilot)
        await pilot.press("slash", *"tmp/nonexist", "tab")
        await settle(pilot)
        assert table_ids(screen) == []
        body = str(screen.query_one("#alljobs-empty").render())
        assert body == "No job matches 'tmp/nonexist' · Esc clears", body
        assert str(screen.query_one("#alljobs-status").render()).startswith("0 of 4 jobs (filter: tmp/nonexist)")
        await pilot.press("escape")  # clears the filter: the jobs are back, the body gone
        await settle(pilot)
        assert len(table_ids(screen)) == 4 and screen.query_one("#alljobs-empty").has_class("hidden")


async def test_the_all_jobs_list_with_no_jobs_still_says_there_are_none_under_a_filter() -> None:
    app = app_with(FrozenJobsSource("root", [], FACTS))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_all_jobs(pilot)
        await pilot.press("slash", *"x", "tab")
        await settle(pilot)
        body = str(screen.query_one("#alljobs-empty").render())
        assert body == "No Slurm jobs of root (queued, running, or recently ended).", body


async def test_the_monitors_jobs_list_says_it_in_the_same_words() -> None:
    app = frozen_app([frozen.nvidia("healthy"), frozen.amd("healthy")])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("slash", *"tmp/nonexist", "tab")
        await settle(pilot)
        body = str(app.screen.query_one("#jobs-empty").render())
        assert body == nothing_matches("job", "tmp/nonexist") == "No job matches 'tmp/nonexist' · Esc clears", body
