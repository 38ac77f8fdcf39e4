"""Setup mode: a Pilot walk to a written profile, and snapshots of its screens (recorded probe results)."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from srt_tui.core.api import prepare
from srt_tui.core.spec.profile import parse_profile
from srt_tui.tui.setup.screen import SetupScreen
from tests.conftest import REPO
from tests.setup.recorded import setup_app
from tests.tui.scenarios import settle

SIZES = {"wide": (120, 36), "narrow": (80, 24)}


@pytest.fixture(autouse=True)
def _no_animation(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    monkeypatch.chdir(tmp_path)


async def test_pilot_walks_setup_to_a_written_profile(tmp_path: Path) -> None:
    app = setup_app()
    models = tmp_path / "models" / "mock-model"
    models.mkdir(parents=True)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        await pilot.click("#run-probes")
        await settle(pilot)
        assert screen.query_one("#setup-switcher").current == "setup-review"  # type: ignore[attr-defined]
        assert screen.proposal is not None and not screen.proposal.problems
        await pilot.click("#choice-name")
        screen.query_one("#choice-name").value = "lab-mi300x"  # type: ignore[attr-defined]
        screen.query_one("#choice-account").value = "llm-perf"  # type: ignore[attr-defined]
        screen.query_one("#choice-time_limit").value = "02:00:00"  # type: ignore[attr-defined]
        screen.query_one("#choice-models").value = f"mock-model={models}"  # type: ignore[attr-defined]
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.written is not None
    target = Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "profiles" / "lab-mi300x.yaml"
    assert screen.written == target
    profile = parse_profile(target)
    assert profile.default_account == "llm-perf"
    assert profile.default_time_limit == "02:00:00"
    assert profile.visible_devices_env == "ROCR_VISIBLE_DEVICES"
    assert profile.default_sbatch_directives == {"gres": "gpu:8"}
    text = target.read_text()
    assert "# visible_devices_env: amd-smi answered on node2" in text
    # each key's comment says why it holds its value; the description's read `operator name`, which told nothing
    assert "# description: what the Profile step shows of this profile; say what sets this cluster apart\n" in text
    assert "# default_partition: sinfo: the cluster's default partition\n" in text
    assert "operator name" not in text
    assert prepare(REPO / "recipes/mocker/mocker-2p1d.yaml", "lab-mi300x").script


async def test_write_profile_is_offered_once_the_probes_proposed_one() -> None:
    """On the probe step `ctrl+s Write profile` was in the footer and did nothing visible (its "run the probes
    first" went to the hidden review step): it is offered, in the footer and the palette, once there is a
    proposal to write."""
    app = setup_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, SetupScreen)

        def offered() -> set[str]:
            return {b.binding.action for b in screen.active_bindings.values() if b.enabled}

        assert "write" not in offered()
        assert "Write profile" not in {a.title for a in screen.palette_actions()}
        await pilot.click("#run-probes")
        await settle(pilot)
        assert screen.proposal is not None
        assert "write" in offered()


async def test_bad_time_limit_blocks_writing() -> None:
    app = setup_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        await pilot.click("#run-probes")
        await settle(pilot)
        screen.query_one("#choice-time_limit").value = "two hours"  # type: ignore[attr-defined]
        await pilot.pause()
        assert screen.proposal is not None
        assert screen.proposal.problems == ["default_time_limit: `two hours` is not a Slurm time limit"]
        assert screen.query_one("#write-profile").disabled


async def test_the_time_limit_takes_slurm_time_characters_only() -> None:
    """Letters typed into the time limit are refused as they are typed, like the topology's counts (issue 21)."""
    app = setup_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        await pilot.click("#run-probes")
        await settle(pilot)
        field = screen.query_one("#choice-time_limit")
        field.value = ""  # type: ignore[attr-defined]
        field.focus()
        await pilot.press(*"1-2h:30m:00")
        assert field.value == "1-2:30:00"  # type: ignore[attr-defined]


async def _probed(pilot: Any) -> None:
    await pilot.click("#run-probes")
    await settle(pilot)


async def _probed_row(pilot: Any) -> None:
    await _probed(pilot)
    await pilot.press(*["down"] * 11)  # container_runtime's row (max_nodes is one more above it)
    await pilot.pause()


@pytest.mark.parametrize("size", list(SIZES))
def test_snapshot_probe_step(snap_compare: Any, size: str) -> None:
    assert snap_compare(setup_app(), terminal_size=SIZES[size])


@pytest.mark.parametrize("size", list(SIZES))
def test_snapshot_review_step(snap_compare: Any, size: str) -> None:
    assert snap_compare(setup_app(), run_before=_probed_row, terminal_size=SIZES[size])


@pytest.mark.parametrize("size", list(SIZES))
def test_snapshot_probe_results(snap_compare: Any, size: str) -> None:
    async def back(pilot: Any) -> None:
        await _probed(pilot)
        await pilot.press("escape")
        await pilot.pause()

    assert snap_compare(setup_app(), run_before=back, terminal_size=SIZES[size])


async def test_review_values_are_whole_at_80x24() -> None:
    """Every proposed value fits its column at 80×24 (it was cut to `my-clu`, `04:00:`)."""
    from textual.widgets import DataTable

    app = setup_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await _probed(pilot)
        table = app.screen.query_one("#proposal-table", DataTable)
        assert table.row_count > 5
        width = sum(c.get_render_width(table) for c in table.columns.values())
        assert width <= table.scrollable_content_region.width
        assert table.scrollable_content_region.height >= 5


async def test_the_write_line_is_whole_at_80x24(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Operator pass: at 80x24 the line beside `Write profile` was cut (`✓ wrote my-cluster.yaml to the user profile`,
    where to choose it gone), and with a bad field it said nothing while the evidence pane, six lines high, showed
    `Must fix before writing:` without what. The line wraps whole words, on the screen above the footer; while
    writing waits it says why."""
    from textual.geometry import Region
    from textual.widgets import Footer, Static

    def said(widget: Static) -> str:
        lines = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
        return " ".join(" ".join(line.text.split()) for line in lines).strip()

    monkeypatch.setenv("HOME", str(tmp_path))
    app = setup_app(profiles_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await _probed(pilot)
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        status = screen.query_one("#write-status", Static)
        screen.query_one("#choice-time_limit").value = "00:20:001"  # type: ignore[attr-defined]
        await settle(pilot)
        assert said(status) == "✗ fix before writing: default_time_limit: `00:20:001` is not a Slurm time limit"
        screen.query_one("#choice-time_limit").value = "02:00:00"  # type: ignore[attr-defined]
        await settle(pilot)
        assert said(status) == ""
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.written == tmp_path / "my-cluster.yaml"
        assert said(status) == "✓ wrote ~/my-cluster.yaml; choose it in Launch (1)"  # the full path, `~` for home
        assert not list(app._notifications)  # a toast said it again, over this line's end (operator pass 6)
        assert status.region.bottom <= screen.query_one(Footer).region.y and status.region.right <= 80


async def test_keys_pressed_while_the_probes_run_are_keys_not_partition_text() -> None:
    """Operator pass (issue 21): Run probes disabled itself and Textual gave the focus to the Partition field,
    so `?`, `2` and Tab typed into it while the probe job waited (`Partition ?2`). The focus leaves the button
    first; the keys act; the running step says which job it waits for."""
    import threading

    from srt_tui.setup.probes import ProbeOptions, ProbeRun
    from srt_tui.tui.help_screen import HelpScreen

    release = threading.Event()

    def waiting(options: ProbeOptions, progress: Any) -> ProbeRun:
        progress("node", "running", "job 6 PENDING (Resources) · scancel 6 stops it")
        release.wait(10)
        return ProbeRun()

    app = setup_app(runner=waiting)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.click("#run-probes")
        await pilot.pause(0.2)
        screen = app.screen
        assert isinstance(screen, SetupScreen) and screen.query_one("#run-probes").disabled
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert screen.query_one("#opt-partition").value == ""  # type: ignore[attr-defined]
        assert "job 6 PENDING (Resources)" in str(screen.query_one("#probe-steps").render())
        # while they run, neither Run probes again nor Write (an older proposal) is offered
        assert not screen.check_action("run_probes", ()) and not screen.check_action("write", ())
        release.set()
        await settle(pilot)
        assert screen.check_action("run_probes", ())


async def test_probing_again_marks_the_last_runs_findings_and_says_which_job_it_waits_for() -> None:
    """Operator pass (issue 21): Probe again showed the last run's findings while the new probe job was pending, as
    if they were its own. While a probe runs, its findings pane says what it waits for (the probe job's id and
    state) and shows the last run's findings under a line saying they are the previous run's; the new run's
    replace them."""
    from srt_tui.setup.findings import Finding
    from srt_tui.setup.probes import ProbeOptions, ProbeRun
    from tests.setup.recorded import recorded_runner

    release = threading.Event()
    runs: list[int] = []

    def twice(options: ProbeOptions, progress: Any) -> ProbeRun:
        runs.append(len(runs))
        if len(runs) == 1:
            return recorded_runner(options, progress)
        progress("slurm", "running", "")
        progress("slurm", "ok", "slurm-wlm 22.05.8, cluster local")
        progress("node", "running", "job 6 PENDING (Resources), waited 3 s")
        release.wait(10)
        return ProbeRun(reachable=True, findings=[Finding.warn("node", "node2 answered late", "probe again")])

    def findings(screen: SetupScreen) -> str:
        return str(screen.query_one("#probe-findings").render())

    app = setup_app(runner=twice)
    async with app.run_test(size=(120, 36)) as pilot:
        await _probed(pilot)
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        await pilot.click("#back")  # Probe again: the probe step, the last run's findings
        await pilot.pause()
        assert "account: no default account found" in findings(screen)
        await pilot.click("#run-probes")
        await pilot.pause(0.2)
        said = findings(screen)
        assert said.startswith("◌ Probing · Compute node (probe job): job 6 PENDING (Resources), waited 3 s"), said
        previous = said.index("Previous run's findings")
        assert said.index("account: no default account found") > previous, said
        release.set()
        await settle(pilot)
        said = findings(screen)
        assert "node: node2 answered late" in said and "Previous" not in said and "account" not in said, said
        assert "Probing" not in said, said


async def test_esc_stops_waiting_for_the_probe_job() -> None:
    """Operator pass (issue 21): a probe job pending on a busy partition left Setup with no key but Quit. While
    the probes run, Esc (in the footer as Stop probing) tells them to stop; they end with what they found."""
    from srt_tui.setup.findings import Finding
    from srt_tui.setup.probes import ProbeOptions, ProbeRun

    def waiting(options: ProbeOptions, progress: Any) -> ProbeRun:
        progress("node", "running", "job 6 PENDING (Resources)")
        assert options.stop is not None
        stopped = options.stop.wait(10)
        return ProbeRun(findings=[Finding.warn("node", f"stopped: {stopped}", "run the probes again")])

    app = setup_app(runner=waiting)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.click("#run-probes")
        await pilot.pause(0.2)
        screen = app.screen
        assert isinstance(screen, SetupScreen) and screen.check_action("stop_probes", ())
        active = screen.active_bindings["escape"]
        assert active.binding.description == "Stop probing" and active.enabled
        await pilot.press("escape")
        await settle(pilot)
        assert screen.probe_run is not None and screen.probe_run.findings[0].error == "stopped: True"
        # the step that shows next says the node was not probed (second operator pass: nothing said so)
        assert any("compute node was not probed" in str(n.message) for n in app._notifications)
        assert not screen.check_action("stop_probes", ()) and screen.check_action("run_probes", ())


async def test_quitting_while_the_probe_job_waits_stops_the_probes() -> None:
    """Second operator pass (stop 29): `q` in Setup while its probe job was pending blanked the screen for about
    90 s (the app waited out the node timeout) with the job still queued. Leaving stops the probes, which cancel
    their job, as Esc does."""
    from srt_tui.setup.findings import Finding
    from srt_tui.setup.probes import ProbeOptions, ProbeRun

    seen: list[bool] = []
    returned = threading.Event()

    def waiting(options: ProbeOptions, progress: Any) -> ProbeRun:
        progress("node", "running", "job 6 PENDING (Resources)")
        assert options.stop is not None
        seen.append(options.stop.wait(30))
        returned.set()
        return ProbeRun(findings=[Finding.warn("node", "stopped", "run the probes again")])

    app = setup_app(runner=waiting)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.click("#run-probes")
        await pilot.pause(0.2)
        assert isinstance(app.screen, SetupScreen) and app.screen.check_action("stop_probes", ())
        await pilot.press("q")
        await pilot.pause()
    returned.wait(10)  # the probes' thread, told to stop, returns (told nothing, it would wait out its 30 s)
    assert seen == [True]  # told to stop, not left to time out


async def test_a_profile_written_in_setup_is_listed_in_launch_with_the_cursor_on_it() -> None:
    """Operator pass 5: Launch's profile list, read before Setup wrote a profile, listed it only after `r`. It is
    read again once Setup writes, and the cursor is on the new profile (Enter chooses it)."""
    from textual.widgets import DataTable

    from srt_tui.tui.launch.steps.profile_step import ProfileStep

    app = setup_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("1")  # Launch first: its profile list is read now
        await settle(pilot)
        step = app.screen.query_one(ProfileStep)
        assert "lab-new" not in [row.name for row in step.rows] and step.rows
        await pilot.press("3")
        await settle(pilot)
        await _probed(pilot)
        app.screen.query_one("#choice-name").value = "lab-new"  # type: ignore[attr-defined]
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        table = step.query_one("#profile-table", DataTable)
        chosen = step._row(table.cursor_row)
        assert chosen is not None and chosen.name == "lab-new", [row.name for row in step.rows]
