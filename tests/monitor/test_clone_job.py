"""Clone a job (issue 21): `C` in Monitor reads the job directory back and opens Launch on the preview with
its recipe, profile and topology; a job with secrets is cloned from its recipe file (its recipe.yaml masks
them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from srt_tui.core.api import prepare
from srt_tui.core.errors import SrtError
from srt_tui.core.jobdir.clone import read_clone
from srt_tui.core.jobdir.contract import JobMeta, write_job_meta
from srt_tui.core.jobdir.write import job_files
from srt_tui.tui.launch.screen import PREVIEW, LaunchScreen
from tests.conftest import REPO
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import settle

RECIPE = REPO / "recipes/mocker/mocker-2p1d.yaml"


def _job_dir(tmp_path: Path, job_id: str, topology: str, recipe: Path = RECIPE, profile: str = "local") -> Path:
    """A job directory as `apply` writes it: the rendered files and job.json."""
    prep = prepare(recipe, profile, topology)
    job_dir = tmp_path / job_id
    job_dir.mkdir()
    for name, text in job_files(prep.job, prep.plan, prep.script).items():
        (job_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (job_dir / name).write_text(text)
    meta = JobMeta(job_id, name=prep.plan.name, profile=profile, topology=prep.plan.topology,
                   recipe_path=str(recipe))  # fmt: skip
    write_job_meta(job_dir, meta)
    return job_dir


def test_read_clone_gives_the_recipe_the_job_ran_at_its_topology(tmp_path: Path) -> None:
    cloned = read_clone(_job_dir(tmp_path, "local-c1", "1P2D"))
    assert cloned.profile.name == "local" and cloned.origin.startswith("the recipe the job ran")
    assert str(cloned.recipe.roles["decode"].workers) == "2" and cloned.recipe.roles["prefill"].workers == 1


def test_a_job_with_secrets_is_cloned_from_its_recipe_file(tmp_path: Path) -> None:
    secret = tmp_path / "sec.yaml"
    secret.write_text(RECIPE.read_text() + 'environment: {HF_TOKEN: "hf_do_not_show"}\n')
    cloned = read_clone(_job_dir(tmp_path, "local-c2", "1P2D", secret))
    assert cloned.origin == f"{secret} (the job's recipe.yaml masks its secrets)"
    assert cloned.recipe.roles["decode"].workers == 2  # the job's topology, not the file's 2P1D
    assert "hf_do_not_show" in str(cloned.recipe.to_yaml_dict())


def test_a_directory_without_job_json_says_so(tmp_path: Path) -> None:
    with pytest.raises(SrtError, match=r"job.json is unreadable: missing"):
        read_clone(tmp_path)


def _job_app(tmp_path: Path, job_id: str, launcher: str = "slurm", recipe: Path = RECIPE) -> tuple[Any, Any, Path]:
    """The app on the job view of a 1P2D mocker job written as `apply` writes it: (app, its snapshot, its dir)."""
    from dataclasses import replace

    job_dir = _job_dir(tmp_path, job_id, "1P2D", recipe)
    snap = frozen.frozen_job(job_id, "mocker/mocker-2p1d.yaml", "local", topology="1P2D", job_dir=job_dir)
    return frozen_app([replace(snap, launcher=launcher)], open_job=job_id), snap, job_dir


async def _clone_to_preview(app: Any, pilot: Any) -> None:
    """`C` in the job view, then until Launch shows the clone's preview (the clone reads files in a thread)."""
    await pilot.press("C")
    await _until_preview(app, pilot)
    await settle(pilot)


async def _until_preview(app: Any, pilot: Any) -> None:
    """Until Launch shows a clone's preview."""
    for _ in range(50):
        await pilot.pause(0.1)
        if isinstance(app.screen, LaunchScreen) and app.screen.index == PREVIEW:
            break


async def test_c_in_the_job_view_opens_launch_on_the_clones_preview(tmp_path: Path) -> None:
    app, snap, job_dir = _job_app(tmp_path, "local-c3")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await _clone_to_preview(app, pilot)
        launch = app.screen
        assert isinstance(launch, LaunchScreen), [n.message for n in app._notifications]
        assert isinstance(launch, LaunchScreen) and launch.index == PREVIEW
        plan = launch.state.prepared.plan  # type: ignore[union-attr]
        assert (plan.topology, plan.profile, plan.name) == ("1P2D", "local", snap.name)
        assert launch.state.recipe_label == snap.name and app.context.profile_label.startswith("local")


