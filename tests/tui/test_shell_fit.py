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
    """The list keeps `? Help` and `q Quit`; the job view `? Help` and `esc Back` (`q` goes back there too)."""
    app = frozen_app([frozen.nvidia("healthy")], open_job=open_job)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.pause()
        keys = {k.action: k.region for k in app.screen.query(FooterKey)}
        assert {"help", "back" if open_job else "quit"} <= set(keys), sorted(keys)
        assert not _cut_keys(app)


async def test_every_wizard_steps_footer_keeps_help_and_quit_at_80_columns() -> None:
    """Profile → Recipe → Topology → Preview → Submit: a step that adds a key must not push `? Help` out."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for step, keys in enumerate(
            [(), ("enter",), ("slash", *"mocker-1p1d", "enter"), ("ctrl+n",), ("ctrl+n",)]  # the filter's Enter chooses
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


async def test_monitor_footer_shows_filter_and_clone_at_80_columns_by_priority() -> None:
    """Operator pass: at 80 columns the footer named neither `/` (filter) nor `C` (clone). It shows what fits, in
    `FOOTER_GIVES_WAY`'s order: the list keeps `/` (Clone, Results and Events give way), a running job's view keeps
    `e`, `l` and `c` (Clone gives way there: it is for after the job), an ended job's shows `C`; wider, the list
    shows them all again. A key left out still works, and `?` Help lists it."""
    from srt_tui.tui.help_screen import HelpScreen

    app = frozen_app([frozen.nvidia("healthy")])
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        shown = {k.key for k in app.screen.query(FooterKey) if not k.has_class("-command-palette")}
        assert {"slash", "R", "C", "A", "question_mark", "q"} <= shown, sorted(shown)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        shown = {k.key for k in app.screen.query(FooterKey) if not k.has_class("-command-palette")}
        assert {"enter", "slash", "l", "c", "A", "question_mark", "q"} <= shown and not {"R", "C"} & shown, shown
        assert not _cut_keys(app)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        listed = {row.key: row.description for row in app.screen.rows}
        assert listed["R"] == "Results" and listed["C"].startswith("Clone the job into Launch"), listed
        await pilot.press("escape", "enter")  # a running job's view: its own keys, Events among them
        await settle(pilot)
        shown = {k.key for k in app.screen.query(FooterKey) if not k.has_class("-command-palette")}
        assert {"escape", "l", "R", "e", "c", "b", "question_mark"} <= shown and "C" not in shown, sorted(shown)
        assert not _cut_keys(app)
    app = frozen_app([frozen.nvidia("failed")], open_job="81234")  # an ended job's view: Clone is its next step
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        shown = {k.key for k in app.screen.query(FooterKey) if not k.has_class("-command-palette")}
        assert {"escape", "l", "R", "e", "C", "question_mark"} <= shown, sorted(shown)
        assert not _cut_keys(app)


async def test_a_short_job_view_says_more_is_below_and_ctrl_d_u_scroll_it() -> None:
    """At 80x16 the workers are below the screen: the last line says so and the keys it names reach them; the
    job's summary stays at the top (operator pass: one ctrl+d scrolled the job's name away)."""
    from textual.widgets import Static

    from srt_tui.tui.monitor.job_view import MORE_BELOW, JobView

    app = frozen_app([frozen.nvidia("healthy")], open_job="81234")
    async with app.run_test(size=(80, 16)) as pilot:
        await pilot.pause()
        await pilot.pause()
        view = app.screen.query_one(JobView)
        more = view.query_one("#job-more", Static)
        assert view.max_scroll_y > 0 and more.display and str(more.render()) == MORE_BELOW
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert view.scroll_y > 0
        while view.scroll_y < view.max_scroll_y:
            await pilot.press("ctrl+d")
            await pilot.pause()
        assert not more.display  # at the end nothing is below
        # the job's name and state stay on screen whatever scrolled (`c` acts on the job named there)
        summary = view.query_one("#job-summary")
        assert summary.region.y == view.region.y and summary.region.height >= 3
        assert "".join(seg.text for seg in summary.render_line(0)).lstrip().startswith("81234 ")
        await pilot.press("ctrl+u")
        await pilot.pause()
        assert view.scroll_y < view.max_scroll_y and more.display
    app = frozen_app([frozen.nvidia("healthy")], open_job="81234")
    async with app.run_test(size=(132, 43)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert not app.screen.query_one("#job-more", Static).display  # a tall terminal shows it all


async def test_the_header_asks_for_a_profile_only_in_launch() -> None:
    """Monitor read `profile (choose one)` when srt-tui started without one: only Launch needs a profile."""
    from srt_tui.tui.header import AppHeader

    app = make_app(None)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert "profile (choose one)" in app.screen.query_one(AppHeader).render().plain
        await pilot.press("2")
        await pilot.pause()
        line = app.screen.query_one(AppHeader).render().plain
        assert "choose one" not in line and "profile" not in line and line.rstrip().endswith("Slurm ✗ unreachable")


async def test_the_header_names_the_cluster_that_answered_as_submit_does() -> None:
    """Operator pass 4: the header said `Slurm ✓ reachable` and not which cluster answered (a login node's default
    slurm.conf may be another cluster's); the Submit step says `cluster local answers`. At 80 columns the name
    stays in the short form."""
    from srt_tui.tui.header import AppHeader
    from srt_tui.tui.launch.steps.submit_step import SubmitStep
    from tests.tui.scenarios import Scenario, reach
    from tests.tui.tui_helpers import SLURM_UP

    scenario = Scenario("demo", "local", "mocker-agg-direct")
    app = make_app(scenario.profile, probe=SLURM_UP)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        line = app.screen.query_one(AppHeader).render().plain
        assert line.rstrip().endswith("profile local (shipped)  Slurm ✓ cluster local"), line
        note = str(app.screen.query_one(SubmitStep).query_one("#launcher-note").render())
        assert note.startswith("✓ Slurm is reachable: cluster local answers"), note
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        line = app.screen.query_one(AppHeader).render().plain
        assert len(line) <= 80 and line.rstrip().endswith(" local  Slurm ✓ local"), line


async def test_the_cluster_name_gives_way_before_the_profile_name_is_cut() -> None:
    """At 80 columns, read-only, a long profile name: the cluster's name goes first, the ✓ stays. An answer that
    names no cluster (the Monitor's refresh) keeps the name the check gave; an answer that Slurm is down drops it."""
    from srt_tui.tui.header import AppHeader
    from srt_tui.tui.messages import SlurmStatus

    app = frozen_app([frozen.nvidia("healthy")], read_only=True)

    async def header() -> str:
        await pilot.pause()
        await pilot.pause()
        return app.screen.query_one(AppHeader).render().plain.rstrip()

    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.check_slurm = True  # after mount: no check of its own runs; the answers come as messages here
        app.post_message(SlurmStatus(True, "cluster eos answers (cli transport, /etc/slurm/slurm.conf)", "eos"))
        line = await header()
        assert "read-only" in line and line.endswith("Slurm ✓ cluster eos"), line
        app.post_message(SlurmStatus(True, "the Monitor's Slurm query answered"))
        assert (await header()).endswith("Slurm ✓ cluster eos")
        app.hub.update(profile_label="a-very-long-cluster-profile-name-for-prod (user)")
        line = await header()
        assert len(line) <= 80 and line.endswith("…  Slurm ✓") and "a-very-long" in line, line
        app.post_message(SlurmStatus(False, "the Monitor's Slurm query: slurmctld not reachable"))
        assert (await header()).endswith("Slurm ✗") and app.context.slurm_cluster == ""


async def test_a_refused_profile_leaves_the_header() -> None:
    """Operator pass (issue 21): `srt-tui -p lcoal` opened the Profile step with the error, the header still
    naming `lcoal`."""
    from srt_tui.tui.header import AppHeader

    app = make_app("lcoal")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        line = app.screen.query_one(AppHeader).render().plain
        assert "lcoal" not in line and "profile (choose one)" in line, line


def test_the_checks_title_counts_errors_and_warnings_each_with_its_plural() -> None:
    from srt_tui.core.errors import Problem
    from srt_tui.tui.launch.steps.topology_step import checks_title

    def problem(severity: str) -> Problem:
        return Problem(field="x", message="m", severity=severity)

    assert checks_title([]) == "Checks"
    assert checks_title([problem("warning")] * 3) == "Checks · 3 warnings"
    assert checks_title([problem("error"), problem("warning")]) == "Checks · 1 error, 1 warning"
