"""The launcher choice reads without colour (`●` chosen, `○` not, the cursor reversed) and the keys
select what the screen says: a monochrome snapshot and a Pilot walk of Down/Enter."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import RadioButton, Static

from srt_tui.tui.display import shorten_path
from srt_tui.tui.launch.steps.submit_step import SubmitStep
from tests.conftest import REPO
from tests.tui.scenarios import SCENARIOS, reach, settle
from tests.tui.tui_helpers import SLURM_UP, FakeCluster, answer_preflight_with, make_app, paths_found


@pytest.fixture(autouse=True)
def _preflight_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    """With Slurm up the step runs its preflight: against a cluster where the job fits, not this host's (a failed
    check shows under Submit)."""
    answer_preflight_with(monkeypatch, FakeCluster(nodes=3, partition="batch"))
    paths_found(monkeypatch)  # the test of that refusal puts the real check back


def _marks(app: Any) -> dict[str, str]:
    """What each launcher option shows in front of its label (no colour involved)."""
    return {
        b.id or "": str(b.render()).strip()[1]
        for b in app.screen.query(RadioButton)
        if b.id in ("launcher-slurm", "launcher-local")
    }


def test_launcher_choice_in_monochrome(snap_compare: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """NO_COLOR: Local chosen (●), Slurm not (○), the cursor on Local reversed."""
    monkeypatch.setenv("NO_COLOR", "1")
    scenario = SCENARIOS["nvidia"]

    async def run_before(pilot: Pilot[None]) -> None:
        await reach(pilot, scenario, "submit", typed=False)
        await pilot.press("down", "enter")
        await settle(pilot)  # Local's checks from this machine answered (no transient `checking…` in the picture)

    assert snap_compare(make_app(scenario.profile, probe=SLURM_UP), run_before=run_before, terminal_size=(80, 24))


async def test_down_enter_selects_what_the_marks_say() -> None:
    scenario = SCENARIOS["nvidia"]
    app = make_app(scenario.profile, probe=SLURM_UP)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        step = app.screen.query_one(SubmitStep)
        assert step.launcher == "slurm" and _marks(app) == {"launcher-slurm": "●", "launcher-local": "○"}
        await pilot.press("down", "enter")
        assert step.launcher == "local" and _marks(app) == {"launcher-slurm": "○", "launcher-local": "●"}
        await pilot.press("up", "enter")  # back to Slurm: the marks follow what is chosen
        assert step.launcher == "slurm" and _marks(app) == {"launcher-slurm": "●", "launcher-local": "○"}


async def test_the_arrows_choose_the_launcher_as_in_any_radio_group() -> None:
    """Operator pass (issue 21): ↑ highlighted Slurm (sbatch) while Local stayed chosen, and "What will run here"
    did not change: only Enter chose. The arrows choose, and what the step shows follows."""
    scenario = SCENARIOS["nvidia"]
    app = make_app(scenario.profile, probe=SLURM_UP)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        step = app.screen.query_one(SubmitStep)
        assert step.launcher == "slurm"
        await pilot.press("down")
        assert step.launcher == "local" and _marks(app) == {"launcher-slurm": "○", "launcher-local": "●"}
        await pilot.press("up")
        assert step.launcher == "slurm" and _marks(app) == {"launcher-slurm": "●", "launcher-local": "○"}
        # the ends stop the arrows (second operator pass: ↑ on Slurm wrapped to Local, and the job went there)
        await pilot.press("up")
        assert step.launcher == "slurm"
        await pilot.press("down", "down")
        assert step.launcher == "local"


def _value_room(app: Any) -> int:
    """The columns of the Submit step's request values (a longer path is cut in its middle to them)."""
    room: int = app.screen.query_one(SubmitStep)._value_room
    assert room > 0
    return room