@pytest.mark.parametrize("launcher", ["slurm", "local"])
async def test_a_clone_is_offered_the_launcher_its_job_ran_with(tmp_path: Path, launcher: str) -> None:
    """Operator pass (issue 21): a clone of a job that ran on Slurm with the `local` profile (whose own launcher is
    this machine) reached Submit with Local chosen. It keeps where its job ran until the operator picks."""

    from srt_tui.tui.launch.steps.submit_step import SubmitStep

    app, _, _ = _job_app(tmp_path, "c4", launcher)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await _clone_to_preview(app, pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        step = app.screen.query_one(SubmitStep)
        assert step.display and step.launcher == launcher


async def test_a_clone_keeps_its_launcher_through_topology_edits_not_through_another_recipe(tmp_path: Path) -> None:
    """A Slurm job cloned with the `local` profile (whose own launcher is this machine), one number changed on the
    Topology step: Submit offered Local, the clone's launcher kept only while the plan was exactly the clone's.
    It stays Slurm for the clone's recipe and profile; another recipe goes back to the profile's launcher."""
    from textual.widgets import Input

    from srt_tui.tui.launch.steps.submit_step import SubmitStep

    app, _, _ = _job_app(tmp_path, "c8", "slurm")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await _clone_to_preview(app, pilot)
        launch = app.screen
        assert isinstance(launch, LaunchScreen)
        cloned = launch.state.prepared
        await pilot.press("escape")  # the Topology step
        await settle(pilot)
        launch.query_one("#decode-workers", Input).focus()
        await pilot.press("ctrl+u", "1")  # 1P1D
        await settle(pilot)
        await pilot.press("ctrl+n", "ctrl+n")  # its preview, then Submit
        await settle(pilot)
        assert cloned is not None and cloned.plan.topology == "1P2D"
        assert launch.state.prepared is not None and launch.state.prepared.plan.topology == "1P1D"
        step = launch.query_one(SubmitStep)
        assert step.display and step.launcher == "slurm"
        await pilot.press("escape", "escape", "escape", "slash", *"mocker-1p1d", "enter")  # another recipe
        await settle(pilot)
        await pilot.press("ctrl+n", "ctrl+n")
        await settle(pilot)
        assert launch.state.recipe_label == "mocker-1p1d" and step.display
        assert step.launcher == "local"  # the `local` profile's own


@pytest.mark.parametrize(("profile", "recipe", "ran", "said"), [
    ("nvidia-h100", "nvidia/h100-1p1d-sglang.yaml", "local", "ran on this machine: Local is chosen, not this "
     "profile's own launcher (slurm)"),
    ("local", "mocker/mocker-2p1d.yaml", "slurm", "ran on Slurm: Slurm (sbatch) is chosen, not this profile's own "
     "launcher (local)"),
])  # fmt: skip
async def test_a_clone_run_elsewhere_than_its_profile_says_why_its_launcher_is_chosen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, profile: str, recipe: str, ran: str, said: str
) -> None:
    """A Slurm profile is never switched to Local unsaid: a clone of a job that ran here takes Local, and the note
    says it is the cloned job's launcher, not the profile's (it read "This profile runs on this machine by
    default", of a Slurm profile)."""
    from srt_tui.core.api import prepare_job
    from srt_tui.tui.launch.steps.submit_step import SubmitStep
    from srt_tui.tui.messages import CloneJob
    from tests.tui.tui_helpers import SLURM_UP, FakeCluster, answer_preflight_with, make_app

    answer_preflight_with(monkeypatch, FakeCluster())
    job_dir = _job_dir(tmp_path, "c9", "1P1D", REPO / "recipes" / recipe, profile)
    app = make_app(profile, probe=SLURM_UP)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        cloned = read_clone(job_dir)
        app.post_message(CloneJob(cloned, prepare_job(cloned.recipe, cloned.profile, cloned.source), ran))
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        step = app.screen.query_one(SubmitStep)
        note = str(step.query_one("#launcher-note").render()).replace("\n", " ")
        assert step.display and step.launcher == ran and f"The cloned job {said}." in note, note


