"""Keys that must do what they say (issue 11, item 6): Esc on the jobs list is not offered when there
is nothing to go back from; Home/End and j/k/g/G move the row cursor of every table."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Input, Static

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


async def test_q_leaves_every_view_opened_on_top_and_quits_only_from_a_modes_screen(tmp_path: Path) -> None:
    """Operator pass (issue 21): `q` closed the log viewer and Help but quit the whole app from Results and the
    all-jobs list, and did nothing in the worker detail (nor did `?`). On a view opened on top `q` goes back,
    as Esc does; on a mode's screen it quits."""
    from srt_tui.tui.help_screen import HelpScreen
    from srt_tui.tui.monitor.alljobs.screen import AllJobsScreen
    from srt_tui.tui.monitor.results_view import ResultsScreen
    from srt_tui.tui.monitor.worker_detail import WorkerDetail
    from tests.tui.test_worker_detail import PROFILE, RECIPE, _job_dir

    snap = frozen.frozen_job("81240", RECIPE, PROFILE, job_dir=_job_dir(tmp_path))
    app = frozen_app([snap], open_job="81240")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        monitor = app.screen
        assert isinstance(monitor, MonitorScreen) and monitor.in_job_view
        app.screen.query_one("#job-workers", DataTable).focus()
        for key, view in (("enter", WorkerDetail), ("R", ResultsScreen), ("A", AllJobsScreen)):
            if key == "A":  # a key of the jobs list
                await pilot.press("escape")
                await pilot.pause()
            await pilot.press(key)
            await settle(pilot)
            assert isinstance(app.screen, view), (key, app.screen)
            if view is WorkerDetail:
                await pilot.press("question_mark")
                await pilot.pause()
                assert isinstance(app.screen, HelpScreen)
                assert any("q" in r.key.split() and r.description == "Back" for r in app.screen.rows)
                await pilot.press("q")  # closes Help, back on the detail
                await pilot.pause()
                assert isinstance(app.screen, WorkerDetail)
            await pilot.press("q")
            await settle(pilot)
            assert app.screen is monitor and app.is_running, key
            app.screen.query_one("#job-workers", DataTable).focus()
        # the job view too is a view on top of the list (second operator pass: `q` there quit the app)
        app.screen.query_one("#jobs-table", DataTable).focus()
        await pilot.press("enter")
        await settle(pilot)
        assert monitor.in_job_view
        await pilot.press("q")
        await settle(pilot)
        assert app.is_running and not monitor.in_job_view
        await pilot.press("q")  # from the list: quits
        await pilot.pause()
    assert not app.is_running


async def test_help_names_j_and_k_takes_the_whole_width_at_80_columns_and_says_what_marks_mean() -> None:
    """Operator pass (issue 21): j/k move every table and tree but Help listed them nowhere (they were folded
    into the ↑↓←→ row); at 80×24 its box was 64 columns wide, each action wrapping over 3 to 5 lines; and
    nothing said what the jobs list's `▲` meant."""
    from srt_tui.tui.help_screen import HelpScreen

    app = frozen_app(frozen.fleet())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.screen.query_one("#jobs-table", DataTable).focus()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        moves = [r for r in app.screen.rows if r.key == "↑↓←→"]
        assert moves and moves[0].description.startswith("Move or scroll (j/k,"), moves
        assert app.screen.query_one("#help-box").outer_size.width == 80
        # and what the list's marks mean (an operator asked what `▲` was)
        marks = [meaning for legend in app.screen.columns for header, meaning in legend.columns if header == "(mark)"]
        assert marks and "▲ degraded" in marks[0] and app.screen.query(".help-columns")


async def test_two_enters_in_one_burst_close_a_prompt_once() -> None:
    """Operator pass (stop 29): `o` on the Recipe step, then Enter Enter in one burst (a laggy SSH link, key
    repeat): the second Enter dismissed the prompt again, popped the last screen (ScreenStackError) and the app
    was gone. Any screen closes once: the keys after its close go, in order, to the screen beneath (here the
    second Enter opens the highlighted job and the third its highlighted worker; a second Esc finds nothing to go
    back from). The same for `a` (add a job) in the Monitor, and Esc Esc on a yes/no dialog."""
    from textual import events

    from srt_tui.tui.monitor.dialogs import ConfirmCancel
    from srt_tui.tui.monitor.worker_detail import WorkerDetail
    from srt_tui.tui.prompts import PathPrompt

    app = frozen_app(frozen.fleet())
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        monitor = app.screen
        assert isinstance(monitor, MonitorScreen)
        for screen, key, after in (
            (PathPrompt("Open a recipe file", "nope.yaml"), "enter", WorkerDetail),
            (ConfirmCancel("81234", "demo", "scancel 81234"), "escape", MonitorScreen),
        ):
            app.push_screen(screen)
            await pilot.pause()
            assert app.screen is screen
            for _ in range(3):  # posted together: none is handled before the others are queued
                app.post_message(events.Key(key, "\r" if key == "enter" else None))
            await settle(pilot)
            assert app.is_running and isinstance(app.screen, after), app.screen_stack
            assert app.screen_stack[0] is monitor and screen not in app.screen_stack  # nothing beneath was popped
            await pilot.press("escape", "escape")
            await settle(pilot)
            assert app.screen_stack == [monitor] and not monitor.in_job_view


async def test_add_job_keeps_its_dialog_open_on_a_bad_entry_and_help_says_what_it_adds(tmp_path: Path) -> None:
    """Operator pass (issue 21, 2026-12-07): `a`, `abc;rm`, Enter closed the dialog with a toast and the next keys
    acted on the job view. The dialog stays, the reason under the field; the fixed entry (a job directory) is
    taken. Help said `a Add job` and nothing of what it adds."""
    from srt_tui.core.jobdir.contract import JobMeta, write_job_meta
    from srt_tui.tui.help_screen import HelpScreen
    from srt_tui.tui.prompts import PathPrompt

    app = frozen_app(frozen.fleet(), open_job="81234")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        monitor = app.screen
        assert isinstance(monitor, MonitorScreen) and monitor.in_job_view
        await pilot.press("a", *"abc;rm", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        prompt = app.screen
        assert isinstance(prompt, PathPrompt), prompt
        error = prompt.query_one("#prompt-error", Static)
        assert error.display and "'abc;rm' is neither a job id" in str(error.content), error.content
        job = tmp_path / "local-5"
        job.mkdir()
        write_job_meta(job, JobMeta("local-5", name="mocker-agg", launcher="local"))
        field = prompt.query_one("#prompt-input", Input)
        field.value = str(job)
        await pilot.pause()
        assert not error.display  # the reason was the old entry's
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is monitor and monitor.tracked.get("local-5") == job.resolve()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        add = [r.description for r in app.screen.rows if r.key == "a"]
        assert add and "job directory" in add[0] and "job id" in add[0], add