def _submit_state(app: Any) -> tuple[str, bool, str]:
    """The chosen launcher, whether Submit is disabled, and what the status line under it says."""
    from textual.widgets import Button, Static

    step = app.screen.query_one(SubmitStep)
    status = str(step.query_one("#submit-status", Static).render())
    return step.launcher, step.query_one("#submit", Button).disabled, status


async def test_slurm_unreachable_never_preselects_local_for_a_cluster_profile() -> None:
    """Issue 21 defect 1: `nvidia-h100` with Slurm down pre-selected Local (TP8 on the login node)."""
    scenario = SCENARIOS["nvidia"]
    app = make_app(scenario.profile)  # Slurm down
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        launcher, disabled, status = _submit_state(app)
        assert launcher == "slurm" and _marks(app)["launcher-slurm"] == "●"
        assert disabled and "Submit cannot send this job to Slurm" in status
        await pilot.press("ctrl+n")  # the key path refuses as the button does
        await pilot.pause()
        assert not app.screen.query_one(SubmitStep).submitting
        await pilot.press("down", "enter")  # the operator's own choice: Local, and Submit may go
        await settle(pilot)  # once Local's checks from this machine answered
        launcher, disabled, status = _submit_state(app)
        assert launcher == "local" and not disabled and "cannot" not in status


async def test_slurm_dropping_while_on_submit_keeps_the_choice_and_says_submit_cannot() -> None:
    """Issue 21 defect 1: the choice flipped to Local silently when Slurm went away."""
    from srt_tui.tui.messages import SlurmStatus

    scenario = SCENARIOS["nvidia"]
    app = make_app(scenario.profile, probe=SLURM_UP)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        assert _submit_state(app) == ("slurm", False, "")
        app.post_message(SlurmStatus(False, "slurmctld not reachable"))
        await pilot.pause()
        await pilot.pause()
        launcher, disabled, status = _submit_state(app)
        assert launcher == "slurm" and disabled and "Submit cannot send this job to Slurm" in status
        note = str(app.screen.query_one("#launcher-note").render())
        assert "Slurm is not reachable" in note and "slurmctld not reachable" in note
        app.post_message(SlurmStatus(True, "slurmctld answered"))  # back: Submit goes again
        await pilot.pause()
        await pilot.pause()
        assert _submit_state(app) == ("slurm", False, "")


async def test_a_profile_fallback_launcher_is_honoured_and_said() -> None:
    """A profile naming `fallback_launcher: local` runs here when Slurm is down: pre-selected, with the reason."""
    from tests.tui.scenarios import Scenario

    profiles = Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "profiles"  # the test's own (tests/tui/conftest.py)
    base = (REPO / "profiles" / "local.yaml").read_text().replace("launcher: local\n", "fallback_launcher: local\n")
    (profiles / "fallback-here.yaml").write_text(base)
    scenario = Scenario("fallback", "fallback-here", "mocker-1p1d")
    app = make_app(scenario.profile)  # Slurm down
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        launcher, disabled, _ = _submit_state(app)
        assert launcher == "local" and not disabled
        assert "fallback_launcher" in str(app.screen.query_one("#launcher-note").render())


@pytest.mark.parametrize("probe", [SLURM_UP, (False, "sinfo: command not found")])
async def test_the_demo_profile_runs_here_unless_slurm_is_chosen(
    probe: tuple[bool, str, str] | tuple[bool, str],
) -> None:
    """Issue 21 defect 2: the `local` profile went to Slurm whenever a controller answered."""
    from tests.tui.scenarios import Scenario

    scenario = Scenario("demo", "local", "mocker-1p1d")
    app = make_app(scenario.profile, probe=probe)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        assert _submit_state(app)[:2] == ("local", False)
        assert str(app.screen.query_one("#request-box").border_title) == "What will run here"
        # what runs here is no Slurm request (operator pass: partition, account and --gpus-per-node were listed)
        request = app.screen.query_one("#request")
        said = " ".join("".join(s.text for s in strip) for strip in request.render_lines(request.region.reset_offset))
        assert "partition" not in said and "account" not in said and "--gpus-per-node" not in said, said
        assert "each a loopback address of this machine" in said


