"""Submit past a module this machine lacks (issue 21, op12): a Dynamo vLLM recipe on a profile without `vllm` read
`✗ vllm … not importable … agg_0 would fail at once` on the Submit step, and Ctrl+N sent it to Slurm anyway, where
it failed in 11 s. A failing check of this machine holds Submit; the way past it is the path checks' (s34): Ctrl+N
once says what the next does, the second submits. With Slurm the nodes may have what this login node lacks; with
Local a module only (the job's own environment may bring another Python), never a program missing here."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.tui.scenarios import Scenario, reach, settle
from tests.tui.test_submit_anyway import record_submits, state
from tests.tui.tui_helpers import SLURM_UP, FakeCluster, answer_preflight_with, make_app, paths_found

#: what the first press says the second does, by launcher
NODES = "Ctrl+N again: submit anyway (compute nodes may have it)"
HERE = "Ctrl+N again: submit anyway (the job's own environment may bring it)"
SCENARIO = Scenario("dynamo-vllm", "local", "dynamo-vllm-here")


def dynamo_vllm_without_vllm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, model: str) -> None:
    """The job's `python3` has ai-dynamo's `dynamo` and no `vllm`; a Dynamo vLLM recipe ``name`` of the operator's
    own, its model at ``model``; a Slurm that answers and fits the job."""
    from srt_tui.core.plan import host_programs

    host_programs._ANSWERS.clear()
    site = tmp_path / "site"
    (site / "dynamo").mkdir(parents=True)
    (site / "dynamo" / "__init__.py").write_text("")
    python = tmp_path / "bin" / "python3"
    python.parent.mkdir()
    python.write_text(f'#!/bin/sh\nPYTHONPATH={site} exec {Path(sys.executable).resolve()} -S "$@"\n')
    python.chmod(0o755)
    monkeypatch.setenv("PATH", f"{python.parent}{os.pathsep}{os.environ['PATH']}")
    recipes = Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "recipes"
    recipes.mkdir(parents=True, exist_ok=True)
    (recipes / f"{name}.yaml").write_text(
        f"name: {name}\nmodel: {{path: {model}}}\nengine: vllm\nfrontend: {{type: dynamo}}\n"
        "dynamo: {install: false}\nroles:\n  agg: {nodes: 1, workers: 1, gpus: 1}\n"
    )
    answer_preflight_with(monkeypatch, FakeCluster(nodes=3, partition="gpu"))


@pytest.fixture(autouse=True)
def _python_without_vllm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No `vllm` for the job's `python3` (`dynamo_vllm_without_vllm`), the recipe's paths found."""
    dynamo_vllm_without_vllm(tmp_path, monkeypatch, "dynamo-vllm-here", "mock-model")
    paths_found(monkeypatch)  # the model's path is another test's


@pytest.mark.parametrize(("choose", "launcher", "says"), [("up", "slurm", NODES), ("", "local", HERE)])
async def test_a_missing_module_needs_ctrl_n_twice(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, choose: str, launcher: str, says: str
) -> None:
    submitted = record_submits(monkeypatch, tmp_path)
    app = make_app(SCENARIO.profile, probe=SLURM_UP)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, SCENARIO, "submit", typed=False)
        if choose:
            from srt_tui.tui.launch.steps.submit_step import SubmitStep

            app.screen.query_one(SubmitStep).focus_default()
            await pilot.press(choose, "enter")
            await settle(pilot)
        chosen, disabled, label, status = state(app)
        assert chosen == launcher and disabled and label == "Submit", status
        assert status.startswith("✗ `vllm` not importable by python3"), status
        assert status.endswith("Ctrl+N twice submits anyway."), status

        await pilot.press("ctrl+n")  # the first press: not submitted, it says what the next one does
        await settle(pilot)
        chosen, disabled, label, status = state(app)
        assert submitted == [] and not disabled and label == "Submit anyway", status
        assert f"{says}; Esc or another launcher: not submitted." in status, status

        await pilot.press("ctrl+n")
        await settle(pilot)
        assert submitted == [(launcher, True)]


async def test_local_never_goes_past_a_program_missing_here(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`nginx` not on PATH: Local would start it here and fail with exit 127; Slurm's nodes may have it."""
    submitted = record_submits(monkeypatch, tmp_path)
    (tmp_path / "only").mkdir()
    (tmp_path / "only" / "python3").symlink_to(Path(sys.executable).resolve())
    monkeypatch.setenv("PATH", str(tmp_path / "only"))  # python3 for the mocker workers, no nginx
    scenario = Scenario("nginx", "local", "mocker-agg3-nginx")
    app = make_app(scenario.profile, probe=SLURM_UP)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        chosen, disabled, label, status = state(app)
        assert chosen == "local" and disabled and "submits anyway" not in status, status
        await pilot.press("ctrl+n", "ctrl+n")
        await settle(pilot)
        assert submitted == [] and state(app)[2] == "Submit"
