"""The Submit step's checks from this machine (model and container paths, which a login node may hold on a hung
Lustre/NFS mount; the programs and Python modules of a container-less job) run in a worker: while they have not
answered the step says `checking…`, Submit and Ctrl+N wait with the reason, and every key still works; an answer
about a job no longer shown is dropped."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any

import pytest
from textual.widgets import Button, ContentSwitcher, Static

from srt_tui.core.errors import Problem, SrtError
from srt_tui.tui.launch.steps.submit_step import SUBMIT_PENDING, SubmitStep
from tests.tui.scenarios import Scenario, reach, settle, type_into
from tests.tui.tui_helpers import paths_found, settle_but

#: why Submit waits meanwhile (the status line under it, and Ctrl+N's toast)
CHECKING = "checking paths and programs…"
DEMO = Scenario("demo", "local", "mocker-1p1d")  # the local launcher: its programs are checked here


@dataclass
class Asked:
    """One call of the held `host_checks`: the job and launcher asked about, and the gate that lets it answer."""

    prepared: Any
    launcher: str
    gate: threading.Event = field(default_factory=threading.Event)


def hold_host_checks(monkeypatch: pytest.MonkeyPatch) -> list[Asked]:
    """Every `host_checks` call waits for its own gate (a stat on a hung mount) before it answers as the real one; the
    calls are listed in order. The test sets every gate before the app closes."""
    from srt_tui.slurm import preflight

    real = preflight.host_checks
    asked: list[Asked] = []

    def held(prep: Any, launcher: str, face: Any = "cli") -> list[Any]:
        call = Asked(prep, launcher)
        asked.append(call)
        call.gate.wait(60)  # bounded only so that a UI thread held here (the defect) cannot hang the suite
        return real(prep, launcher, face)

    monkeypatch.setattr(preflight, "host_checks", held)
    return asked


def record_submits(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The launchers the step submitted with, in order: each submit is reached and refused (nothing runs)."""
    submitted: list[str] = []

    def submit_prepared(prep: Any, launcher: str = "auto", **kw: Any) -> Any:
        submitted.append(launcher)
        raise SrtError([Problem("submit", "held by the test")])

    monkeypatch.setattr("srt_tui.slurm.submit.submit_prepared", submit_prepared)
    return submitted


def checking(request: str, row: str) -> bool:
    """The request panel's ``row`` (`paths`, `programs`) says its check is running."""
    return re.search(rf"^ *{row} +checking…", request, re.MULTILINE) is not None


def shown(app: Any) -> tuple[str, str, bool, str]:
    """The visible step, the request panel's text, whether Submit is disabled, and the status line under it."""
    from io import StringIO

    from rich.console import Console

    step = app.screen.query_one(SubmitStep)
    console = Console(width=200, file=StringIO(), record=True, color_system=None)
    console.print(step.query_one("#request", Static).content)
    status = str(step.query_one("#submit-status", Static).render())
    current = app.screen.query_one("#steps", ContentSwitcher).current or ""
    return current, console.export_text(), step.query_one("#submit", Button).disabled, status


