"""The Monitor's all-jobs view (A) from injected rows and a fixed clock: its 80×24 snapshot, Enter on an
srtctl job opening the job view from its real output directory (and Esc coming back), Enter on a plain
sbatch job showing Slurm's facts, and `d` removing only ended jobs from the lists."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable

from srt_tui.monitor.model import JobSnapshot
from srt_tui.state import hidden
from srt_tui.tui.monitor.alljobs.dialogs import ConfirmHide, SlurmFactsScreen
from srt_tui.tui.monitor.alljobs.screen import AllJobsScreen
from srt_tui.tui.monitor.alljobs.source import FrozenJobsSource, LiveJobsSource
from srt_tui.tui.monitor.messages import SnapshotsUpdated
from srt_tui.tui.monitor.screen import MonitorScreen
from tests.monitor import frozen
from tests.monitor.alljobs_frozen import FACTS, app_with, rows
from tests.monitor.tui_apps import FrozenFeed, MonitorTestApp
from tests.tui.scenarios import settle


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private state dir: the hidden-jobs file and the job index of this test only."""
    path = tmp_path / "state"
    monkeypatch.setenv("SRT_TUI_STATE_DIR", str(path))
    return path


@pytest.mark.parametrize("size", [pytest.param((80, 24), id="80x24"), pytest.param((120, 36), id="120x36")])
def test_alljobs_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    async def open_all(pilot: Any) -> None:
        await pilot.press("A")
        await settle(pilot)

    source = FrozenJobsSource("ann", rows(), FACTS)
    assert snap_compare(app_with(source, snaps=[frozen.nvidia("healthy")]), terminal_size=size, run_before=open_all)


async def open_all_jobs(pilot: Any) -> AllJobsScreen:
    """`A` from the Monitor, once its listing has settled: the all-jobs screen."""
    await pilot.press("A")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, AllJobsScreen)
    return screen


def table_ids(screen: AllJobsScreen) -> list[str]:
    table = screen.query_one("#alljobs-table", DataTable)
    return [str(key.value) for key in table.rows]


async def test_a_toggles_and_hidden_jobs_show_with_h() -> None:
    app = app_with(FrozenJobsSource("ann", rows(), FACTS))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_all_jobs(pilot)
        assert table_ids(screen) == ["81301", "81302", "81303", "81290"]  # squeue's order, hidden left out
        await pilot.press("h")
        assert table_ids(screen)[-1] == "81200"
        await pilot.press("A")  # the same key goes back to srt-tui's jobs
        assert isinstance(app.screen, MonitorScreen)


async def _plain_jobs_facts(pilot: Any) -> SlurmFactsScreen:
    """`A`, then Enter on the plain sbatch job (the second row): its Slurm facts screen."""
    await pilot.press("A")
    await settle(pilot)
    await pilot.press("down", "enter")
    await settle(pilot)
    facts = pilot.app.screen
    assert isinstance(facts, SlurmFactsScreen)
    return facts


async def test_enter_on_a_plain_sbatch_job_shows_its_slurm_facts() -> None:
    app = app_with(FrozenJobsSource("ann", rows(), FACTS))
    async with app.run_test(size=(80, 24)) as pilot:
        facts = await _plain_jobs_facts(pilot)
        assert facts.fields["StdOut"] == "/home/ann/slurm-81302.out"
        table = facts.query_one(DataTable)
        assert [str(k.value) for k in table.rows][:2] == ["JobId", "JobName"]
        await pilot.press("escape")
        assert isinstance(app.screen, AllJobsScreen)
        # a job Slurm no longer knows: the list's own facts stay, with Slurm's reason
        await pilot.press("down", "enter")
        await settle(pilot)
        pending = app.screen
        assert isinstance(pending, SlurmFactsScreen) and pending.fields == {}
        note = str(pending.query_one("#facts-note").render())
        assert "Invalid job id" in note
        assert "Resources" in [str(c) for c in pending.query_one(DataTable).get_row("Reason")]