async def test_submit_names_a_missing_host_program_and_local_cannot_run_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21 defect 10: `container_runtime: none` and no nginx here — the wizard says so before anything runs."""
    from tests.tui.scenarios import Scenario

    (tmp_path / "python3").symlink_to(Path(sys.executable).resolve())
    monkeypatch.setenv("PATH", str(tmp_path))  # python3 for the mocker workers, no nginx
    scenario = Scenario("nginx", "local", "mocker-agg3-nginx")
    app = make_app(scenario.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        launcher, disabled, status = _submit_state(app)
        assert launcher == "local" and disabled and "`nginx` not on this machine's PATH" in status
        assert "python3" not in status
        from rich.console import Console

        console = Console(width=200, file=io.StringIO(), record=True, color_system=None)
        console.print(app.screen.query_one("#request", Static).content)
        assert "fix: apt-get install nginx" in console.export_text()


async def test_submit_names_a_module_the_hosts_python_cannot_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21: `python3` on PATH passed the program check though it could not import what the job starts with it
    (`python3 -m srt_tui.mock`, `-m sglang_router.launch_router`): Submit names the modules, the Python and the fix."""
    from tests.tui.scenarios import Scenario

    python = tmp_path / "python3"  # a Python without srt-tui's packages (no site-packages, no PYTHONPATH)
    python.write_text(f'#!/bin/sh\nunset PYTHONPATH\nexec {Path(sys.executable).resolve()} -S "$@"\n')
    python.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    scenario = Scenario("demo", "local", "mocker-1p1d")
    app = make_app(scenario.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        launcher, disabled, status = _submit_state(app)
        assert launcher == "local" and disabled, status
        assert "`srt_tui`, `sglang_router` not importable by python3: the local launcher cannot run this job" in status
        from rich.console import Console

        console = Console(width=300, file=io.StringIO(), record=True, color_system=None)
        console.print(app.screen.query_one("#request", Static).content)
        # the Python's path as the request's value column holds it: cut in its middle when longer (`/tmp/…/python3`)
        shown = shorten_path(str(python), _value_room(app))
        assert f"fix: `{shown} -m pip install srt-tui`" in console.export_text()


async def test_the_same_plan_again_asks_before_a_copy_is_submitted() -> None:
    """Issue 21 defect 8: back to Launch after a submit, Ctrl+N submitted a duplicate without asking."""
    import asyncio

    from textual.message import Message

    from srt_tui.slurm.local import LocalLauncher
    from srt_tui.tui.launch.messages import JobSubmitted
    from tests.tui.scenarios import Scenario

    messages: list[Message] = []
    scenario = Scenario("demo", "local", "mocker-agg-direct")
    app = make_app(scenario.profile)
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        await pilot.press("ctrl+n")
        for _ in range(200):
            sent = [m for m in messages if isinstance(m, JobSubmitted)]
            if sent:
                break
            await asyncio.sleep(0.05)
        try:
            await pilot.pause()
            await pilot.press("1")  # back to Launch: the Submit step shows the same plan
            for _ in range(200):  # the Monitor holds the keys until its first refresh (key_order.HoldKeys)
                if app.current_mode == "launch":
                    break
                await asyncio.sleep(0.05)
            await settle(pilot)
            await pilot.press("ctrl+n")
            for _ in range(200):  # this machine's checks may still run: the Ctrl+N acts when they answer
                await pilot.pause()
                launcher, _, status = _submit_state(app)
                if "submitted already" in status:
                    break
                await asyncio.sleep(0.05)
            assert {m.job_id for m in messages if isinstance(m, JobSubmitted)} == {sent[0].job_id}  # no copy yet
            assert f"submitted already as job {sent[0].job_id}" in status and "Submit again" in status
        finally:
            LocalLauncher().cancel(sent[0].job_id, sent[0].job_dir)


async def test_ctrl_n_says_submit_on_the_submit_step() -> None:
    """Issue 21 review: the last step's footer read `^n Next` (there is no next step: ctrl+n submits)."""
    from textual.widgets import ContentSwitcher, Footer
    from textual.widgets._footer import FooterKey

    from tests.tui.scenarios import Scenario

    scenario = Scenario("demo", "local", "mocker-1p1d")
    app = make_app(scenario.profile, probe=SLURM_UP)
    async with app.run_test(size=(80, 24)) as pilot:
        await reach(pilot, scenario, "preview", typed=False)
        assert app.screen.active_bindings["ctrl+n"].binding.description == "Next"
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert app.screen.query_one("#steps", ContentSwitcher).current == "step-submit"
        assert app.screen.active_bindings["ctrl+n"].binding.description == "Submit"
        await pilot.pause()
        shown = [str(k.render()) for k in app.screen.query_one(Footer).query(FooterKey)]
        assert any("Submit" in k for k in shown) and not any("Next" in k for k in shown), shown


async def test_the_launcher_note_holds_after_slurm_is_chosen() -> None:
    """Issue 21 review: with Slurm chosen for the demo profile the note still said `choose Slurm (sbatch) to
    use the cluster`; it says what each choice does, true before and after the pick."""
    from tests.tui.scenarios import Scenario

    scenario = Scenario("demo", "local", "mocker-1p1d")
    app = make_app(scenario.profile, probe=SLURM_UP)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        await pilot.press("up", "enter")
        await settle(pilot)
        assert _submit_state(app)[:2] == ("slurm", False)
        note = str(app.screen.query_one("#launcher-note", Static).render())
        assert "choose Slurm" not in note and "Slurm (sbatch) sends it to the cluster" in note, note


async def test_slurms_preflight_shows_with_the_slurm_launcher_only() -> None:
    """Operator pass (issue 21): with Local chosen, Submit still listed `preflight ✓ partition: gpu exists …`,
    Slurm's checks of a job Slurm would not run, reading as if it would. They follow the launcher."""
    from textual.geometry import Region

    scenario = SCENARIOS["nvidia"]
    app = make_app(scenario.profile, probe=SLURM_UP)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        step = app.screen.query_one(SubmitStep)

        async def request_text() -> str:
            await app.workers.wait_for_complete()
            await settle(pilot)
            request = app.screen.query_one("#request", Static)
            return "\n".join(
                s.text for s in request.render_lines(Region(0, 0, request.size.width, request.size.height))
            )

        assert step.launcher == "slurm"
        assert "preflight" in await request_text()
        await pilot.press("down", "enter")
        assert step.launcher == "local"
        assert "preflight" not in await request_text()
        await pilot.press("up")
        assert step.launcher == "slurm"
        assert "preflight" in await request_text()


async def test_a_clone_of_a_job_submitted_here_submits_without_asking_again() -> None:
    """Operator pass (issue 21): `C` on a job submitted from this wizard, then Submit, answered "Already submitted
    as job local-1: submit again for a copy": a clone is the copy asked for."""
    import asyncio

    from textual.message import Message

    from srt_tui.core.api import prepare_job
    from srt_tui.core.jobdir.clone import read_clone
    from srt_tui.slurm.local import LocalLauncher
    from srt_tui.tui.launch.messages import JobSubmitted
    from srt_tui.tui.messages import CloneJob
    from tests.tui.scenarios import Scenario

    messages: list[Message] = []
    scenario = Scenario("demo", "local", "mocker-agg-direct")
    app = make_app(scenario.profile)

    async def submitted(count: int) -> list[JobSubmitted]:
        for _ in range(200):
            sent = list({id(m): m for m in messages if isinstance(m, JobSubmitted)}.values())
            if len(sent) >= count:
                break
            await asyncio.sleep(0.05)
        return sent

    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        await pilot.press("ctrl+n")
        sent = await submitted(1)
        try:
            first = sent[0]
            cloned = read_clone(first.job_dir)
            app.post_message(CloneJob(cloned, prepare_job(cloned.recipe, cloned.profile, cloned.source), "local"))
            await settle(pilot)
            await pilot.press("ctrl+n")  # the clone's preview → Submit
            await settle(pilot)
            await pilot.press("ctrl+n")  # submit: at once, no "submit again for a copy"
            sent = await submitted(2)
            assert len({m.job_id for m in sent}) == 2, [n.message for n in app._notifications]
        finally:
            for job in sent:
                LocalLauncher().cancel(job.job_id, job.job_dir)


async def test_with_slurm_gone_the_preflight_reads_stale_and_each_message_shows_once() -> None:
    """Operator pass (issue 21, 2026-12-07): with Slurm dropped while on Submit, its preflight kept `✓ partition:
    batch exists (UP)` beside `Slurm ✗ unreachable`, and the step said "not reachable" and "cannot send" twice.
    Slurm's earlier answers are `?` (unknown now), each message is said once, and back up the checks run again."""
    from textual.geometry import Region

    from srt_tui.tui.messages import SlurmStatus

    scenario = SCENARIOS["nvidia"]
    app = make_app(scenario.profile, probe=SLURM_UP)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        step = app.screen.query_one(SubmitStep)

        async def shown() -> tuple[str, str]:
            await app.workers.wait_for_complete()
            await settle(pilot)
            request = step.query_one("#request", Static)
            lines = request.render_lines(Region(0, 0, request.size.width, request.size.height))
            panel = " ".join(
                str(step.query_one(f"#{name}", Static).render()) for name in ("launcher-note", "submit-status")
            )
            return "\n".join(s.text for s in lines), panel

        request, _ = await shown()
        assert "✓ partition: `batch` exists" in request, request
        app.post_message(SlurmStatus(False, "slurmctld not reachable"))
        request, panel = await shown()
        assert "✓" not in request and "? partition: `batch` exists" in request, request
        said = " ".join((request + " " + panel).split())
        assert said.count("not reachable") == 2 and said.count("slurmctld not reachable") == 1, said  # its reason
        assert said.count("Slurm is not reachable") == 1 and said.count("cannot send") == 1, said
        app.post_message(SlurmStatus(True, "slurmctld answered"))
        request, _ = await shown()
        assert "✓ partition: `batch` exists" in request and "? " not in request, request


async def test_submit_refuses_a_model_path_apply_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    """New-operator pass (2026-12-07): a container-less profile and a recipe whose model path does not exist here.
    `srt-tui preflight` and `apply` refuse it (`model.path [model-not-available]`); Submit showed only ✓ and Ctrl+N
    sent a job that failed in 11 s. Submit runs `apply`'s own checks: ✗ model.path, and Ctrl+N submits nothing."""
    from textual.message import Message

    from srt_tui.core.plan import paths_preflight
    from srt_tui.tui.launch.messages import JobSubmitted, SubmitFailed
    from tests.tui.scenarios import Scenario

    monkeypatch.setattr("srt_tui.slurm.preflight.check_paths", paths_preflight.check_paths)  # the real check
    submitted: list[Any] = []
    monkeypatch.setattr("srt_tui.slurm.submit.submit_prepared", lambda *a, **k: submitted.append(a))
    messages: list[Message] = []
    scenario = Scenario("sglang", "local", "mi355x-1p2d-sglang-mori")  # alias `deepseek-r1`: not on this machine
    app = make_app(scenario.profile)
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        step = app.screen.query_one(SubmitStep)
        assert step.prepared is not None and step.prepared.plan.engine == "sglang"
        launcher, disabled, status = _submit_state(app)
        assert launcher == "local" and disabled and "model.path" in status, status
        from rich.console import Console

        console = Console(width=200, file=io.StringIO(), record=True, color_system=None)
        console.print(step.query_one("#request", Static).content)
        shown = console.export_text()
        assert "✗ model.path: [model-not-available]" in shown and "deepseek-r1 does not exist" in shown, shown
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert submitted == [] and not [m for m in messages if isinstance(m, (JobSubmitted, SubmitFailed))]


async def test_slurms_failure_is_one_dim_line_beside_local_and_its_first_line_beside_slurm() -> None:
    """Operator pass 9: the demo's Submit step, Local chosen, showed scontrol's configless-DNS failure whole (14
    lines) though Local needs no Slurm. Beside Local it is one dim line; with Slurm chosen, its first meaningful line,
    and where its whole answer is (`srt-tui doctor`), never the raw output on the step."""
    from textual.geometry import Region

    from tests.slurm.test_slurm_first_line import DNS
    from tests.tui.scenarios import Scenario

    scenario = Scenario("demo", "local", "mocker-1p1d")
    app = make_app(scenario.profile, probe=(False, DNS))
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)

        async def note() -> list[str]:
            await settle(pilot)
            shown = app.screen.query_one("#launcher-note", Static)
            lines = shown.render_lines(Region(0, 0, shown.size.width, shown.size.height))
            return [s.text.strip() for s in lines if s.text.strip()]

        assert _submit_state(app)[:2] == ("local", False)
        lines = await note()
        said = " ".join(lines)
        assert said.endswith("Slurm: not reachable from here (Could not establish a configuration source)"), lines
        assert "scontrol" not in said and "✗" not in said and len(lines) <= 4, lines
        await pilot.press("up")  # Slurm (sbatch): its failure leads, in one line
        assert _submit_state(app)[:2] == ("slurm", True)
        lines = await note()
        said = " ".join(lines)
        assert said.startswith("✗ Slurm is not reachable: Could not establish a configuration source."), lines
        assert "Slurm's whole answer: `srt-tui doctor -p local`" in said, lines
        assert "scontrol" not in said and len(lines) <= 6, lines


