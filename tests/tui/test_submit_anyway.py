"""Submit past a path only the compute nodes see (issue 21, s34): the Submit step refused a model or container path
this machine does not find, with no way past it where the CLI has `apply --no-preflight` (a model on node-local disks).
With Slurm (sbatch) chosen and only path checks failing, Ctrl+N once says `Ctrl+N again: submit anyway (compute nodes
may see it)` and the second Ctrl+N submits past those checks only; never silently (a Ctrl+N typed before the checks
answered is not a first press), never with Local (it runs the job here), and any other refusal still holds. Driven key
by key; the submission is recorded, not sent."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual.widgets import Button, Static

from srt_tui.core.plan import paths_preflight
from srt_tui.tui.launch.steps.submit_step import SubmitStep
from tests.tui.scenarios import SCENARIOS, reach, settle
from tests.tui.test_submit_checks_wait import hold_host_checks
from tests.tui.tui_helpers import SLURM_UP, FakeCluster, answer_preflight_with, make_app, settle_but

#: what the first press says the second does
ANYWAY = "Ctrl+N again: submit anyway (compute nodes may see it)"
NVIDIA = SCENARIOS["nvidia"]  # nvidia-h100: its model and container under /lustre, not on this machine


@pytest.fixture(autouse=True)
def _cluster_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Slurm's preflight against a cluster where the job fits; the real path check (/lustre/… is missing here)."""
    answer_preflight_with(monkeypatch, FakeCluster(nodes=3, partition="batch"))
    monkeypatch.setattr("srt_tui.slurm.preflight.check_paths", paths_preflight.check_paths)


def record_submits(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[tuple[str, bool]]:
    """(launcher, waive_checks) of each submission, in order: each is accepted as job 41 and nothing is sent."""
    submitted: list[tuple[str, bool]] = []

    def submit_prepared(prep: Any, launcher: str = "auto", waive_checks: bool = False, **kw: Any) -> Any:
        submitted.append((launcher, waive_checks))
        return SimpleNamespace(job_id="41", job_dir=tmp_path / "41", launcher=launcher)

    monkeypatch.setattr("srt_tui.slurm.submit.submit_prepared", submit_prepared)
    return submitted


def state(app: Any, step: SubmitStep | None = None) -> tuple[str, bool, str, str]:
    """The launcher chosen, whether Submit is disabled, its label and the status line under it (of ``step``, once
    the Monitor it opened on a submission is in front)."""
    step = step or app.screen.query_one(SubmitStep)
    button = step.query_one("#submit", Button)
    return step.launcher, button.disabled, str(button.label), str(step.query_one("#submit-status", Static).render())


async def test_ctrl_n_twice_submits_past_the_path_checks_with_slurm(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    submitted = record_submits(monkeypatch, tmp_path)
    app = make_app(NVIDIA.profile, probe=SLURM_UP)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, NVIDIA, "submit", typed=False)
        launcher, disabled, label, status = state(app)
        assert launcher == "slurm" and disabled and label == "Submit", status
        assert status.startswith("✗ model.path, model.container: not found from this machine"), status
        assert status.endswith("If only the compute nodes see it: Ctrl+N twice submits anyway."), status

        await pilot.press("ctrl+n")  # the first press: not submitted; it says what the next one does
        await settle(pilot)
        launcher, disabled, label, status = state(app)
        assert submitted == [] and not disabled and label == "Submit anyway", status
        assert f"{ANYWAY}; Esc or another launcher: not submitted." in status, status

        step = app.screen.query_one(SubmitStep)
        await pilot.press("ctrl+n")  # the second: submitted, past the paths only, and it says so
        await settle(pilot)
        assert submitted == [("slurm", True)]
        launcher, disabled, label, status = state(app, step)
        assert status.startswith("✓ job 41 submitted (slurm) · past this machine's path checks, as asked"), status
        assert label == "Submit"


async def test_another_launcher_or_esc_forgets_the_first_press_and_local_never_waives(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    submitted = record_submits(monkeypatch, tmp_path)
    app = make_app(NVIDIA.profile, probe=SLURM_UP)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, NVIDIA, "submit", typed=False)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert state(app)[2] == "Submit anyway"
        await pilot.press("escape", "ctrl+n")  # back to the preview and here again: asked afresh
        await settle(pilot)
        assert state(app)[1:3] == (True, "Submit") and submitted == []

        app.screen.query_one(SubmitStep).focus_default()
        await pilot.press("down", "enter")  # Local: it would run here, where the paths are missing
        await settle(pilot)
        launcher, disabled, label, status = state(app)
        assert launcher == "local" and disabled and "submits anyway" not in status, status
        await pilot.press("ctrl+n", "ctrl+n")
        await settle(pilot)
        assert submitted == [] and state(app)[2] == "Submit"

        await pilot.press("up", "enter")  # back to Slurm: the press made with Local does not count
        await settle(pilot)
        assert state(app)[1:3] == (True, "Submit")
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert submitted == [] and state(app)[2] == "Submit anyway"


async def test_a_ctrl_n_typed_before_the_checks_answered_is_not_the_first_press(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The README's `ctrl+n ctrl+n ctrl+n` typed at once reaches Submit while its checks run: the remembered press
    meets the failing paths and is refused, not taken as the operator's first press past them."""
    submitted = record_submits(monkeypatch, tmp_path)
    asked = hold_host_checks(monkeypatch)
    app = make_app(NVIDIA.profile, probe=SLURM_UP)
    async with app.run_test(size=(120, 36)) as pilot:
        try:
            await reach(pilot, NVIDIA, "preview", typed=False, but="host-checks")
            await pilot.press("ctrl+n", "ctrl+n")
            await settle_but(pilot, "host-checks")
            for call in asked:
                call.gate.set()
            await settle(pilot)
            launcher, disabled, label, status = state(app)
            assert submitted == [] and disabled and label == "Submit", status
            assert status.endswith("Ctrl+N twice submits anyway."), status
            await pilot.press("ctrl+n", "ctrl+n")  # now the operator's own: submitted anyway
            await settle(pilot)
            assert submitted == [("slurm", True)]
        finally:
            for call in asked:
                call.gate.set()
