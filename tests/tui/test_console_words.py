"""Words that must match what is true (issue 11, item 5): who runs a job, a stale Slurm reason, what
the Submit panel says will be asked, and the header's Slurm mark after a Setup probe."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from rich.style import Style

from srt_tui.core.errors import SrtError
from srt_tui.core.spec.recipe import load_recipe
from srt_tui.setup.findings import Finding
from srt_tui.setup.probes import ProbeOptions, ProbeRun, Progress
from srt_tui.setup.proposal import OperatorChoices, build_proposal
from srt_tui.tui.header import AppHeader
from srt_tui.tui.monitor.job_view import summary
from tests.monitor import frozen
from tests.setup.recorded import recorded_runner, setup_app
from tests.tui.scenarios import SCENARIOS, reach, settle
from tests.tui.tui_helpers import make_app


def _line(snap_state: str, reason: str, launcher: str = "slurm") -> str:
    snap = replace(frozen.nvidia("healthy"), slurm_state=snap_state, slurm_reason=reason, launcher=launcher)
    return summary(snap, frozen.fixed_clock(), lambda _name: Style()).plain.splitlines()[1]


def test_a_local_job_is_not_labelled_slurm() -> None:
    assert _line("RUNNING", "", launcher="local").startswith("local RUNNING ·")  # as the jobs table says
    assert _line("RUNNING", "", launcher="slurm").startswith("Slurm RUNNING ·")


def test_a_cancelled_pending_job_shows_no_stale_wait_reason() -> None:
    assert _line("PENDING", "Resources").startswith("Slurm PENDING (Resources) ·")
    assert _line("CANCELLED", "Resources").startswith("Slurm CANCELLED ·")
    assert _line("FAILED", "NonZeroExitCode").startswith("Slurm FAILED (NonZeroExitCode) ·")


def test_a_pending_jobs_reason_is_said_once() -> None:
    """Operator pass (issue 21): `Slurm PENDING (Resources) · stage pending Resources`."""
    pending = next(s for s in frozen.fleet() if s.stage == "pending")
    line = summary(pending, frozen.fixed_clock(), lambda _name: Style()).plain.splitlines()[1]
    assert line.startswith("Slurm PENDING (Resources) · stage pending") and line.count("Resources") == 1, line


def test_the_summarys_request_rate_is_labelled_requests() -> None:
    """Operator pass: the summary's bare `24/s` sat above the Serving panel's `tok/s` figures and read as tokens."""
    snap = frozen.nvidia("healthy")
    line = summary(snap, frozen.fixed_clock(), lambda _name: Style()).plain.splitlines()[2]
    assert " · 5.5 req/s · " in line, line


def test_a_local_job_is_not_ended_by_a_time_limit() -> None:
    """Operator pass (issue 21): Submit with Local said `time limit none` and then `… or its time limit`."""
    from srt_tui.core.api import prepare
    from srt_tui.tui.launch.steps.submit_step import ends_when
    from tests.conftest import REPO

    serving = prepare(REPO / "recipes/mocker/mocker-1p2d.yaml", "local")
    assert serving.plan.benchmark is None
    assert ends_when(serving).endswith("(c in the Monitor) or its time limit")
    assert ends_when(serving, local=True).endswith("(c in the Monitor)")


async def test_the_submit_panel_names_who_is_asked() -> None:
    scenario = SCENARIOS["nvidia"]
    app = make_app(scenario.profile, probe=(True, "sinfo answered"))
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        box = app.screen.query_one("#request-box")
        assert box.border_title == "What Slurm will be asked"
        await pilot.press("down", "enter")  # Local
        assert box.border_title == "What will run here"
    app = make_app(scenario.profile)  # Slurm down: still Slurm for a cluster profile (issue 21 defect 1)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        assert app.screen.query_one("#request-box").border_title == "What Slurm will be asked"


def _unreachable(options: ProbeOptions, progress: Progress) -> ProbeRun:
    recorded_runner(options, progress)
    bad = Finding.bad("slurm", "sinfo: Unable to contact slurm controller", "check slurmctld")
    return ProbeRun(reachable=False, findings=[bad])


async def test_the_header_follows_a_setup_probe_that_finds_slurm_unreachable() -> None:
    app = setup_app(runner=_unreachable, slurm_probe=lambda: (True, "sinfo answered"))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.screen.query_one(AppHeader).slurm_state == "up"
        await pilot.click("#run-probes")
        await settle(pilot)
        header = app.screen.query_one(AppHeader)
        assert header.slurm_state == "down" and "Unable to contact" in header.slurm_reason


def test_no_command_line_flags_in_messages_the_tui_shows(tmp_path: Path) -> None:
    with pytest.raises(SrtError) as exc:
        load_recipe(tmp_path / "missing.yaml")
    assert " -f" not in str(exc.value)
    proposal = build_proposal(ProbeRun(reachable=True), OperatorChoices(name="x"))
    assert proposal.problems and not any("--" in p for p in proposal.problems)