async def test_enter_on_an_srtctl_job_opens_the_job_view_from_its_directory(tmp_path: Path) -> None:
    """A real srtctl output directory (no job.json): named from `<id>.json`, its sweep log offered; Esc goes
    back to all jobs."""
    out = tmp_path / "outputs" / "81301"
    (out / "logs").mkdir(parents=True)
    (out / "81301.json").write_text(json.dumps({"version": "2.0", "job_id": "81301", "job_name": "dsr1-fp8-1p1d"}))
    (out / "logs" / "sweep_81301.log").write_text("srtctl Sweep Orchestrator\nStarting backend workers\n")
    app = app_with(FrozenJobsSource("ann", rows(out), FACTS), live=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("A")
        await settle(pilot, 5)
        await pilot.press("enter")
        monitor = app.screen
        assert isinstance(monitor, MonitorScreen) and monitor.in_job_view and monitor.selected == "81301"
        for _ in range(50):
            await pilot.pause(0.1)
            snap = monitor.snapshot_of("81301")
            if snap is not None:
                break
        assert snap is not None and snap.name == "dsr1-fp8-1p1d"
        assert [Path(ref.path).name for ref in snap.logs] == ["sweep_81301.log"]
        summary = str(monitor.query_one("#job-summary").render())
        assert "81301 dsr1-fp8-1p1d" in summary
        await pilot.press("escape")
        await settle(pilot, 5)
        assert isinstance(app.screen, AllJobsScreen)


async def test_d_removes_only_ended_jobs_and_u_restores(state_dir: Path) -> None:
    app = app_with(FrozenJobsSource("ann", rows(), FACTS))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_all_jobs(pilot)
        await pilot.press("d")  # 81301 is RUNNING: refused, no dialog
        assert app.screen is screen and hidden.hidden_jobs() == frozenset()
        await pilot.press("end", "d")  # 81290 COMPLETED: asks first
        assert isinstance(app.screen, ConfirmHide)
        await pilot.press("y")
        assert hidden.hidden_jobs() == frozenset({"81290"})
        assert "81290" not in table_ids(screen)
        assert json.loads((state_dir / "hidden-jobs.json").read_text()) == {"hidden": ["81290"]}
        await pilot.press("h", "end", "up", "u")  # 81290, before the one hidden from the start
        assert hidden.hidden_jobs() == frozenset()


async def test_d_in_the_monitor_list_hides_an_ended_job_not_a_running_one() -> None:
    ended = frozen.nvidia("healthy", "81290")
    ended = JobSnapshot(**{**ended.__dict__, "stage": "completed", "slurm_state": "COMPLETED"})
    running = frozen.amd("healthy", "81291")
    feed = FrozenFeed([ended, running])  # polled once at mount, then every hour: the test posts the race itself
    app = MonitorTestApp(
        lambda hub: MonitorScreen(
            hub, feed, discover=False, poll_interval=3600, jobs_source=FrozenJobsSource("ann", [])
        )
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        monitor = app.screen
        assert isinstance(monitor, MonitorScreen)

        def ids() -> list[str]:
            return [str(k.value) for k in monitor.query_one("#jobs-table", DataTable).rows]

        order = ids()
        await pilot.press(*(["down"] * order.index("81291")), "d")
        assert not isinstance(app.screen, ConfirmHide)  # running: refused with a message
        await pilot.press("home", *(["down"] * order.index("81290")), "d")
        assert isinstance(app.screen, ConfirmHide)
        await pilot.press("y")
        assert ids() == ["81291"] and hidden.hidden_jobs() == frozenset({"81290"})
        monitor.post_message(SnapshotsUpdated([ended, running], 0.1))  # a poll that was under way
        await pilot.pause()
        assert ids() == ["81291"] and "81290" not in monitor.tracked
        # shown again from elsewhere (`srt-tui jobs --unhide 81290`): the next discovery and poll list it
        hidden.unhide(["81290"])
        await monitor._discovered()
        monitor.post_message(SnapshotsUpdated([ended, running], 0.1))
        await pilot.pause()
        assert sorted(ids()) == ["81290", "81291"]
        # hidden from elsewhere while this Monitor shows it (`srt-tui jobs --hide 81290`): it leaves this list too
        hidden.hide(["81290"])
        await monitor._discovered()
        monitor.post_message(SnapshotsUpdated([ended, running], 0.1))
        await pilot.pause()
        assert ids() == ["81291"] and "81290" not in monitor.tracked
        # opened on purpose (from all jobs, or `a`): shown though hidden
        monitor.focus_job("81290", Path(ended.job_dir))
        monitor.post_message(SnapshotsUpdated([ended, running], 0.1))
        await pilot.pause()
        assert sorted(ids()) == ["81290", "81291"]
        # hidden elsewhere after it was opened or submitted here (`srt-tui jobs --hide 81290`, the new-operator pass:
        # listed until a restart): the later word wins, and the Monitor reads the file again as it changed
        hidden.unhide(["81290"])
        await monitor._discovered()
        hidden.hide(["81290"])
        await monitor._discovered()
        monitor.post_message(SnapshotsUpdated([ended, running], 0.1))
        await pilot.pause()
        assert ids() == ["81291"] and "81290" not in monitor.tracked


async def test_slurm_down_is_shown_not_waited_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real command-line transport with a SLURM_CONF that is gone: the view says why, at once."""
    monkeypatch.setenv("SLURM_CONF", str(tmp_path / "gone" / "slurm.conf"))
    app = app_with(LiveJobsSource("cli", user="ann"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_all_jobs(pilot)
        assert screen.listing is not None
        assert "names no file" in screen.listing.error
        shown = str(screen.query_one("#alljobs-empty").render())
        assert shown.startswith("Slurm did not answer") and "point SLURM_CONF at" in shown
        assert "Slurm ✗" in str(screen.query_one("#alljobs-status").render())


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_the_listing_time_is_named(size: tuple[int, int]) -> None:
    """Operator pass (issue 21): the all-jobs status line ended in a bare `0.12 s`. It says what the figure
    is, and gives way whole when the line is full."""
    from dataclasses import replace

    from srt_tui.monitor.alljobs.query import MyJobs

    class Timed(FrozenJobsSource):
        def list_jobs(self) -> MyJobs:
            return replace(super().list_jobs(), took_s=0.12)

    app = app_with(Timed("ann", rows(), FACTS))
    async with app.run_test(size=size) as pilot:
        screen = await open_all_jobs(pilot)
        line = str(screen.query_one("#alljobs-status").render())
        assert len(line) <= size[0] - 2, line
        assert "Enter: job view" in line and "1 hidden (h shows)" in line, line
        assert line.endswith(" · read in 0.12 s") == (size[0] >= 100), line  # whole, or left out at 80


async def test_one_job_is_counted_as_one_job() -> None:
    """Operator pass: a count of one read `1 jobs` (and `1 of 1 jobs` under a filter)."""
    app = app_with(FrozenJobsSource("ann", rows()[:1], FACTS))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_all_jobs(pilot)
        line = str(screen.query_one("#alljobs-status").render())
        assert line.startswith("1 job · "), line
        await pilot.press("slash", *"dsr1", "tab")  # the keys to the list, the filter kept (Enter opens the job)
        await settle(pilot)
        assert str(screen.query_one("#alljobs-status").render()).startswith("1 of 1 job (filter: dsr1)")


async def test_slash_filters_and_s_sorts_the_list_esc_clears_then_goes_back() -> None:
    """`/` as in the Monitor's jobs list (every word must appear, `!word` must not), `s` through the orders with
    the arrow in the sorted column's header; Esc first clears the filter, then goes back."""
    app = app_with(FrozenJobsSource("ann", rows(), FACTS))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_all_jobs(pilot)
        await pilot.press("slash", *"running", "tab")  # the keys to the list, the filter kept (Enter opens the job)
        await settle(pilot)
        assert table_ids(screen) == ["81301", "81302"]
        assert "2 of 4 jobs (filter: running)" in str(screen.query_one("#alljobs-status").render())
        await pilot.press("slash", *"running", "space", "exclamation_mark", *"sleep", "tab")  # `/` selects it all
        await settle(pilot)
        assert table_ids(screen) == ["81301"]
        await pilot.press("escape")  # clears the filter, stays here
        await settle(pilot)
        assert isinstance(app.screen, AllJobsScreen) and table_ids(screen) == ["81301", "81302", "81303", "81290"]
        table = screen.query_one("#alljobs-table", DataTable)
        await pilot.press("s")  # by job id, the newest first
        assert table_ids(screen) == ["81303", "81302", "81301", "81290"]
        assert str(table.columns[next(iter(table.columns))].label) == "JOBID ↓"
        await pilot.press("s")  # by name
        assert table_ids(screen) == ["81303", "81301", "81290", "81302"]
        await pilot.press("s", "s")  # by state, then by how long it ran: the longest first
        assert table_ids(screen) == ["81301", "81290", "81302", "81303"]
        await pilot.press("s")  # back to squeue's order, no arrow
        assert table_ids(screen) == ["81301", "81302", "81303", "81290"]
        assert not any("↓" in str(c.label) or "↑" in str(c.label) for c in table.columns.values())
        await pilot.press("escape")
        assert isinstance(app.screen, MonitorScreen)


async def test_slurms_whole_error_is_shown_when_it_cannot_give_a_jobs_facts() -> None:
    """Operator pass (issue 21): the note cut Slurm's message at 120 characters, before its cause (`Munge encode
    failed: … munge.socket.2`). It is shown whole, as text (Slurm's `[…]` never read as markup)."""

    class Failing(FrozenJobsSource):
        def facts(self, job_id: str) -> dict[str, str]:
            from srt_tui.slurm.errors import SlurmError

            raise SlurmError(
                "slurmctld not reachable: check SLURM_CONF=/etc/slurm/slurm.conf / munge. `scontrol show job -o "
                f"{job_id}` said: scontrol: error: [munge] Munge encode failed: Failed to access "
                '"/run/munge/munge.socket.2": No such file or directory'
            )

    app = app_with(Failing("ann", rows(), FACTS))
    async with app.run_test(size=(80, 24)) as pilot:
        facts = await _plain_jobs_facts(pilot)
        note = facts.query_one("#facts-note")
        text = " ".join("".join(s.text for s in strip).strip() for strip in note.render_lines(note.region.reset_offset))
        assert "[munge] Munge encode failed" in text and "munge.socket.2" in text, text