async def test_submit_names_the_engine_a_dynamo_worker_module_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Operator pass (op11): the Submit step of a Dynamo vLLM job passed its checks where `dynamo.vllm` is importable
    (ai-dynamo installed) and `vllm` is not, and the job failed in a second with `No module named 'vllm'`."""
    from tests.tui.scenarios import Scenario

    site = tmp_path / "site"  # the job's Python has ai-dynamo's `dynamo` and no engine
    (site / "dynamo").mkdir(parents=True)
    (site / "dynamo" / "__init__.py").write_text("")
    python = tmp_path / "python3"
    python.write_text(f'#!/bin/sh\nPYTHONPATH={site} exec {Path(sys.executable).resolve()} -S "$@"\n')
    python.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    recipes = Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "recipes"
    recipes.mkdir(parents=True, exist_ok=True)
    (recipes / "dynamo-vllm-here.yaml").write_text(
        "name: dynamo-vllm-here\nmodel: {path: mock-model}\nengine: vllm\nfrontend: {type: dynamo}\n"
        "dynamo: {install: false}\nroles:\n  agg: {nodes: 1, workers: 1, gpus: 1}\n"
    )
    scenario = Scenario("dynamo-vllm", "local", "dynamo-vllm-here")
    app = make_app(scenario.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        launcher, disabled, status = _submit_state(app)
        assert launcher == "local" and disabled, status
        assert "`vllm` not importable by python3: the local launcher cannot run this job" in status, status
        from rich.console import Console

        console = Console(width=300, file=io.StringIO(), record=True, color_system=None)
        console.print(app.screen.query_one("#request", Static).content)
        shown = shorten_path(str(python), _value_room(app))
        assert f"`vllm`, which `dynamo.vllm` imports, is not importable by `python3` ({shown})" in (
            console.export_text()
        )