async def test_keys_work_and_submit_waits_while_this_machines_checks_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Operator standard: the UI never blocks. The checks ran on the UI thread when Submit opened (a hung mount froze
    the whole app); now they are pending while Esc, the launcher choice and Ctrl+N answer, and Submit goes once they
    have answered."""
    paths_found(monkeypatch)
    asked = hold_host_checks(monkeypatch)
    submitted = record_submits(monkeypatch)
    app = make_demo_app()
    async with app.run_test(size=(120, 36)) as pilot:
        try:
            await reach(pilot, DEMO, "preview", typed=False, but="host-checks")
            await pilot.press("ctrl+n")
            await settle_but(pilot, "host-checks")
            step = app.screen.query_one(SubmitStep)
            current, request, disabled, status = shown(app)
            assert current == "step-submit" and step.launcher == "local"
            assert checking(request, "paths") and checking(request, "programs"), request
            assert disabled and status == CHECKING
            assert [(a.prepared, a.launcher) for a in asked] == [(step.prepared, "local")]

            await pilot.press("ctrl+n")  # nothing is sent unchecked: it is sent when they answer (or another launcher
            await settle_but(pilot, "host-checks")  # or Esc cancels it)
            assert submitted == [] and not step.submitting
            assert shown(app)[2:] == (True, f"{CHECKING} Submits when they answer ({SUBMIT_PENDING}).")

            await pilot.press("up")  # another launcher: its own checks start, and it waits for them too
            await settle_but(pilot, "host-checks")
            assert step.launcher == "slurm" and [a.launcher for a in asked] == ["local", "slurm"]
            assert shown(app)[2:] == (True, CHECKING)  # the submit asked for the other launcher is forgotten
            await pilot.press("down")  # back: still waiting on the first ask, not asked again
            await settle_but(pilot, "host-checks")
            assert step.launcher == "local" and [a.launcher for a in asked] == ["local", "slurm"]

            await pilot.press("escape")  # Esc goes back at once
            await settle_but(pilot, "host-checks")
            assert app.screen.query_one("#steps", ContentSwitcher).current == "step-preview"
            await pilot.press("ctrl+n")  # the same job: its checks are still on their way
            await settle_but(pilot, "host-checks")
            assert shown(app)[0] == "step-submit" and shown(app)[2:] == (True, CHECKING)
            assert len(asked) == 2

            for call in asked:
                call.gate.set()
            await settle(pilot)
            current, request, disabled, status = shown(app)
            assert "checking…" not in request and not disabled and status == "", (request, status)
            await pilot.press("ctrl+n")
            await settle(pilot)
            assert submitted == ["local"] and "held by the test" in shown(app)[3]
        finally:
            for call in asked:
                call.gate.set()


async def test_an_answer_about_a_job_no_longer_shown_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    """Back to Topology, another job, Submit again: the first job's answer comes late and must not stand for the job
    shown (Submit keeps waiting for the shown job's own checks)."""
    paths_found(monkeypatch)
    asked = hold_host_checks(monkeypatch)
    app = make_demo_app()
    async with app.run_test(size=(120, 36)) as pilot:
        try:
            await reach(pilot, DEMO, "preview", typed=False, but="host-checks")
            await pilot.press("ctrl+n")
            await settle_but(pilot, "host-checks")
            step = app.screen.query_one(SubmitStep)
            first = step.prepared
            await pilot.press("escape", "escape")
            await settle_but(pilot, "host-checks")
            await type_into(pilot, "#decode-workers", "2")
            await type_into(pilot, "#decode-nodes", "2")
            await settle_but(pilot, "host-checks")
            for _ in range(2):
                await pilot.press("ctrl+n")
                await settle_but(pilot, "host-checks")
            assert step.prepared is not first and step.prepared is not None
            assert checking(shown(app)[1], "paths")
            assert [(a.prepared, a.launcher) for a in asked] == [(first, "local"), (step.prepared, "local")]

            asked[0].gate.set()  # the first job's answer arrives
            await settle_but(pilot, "host-checks")
            _, request, disabled, status = shown(app)
            assert checking(request, "paths") and disabled and status == CHECKING, (request, status)

            asked[1].gate.set()
            await settle(pilot)
            _, request, disabled, status = shown(app)
            assert "checking…" not in request and not disabled and status == "", (request, status)
        finally:
            for call in asked:
                call.gate.set()


def make_demo_app() -> Any:
    """The app on the embedded `local` profile, Slurm not answering (the local launcher is its own)."""
    from tests.tui.tui_helpers import make_app

    return make_app(DEMO.profile)


async def test_ctrl_n_while_the_checks_run_submits_once_they_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's `ctrl+n ctrl+n ctrl+n` typed at once reached Submit while its checks ran, and the last Ctrl+N was
    lost to a toast: it is remembered, and the job is submitted when the checks answer (once, and only if they allow
    it)."""
    paths_found(monkeypatch)
    asked = hold_host_checks(monkeypatch)
    submitted = record_submits(monkeypatch)
    app = make_demo_app()
    async with app.run_test(size=(120, 36)) as pilot:
        try:
            await reach(pilot, DEMO, "preview", typed=False, but="host-checks")
            await pilot.press("ctrl+n", "ctrl+n")
            await settle_but(pilot, "host-checks")
            assert submitted == [] and shown(app)[3].endswith(f"({SUBMIT_PENDING}).")
            for call in asked:
                call.gate.set()
            await settle(pilot)
            assert submitted == ["local"] and "held by the test" in shown(app)[3]
        finally:
            for call in asked:
                call.gate.set()
