"""The worst check first, wherever checks are listed (new-operator pass, s36): at 80x24 the Submit step showed only a
model path this machine does not see (one the operator may submit past) while `vllm` not importable, which fails the
job at once, was below the fold. One order (`worst_first`) for every face, and a line at the top of the request that
counts the ✗ and names the worst."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import Static

from srt_tui.core.errors import SrtError
from srt_tui.slurm.preflight import PreflightCheck, failing_line, refuse_failed, worst_first
from srt_tui.tui.launch.steps.submit_step import SubmitStep
from tests.tui.scenarios import Scenario, reach, settle
from tests.tui.test_submit_anyway import state
from tests.tui.test_submit_anyway_programs import dynamo_vllm_without_vllm
from tests.tui.tui_helpers import SLURM_UP, make_app

PATH = PreflightCheck("model.path", False, "[model-missing] /nowhere does not exist", waivable=True)
MODULE = PreflightCheck("programs", False, "`vllm` not importable by python3", waivable=True)
FATAL = PreflightCheck("programs", False, "`srun` not found", waivable=False)
UNKNOWN = PreflightCheck("gpus", None, "not checked")
OK = PreflightCheck("partition", True, "`gpu` exists")


def test_worst_first_fatal_then_waivable_programs_then_paths_then_unknown_then_ok() -> None:
    assert worst_first([OK, UNKNOWN, PATH, MODULE, FATAL]) == [FATAL, MODULE, PATH, UNKNOWN, OK]
    assert failing_line([OK, PATH, MODULE]) == "✗ 2 checks fail: programs, model.path"
    assert failing_line([PATH]) == "✗ 1 check fails: model.path"
    assert failing_line([OK, UNKNOWN]) == ""


def test_apply_names_the_worst_refusal_first() -> None:
    with pytest.raises(SrtError) as caught:
        refuse_failed([PATH, MODULE])
    summary, *named = caught.value.problems  # several: counted and named on top, as the request's first line
    assert (summary.field, summary.message) == ("preflight", "2 checks fail: programs, model.path")
    assert [p.message for p in named] == [MODULE.message, PATH.message]
    with pytest.raises(SrtError) as caught:
        refuse_failed([PATH, OK])
    assert [p.message for p in caught.value.problems] == [PATH.message]  # one: nothing to count


SCENARIO = Scenario("dynamo-vllm", "local", "dynamo-vllm-nowhere")


@pytest.fixture
def _vllm_missing_and_a_path_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The job's `python3` has ai-dynamo's `dynamo` and no `vllm`; the recipe's model is a path nobody has."""
    dynamo_vllm_without_vllm(tmp_path, monkeypatch, "dynamo-vllm-nowhere", f"{tmp_path}/no-model")


@pytest.mark.usefixtures("_vllm_missing_and_a_path_missing")
async def test_at_80x24_the_submit_step_shows_the_worst_check_first() -> None:
    app = make_app(SCENARIO.profile, probe=SLURM_UP)
    async with app.run_test(size=(80, 24)) as pilot:
        await reach(pilot, SCENARIO, "submit", typed=False)
        app.screen.query_one(SubmitStep).focus_default()
        await pilot.press("up", "enter")  # Slurm (sbatch): both checks are ones the operator may submit past
        await settle(pilot)
        chosen, disabled, _, status = state(app)
        assert chosen == "slurm" and disabled and status.startswith("✗ `vllm` not importable by python3"), status
        console = Console(width=200, file=io.StringIO(), record=True, color_system=None)
        console.print(app.screen.query_one("#request", Static).content)
        request = console.export_text().splitlines()  # its first line: the top of the panel, seen unscrolled
        assert request[0] == "✗ 2 checks fail: programs, model.path", request
        assert request[1].startswith("job name"), request