async def test_back_from_the_clones_preview_to_the_recipe_list_and_on_again_keeps_the_clone(tmp_path: Path) -> None:
    """Operator pass (issue 21): Esc Esc from the clone's preview reached the recipe list with the cursor on a
    library file, so Enter went on with that one and the clone (its topology) was gone. The clone is a row among
    the opened recipes, under the cursor: Enter goes on with it."""
    from textual.widgets import Tree

    app, snap, job_dir = _job_app(tmp_path, "local-c5")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await _clone_to_preview(app, pilot)
        launch = app.screen
        assert isinstance(launch, LaunchScreen)
        await pilot.press("escape", "escape")
        await settle(pilot)
        assert launch.index == 1
        tree = launch.query_one("#recipe-tree", Tree)
        highlighted = tree.cursor_node.data if tree.cursor_node is not None else None
        assert highlighted is not None and highlighted.label == "job local-c5 (clone)", highlighted
        assert highlighted.folder == "opened" and highlighted.shape == "1P2D · mocker"
        await pilot.press("enter")
        await settle(pilot)
        for _ in range(30):
            if launch.index == 2 and launch.state.prepared is not None:
                break
            await pilot.pause(0.1)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert launch.index == PREVIEW
        plan = launch.state.prepared.plan  # type: ignore[union-attr]
        assert (plan.topology, plan.name) == ("1P2D", snap.name)


@pytest.mark.parametrize("launch_first", [False, True], ids=["monitor-first", "launch-first"])
@pytest.mark.parametrize("for_profile", [True, False], ids=["written-for-local", "no-profiles"])
async def test_the_clones_row_stays_under_the_cursor_and_in_sight_while_srtctls_library_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, for_profile: bool, launch_first: bool
) -> None:
    """Back on the recipe list after a clone, at 80x24, while srtctl's 555 files are read: their folders go in above
    the opened rows, and the clone's row (last) went below the fold under the cursor; a clone whose recipe names
    no profile lost the cursor to the first row written for `local`. The row stays highlighted and on screen."""
    from textual.widgets import Tree

    from srt_tui.core.api import prepare_job
    from srt_tui.tui.messages import CloneJob
    from tests.conftest import require
    from tests.tui.test_recipe_first import SRTCTL_LIBRARY
    from tests.tui.tui_helpers import hold_scan_at, make_app, settle_but

    require(SRTCTL_LIBRARY.is_dir(), f"srtctl's library is not at {SRTCTL_LIBRARY}")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "recipes").symlink_to(SRTCTL_LIBRARY)  # `./recipes`, listed after the shipped folders
    recipe = RECIPE
    if not for_profile:
        recipe = tmp_path / "plain.yaml"
        recipe.write_text(RECIPE.read_text().replace("profiles: [local, local-rocr]\n", ""))
    # held before the shipped mocker folder (rows written for `local`), then nvidia and srtctl's folders
    gate = hold_scan_at(monkeypatch, lambda folder: folder == "mocker")
    app, _, job_dir = _job_app(tmp_path, "local-c7", recipe=recipe)
    if launch_first:
        app = make_app("local")
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            await pilot.pause()
            if launch_first:
                await settle_but(pilot, "scan-recipes")
                cloned = read_clone(job_dir)
                app.post_message(CloneJob(cloned, prepare_job(cloned.recipe, cloned.profile, cloned.source), "slurm"))
            else:
                await pilot.press("C")
            await _until_preview(app, pilot)
            launch = app.screen
            assert isinstance(launch, LaunchScreen) and launch.index == PREVIEW
            await pilot.press("escape", "escape")
            await settle_but(pilot, "scan-recipes")
            tree = launch.query_one("#recipe-tree", Tree)
            assert launch.index == 1 and launch.state.library.loading  # the folders above the clone's are to come
        finally:
            gate.set()
        for _ in range(200):
            if not launch.state.library.loading:
                break
            await pilot.pause(0.05)
        await settle(pilot)
        node = tree.cursor_node
        assert node is not None and node.data is not None and node.data.label == "job local-c7 (clone)"
        assert tree.last_line > 500  # srtctl's library is listed, above the clone's row
        shown = range(round(tree.scroll_y), round(tree.scroll_y) + tree.scrollable_content_region.height)
        assert node.line in shown, (node.line, shown)


async def test_e_on_the_clones_row_edits_a_copy_never_the_jobs_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The clone's row is the recipe.yaml in the job's directory: what the job ran stays as it ran, and the edit
    goes to `<job>.yaml` in the user recipe folder."""
    import os

    script = tmp_path / "editor.sh"
    script.write_text("#!/bin/sh\nexec sed -i 's/^name: .*/name: edited-clone/' \"$1\"\n", encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(script))
    app, _, job_dir = _job_app(tmp_path, "local-c6")
    record = (job_dir / "recipe.yaml").read_text(encoding="utf-8")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await _clone_to_preview(app, pilot)
        await pilot.press("escape", "escape")
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
    assert (job_dir / "recipe.yaml").read_text(encoding="utf-8") == record
    copy = Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "recipes" / "local-c6.yaml"
    assert "name: edited-clone" in copy.read_text(encoding="utf-8")
