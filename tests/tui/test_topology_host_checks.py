"""The Topology step's Checks list what Submit and `apply` refuse from this machine (s36): a Python module the job
starts not importable, its model path missing. They showed only the plan's problems, so the operator met them only at
Submit. The checks run in a worker when the plan is shown (never on the UI thread), worst first with the plan's, and
Submit shows their answer without running them again for the same job."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from srt_tui.tui.launch.steps.submit_step import SubmitStep
from srt_tui.widgets.problem_list import ProblemList
from tests.tui.scenarios import reach, settle
from tests.tui.test_worst_check_first import SCENARIO, _vllm_missing_and_a_path_missing  # noqa: F401 (fixture)
from tests.tui.tui_helpers import make_app


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, str, bool]]:
    """Every `host_checks` call: the job, the launcher, and whether it ran on the UI (main) thread."""
    from srt_tui.slurm import preflight

    real = preflight.host_checks
    seen: list[tuple[Any, str, bool]] = []

    def counted(prep: Any, launcher: str, face: Any = "cli") -> list[Any]:
        seen.append((prep, launcher, threading.current_thread() is threading.main_thread()))
        return real(prep, launcher, face)

    monkeypatch.setattr(preflight, "host_checks", counted)
    return seen


@pytest.mark.usefixtures("_vllm_missing_and_a_path_missing")
async def test_topology_lists_this_machines_checks_worst_first_and_submit_reuses_them(
    calls: list[tuple[Any, str, bool]],
) -> None:
    app = make_app(SCENARIO.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, SCENARIO, "topology", typed=False)
        await settle(pilot)
        screen = app.screen
        text = screen.query_one(ProblemList).text
        [(prep, launcher, on_ui)] = calls
        assert launcher == "local" and not on_ui, calls  # the profile's launcher, asked in a worker
        # local runs the job here: the missing path cannot be submitted past, the module may (worst first)
        marks = [line.split(":")[0] for line in text.splitlines() if line.startswith("✗ ")]
        assert marks == ["✗ model.path", "✗ programs"], text
        assert "`vllm`, which `dynamo.vllm` imports, is not importable" in text, text
        assert "no-model does not exist" in text, text
        assert screen.query_one("#problems-box").border_title == "Checks · 2 errors, 1 warning", text

        await pilot.press("ctrl+n", "ctrl+n")  # Preview, Submit
        await settle(pilot)
        step = screen.query_one(SubmitStep)
        assert step.prepared is prep and step.launcher == "local"
        assert [c.name for c in step.host_checks() if c.blocks] == ["model.path", "programs"]
        assert len(calls) == 1, calls  # Submit shows Topology's answer: not asked again
