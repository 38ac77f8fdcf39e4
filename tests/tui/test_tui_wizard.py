"""Pilot tests: the wizard driven key by key, validation while typing, the `/` filter, `?` help, modes."""

from __future__ import annotations

import asyncio
import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.message import Message
from textual.widgets import ContentSwitcher, DataTable, Input, Static, TabbedContent, Tree

from srt_tui.core.paths import user_recipes_dir
from srt_tui.tui.header import AppHeader
from srt_tui.tui.help_screen import HelpScreen
from srt_tui.tui.launch.gpu_grid import GpuGrid
from srt_tui.tui.launch.messages import FileSaved, JobSubmitted, SubmitFailed
from srt_tui.widgets.problem_list import ProblemList
from srt_tui.widgets.script_view import ScriptView
from tests.tui.scenarios import settle
from tests.tui.tui_helpers import launch_and_tree, make_app

REPO = Path(__file__).resolve().parents[2]


async def _wait_for(messages: list[Message], kinds: tuple[type[Message], ...], timeout: float = 60) -> Message:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        for m in messages:
            if isinstance(m, kinds):
                return m
        await asyncio.sleep(0.05)
    raise AssertionError(f"none of {kinds} arrived within {timeout}s")


async def _open_file(pilot: Any, name: str) -> Any:
    """`o`, the file name typed key by key, Enter: the opened recipe's entry, which the cursor must be on.

    Waits for the prompt before typing and checks what was typed, since this flow raced under load.
    """
    await pilot.press("o")
    await settle(pilot)
    await pilot.press(*name)
    assert pilot.app.screen.query_one("#prompt-input", Input).value == name
    await pilot.press("enter")
    await settle(pilot)
    tree: Tree[object] = pilot.app.screen.query_one("#recipe-tree", Tree)
    node = tree.cursor_node
    assert node is not None and node.data is not None, node
    assert "opened" in str(node.parent.label if node.parent else ""), node
    return node.data


#: written to the test's working directory, opened with `o`
SERVING_1P1D = Path("serving-1p1d.yaml")


@pytest.mark.parametrize("launcher", ["local", pytest.param("slurm", marks=pytest.mark.slurm)])
async def test_wizard_key_by_key_1p1d_to_2p1d_submitted(launcher: str) -> None:
    """First screen → profile `local` → mocker-1p1d → 2P1D with TP4 prefill → preview → submit.

    `slurm` submits to the real local cluster with the app's real reachability probe; the Monitor it
    jumps to must follow the live job (ready, registrations, per-worker counters) and cancel it through
    the confirmation dialog. `local` takes the no-Slurm launcher.
    """
    messages: list[Message] = []
    if launcher == "slurm":
        from tests.cluster import ensure_local_slurm

        text = (REPO / "recipes/mocker/mocker-1p1d.yaml").read_text()
        assert text.rstrip().endswith("num_prompts_mult: 5")  # the benchmark block is last: serve instead
        SERVING_1P1D.write_text(text[: text.index("\nbenchmark:\n")] + "\nbenchmark:\n  type: manual\n")

        ensure_local_slurm(nodes=3)
        app = make_app(probe=None)  # the real `sinfo` probe decides what the submit step offers
        app.check_slurm = True
    else:
        app = make_app()  # no -p: `local` is the default the profile step highlights
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await settle(pilot)
        await pilot.press("enter")  # profile: local
        await settle(pilot)
        if launcher == "local":
            await pilot.press("slash", *"mocker-1p1d", "enter")  # recipe: named exactly, the filter's Enter chooses
        else:  # the same 1P1D twin, kept serving (no benchmark that ends the job) so the Monitor can follow it
            opened = await _open_file(pilot, SERVING_1P1D.name)
            assert opened.spec == str(SERVING_1P1D) and opened.error is None, opened
            await pilot.press("enter")
        await settle(pilot)
        assert app.focused is not None and app.focused.id == "presets"
        await pilot.press("down", "enter")  # preset 2P1D (two TP8 prefill workers, one node each)
        await settle(pilot)
        # prefill GPUs per worker 8 → 4 and TP 8 → 4, then the two workers share one node
        await pilot.press("tab", "tab", "tab", "4")  # presets → workers → nodes → GPUs
        await settle(pilot)
        assert "roles.prefill.args.tp-size" in app.screen.query_one(ProblemList).text
        await pilot.press("tab", "4", "shift+tab", "shift+tab", "1")  # TP, back to nodes
        await settle(pilot)
        grid = app.screen.query_one(GpuGrid)
        assert grid.plan is not None and grid.plan.topology == "2P1D"
        await pilot.press("ctrl+n")  # → preview
        await settle(pilot)
        await pilot.press("ctrl+n")  # → submit
        await settle(pilot)
        from srt_tui.tui.launch.steps.submit_step import SubmitStep

        assert app.screen.query_one(SubmitStep).launcher == "local"  # the demo profile runs here unless asked
        if launcher == "slurm":
            assert app.context.slurm_state == "up", app.context.slurm_reason
            await pilot.press("up")  # launcher radio set: Slurm (sbatch), above Local, asked for explicitly
            assert app.screen.query_one(SubmitStep).launcher == "slurm"
            await settle(pilot)  # Submit waits for Slurm's checks from this machine (paths, programs)
        await pilot.press("tab", "enter")  # Submit button
        outcome = await _wait_for(messages, (JobSubmitted, SubmitFailed))
        await pilot.pause()  # the Monitor's own poll workers are not waited for
        assert isinstance(outcome, JobSubmitted), getattr(outcome, "reason", "")
        assert outcome.launcher == launcher
        assert outcome.job_dir.is_dir()
        assert app.current_mode == "monitor"
        if launcher == "slurm":
            try:
                await _follow_live_job_then_cancel(pilot, outcome.job_id)
            finally:
                from tests.e2e.jobtools import srt

                srt("cancel", outcome.job_id, check=False)

    plan = outcome.prepared.plan
    prefill = [w for w in plan.workers if w.role == "prefill"]
    assert [w.visible_devices for w in prefill] == ["0,1,2,3", "4,5,6,7"]
    assert {w.node_index for w in prefill} == {0}
    assert all(("CUDA_VISIBLE_DEVICES", w.visible_devices) in w.env for w in prefill)
    assert [w.role for w in plan.workers].count("decode") == 1
    assert plan.topology == "2P1D" and plan.nodes == 2
    assert plan.name == "mocker-2p1d"  # named after the shape it was given, not the recipe's 1P1D
    assert ("job-name", "mocker-2p1d") in outcome.prepared.job.directives
    if launcher == "local":
        from srt_tui.slurm.local import LocalLauncher

        LocalLauncher().cancel(outcome.job_id, outcome.job_dir)


async def _until(
    pilot: Any, what: str, check: Callable[[], bool], timeout: float = 120, shown: Callable[[], object] = lambda: ""
) -> None:
    """Let the app run (its live feed polls in the background) until `check()` holds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check():
        if loop.time() > end:
            raise AssertionError(f"the monitor did not show {what} within {timeout:g}s; it shows {shown()}")
        await pilot.pause(0.25)


async def _follow_live_job_then_cancel(pilot: Any, job_id: str) -> None:
    """The Monitor the wizard jumped to follows the real job: ready, registered, counting, then cancelled."""
    from srt_tui.tui.monitor.dialogs import ConfirmCancel
    from srt_tui.tui.monitor.screen import MonitorScreen
    from srt_tui.tui.monitor.worker_table import WorkerTable
    from tests.e2e.jobtools import send_requests
    from tests.monitor.jobdirs import describe

    screen = pilot.app.screen
    assert isinstance(screen, MonitorScreen) and screen.current_job() == job_id

    def snap() -> Any:
        return screen.snapshot_of(job_id)

    def shown() -> str:
        s = snap()
        return f"{len(screen.snapshots)} snapshots, tracked {screen.tracked}" + (f"\n{describe(s)}" if s else "")

    await _until(pilot, "the job ready", lambda: snap() is not None and snap().is_ready, shown=shown)
    s = snap()
    assert s.router is not None and s.router.registered == {"prefill": 2, "decode": 1}, s.router
    assert [w.mask for w in s.workers if w.role == "prefill"] == ["0,1,2,3", "4,5,6,7"]
    assert all(w.health == "healthy" for w in s.workers)
    answered = await asyncio.to_thread(send_requests, s.router.url, 12)
    assert len(answered) == 12

    def counted() -> bool:
        workers = {w.name: w.requests_total or 0 for w in snap().workers}
        return workers.get("decode_0", 0) >= 12 and workers.get("prefill_0", 0) + workers.get("prefill_1", 0) >= 12

    await _until(pilot, "the requests counted per worker", counted, timeout=30)
    assert screen.query_one(WorkerTable).row_count == 3
    await pilot.press("c")
    await settle(pilot, rounds=3)
    assert isinstance(pilot.app.screen, ConfirmCancel) and pilot.app.screen.job_id == job_id
    await pilot.press("y")
    await _until(pilot, "the job cancelled", lambda: snap().is_final, timeout=60)
    assert snap().stage == "cancelled" and snap().slurm_state in ("CANCELLED", "COMPLETING"), describe(snap())


async def test_validation_messages_follow_typing_and_never_crash() -> None:
    app = make_app("nvidia-h100")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"2p1d-sgl", "enter", "enter")
        await settle(pilot)
        problems = app.screen.query_one(ProblemList)
        assert problems.text.startswith("✓ valid: 2P1D")

        gpus = app.screen.query_one("#prefill-gpus", Input)
        gpus.focus()
        await pilot.press("backspace", "3")
        await settle(pilot)
        assert "roles.prefill.gpus: 3 GPUs per worker does not divide the node's 8 GPUs" in problems.text
        assert "fix: use a divisor of 8" in problems.text
        assert app.screen.query_one(GpuGrid).plan is None

        await pilot.press("backspace", "x")  # a letter is refused as it is typed (issue 21 defect 7)
        await settle(pilot)
        assert gpus.value == "" and "is not a whole number" not in problems.text
        # empty = as many as the nodes give
        await settle(pilot)
        workers = app.screen.query_one("#decode-workers", Input)
        workers.focus()
        await pilot.press("backspace", "0")
        await settle(pilot)
        assert "roles.decode" in problems.text and "needs decode workers too" in problems.text

        await pilot.press("backspace", "1")
        await settle(pilot)
        await pilot.press("ctrl+n")  # valid again: the step lets the operator move on
        await settle(pilot)
        assert app.screen.query_one("#steps", ContentSwitcher).current == "step-preview"


async def test_slash_filters_recipes_and_escape_restores_them() -> None:
    app = make_app("amd-mi300x")
    async with app.run_test(size=(120, 36)) as pilot:
        _, tree = await launch_and_tree(pilot)
        everything = _leaves(tree)
        assert len(everything) > 10
        await pilot.press("slash", *"moriio")
        await settle(pilot)
        assert _leaves(tree) == ["mi300x-vllm-moriio-colocated"]
        assert tree.cursor_node is not None and tree.cursor_node.data is not None
        await pilot.press("tab", "escape")  # the keys to the tree (nothing chosen), then the filter closed
        await settle(pilot)
        assert _leaves(tree) == everything
        assert app.screen.query_one("#recipe-filter", Input).display is False
        node = tree.cursor_node
        assert node is not None and getattr(node.data, "label", "") == "mi300x-vllm-moriio-colocated"


def _plain(static: Static) -> str:
    """The text a Static shows, whatever Rich renderable it holds."""
    console = Console(width=200, file=io.StringIO(), record=True, color_system=None)
    console.print(static.content)
    return console.export_text()


def _leaves(tree: Tree[object]) -> list[str]:
    out: list[str] = []
    for folder in tree.root.children:
        out += [str(getattr(leaf.data, "label", "")) for leaf in folder.children]
    return out


async def test_open_file_reads_a_recipe_from_anywhere(tmp_path: Path) -> None:
    recipe = tmp_path / "my.yaml"  # tmp_path is the working directory: the operator types a relative path
    recipe.write_text((REPO / "recipes/mocker/mocker-agg2.yaml").read_text().replace("mocker-agg2", "my-agg"))
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        opened = await _open_file(pilot, recipe.name)
        assert opened.label == "my-agg"
        tree: Tree[object] = app.screen.query_one("#recipe-tree", Tree)
        assert "opened" in [str(f.label) for f in tree.root.children][-1]


async def test_open_a_sweep_file_lists_each_member_to_choose(tmp_path: Path) -> None:
    """New-operator pass: `o` on a sweep file ended in the loader's `pick one: -f osl.yaml:<job>` (a command line the
    wizard has no place for). Each member is listed under opened/, below a row for all of them (the cursor on it),
    none refused."""
    text = (REPO / "recipes/mocker/mocker-agg-direct.yaml").read_text()
    sweep = text.replace("name: mocker-agg-direct", "name: osl\nsweep:\n  osl: [8, 4]").replace(
        "osl: 4", 'osl: "{osl}"'
    )
    (tmp_path / "osl.yaml").write_text(sweep)
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        opened = await _open_file(pilot, "osl.yaml")
        assert opened.label == "osl  (all 2 jobs)" and not opened.broken, opened.error
        tree: Tree[object] = app.screen.query_one("#recipe-tree", Tree)
        folder = next(f for f in tree.root.children if "opened" in str(f.label))
        labels = [str(getattr(leaf.data, "label", "")) for leaf in folder.children]
        assert labels == ["osl  (all 2 jobs)", "osl:sweep[0]", "osl:sweep[1]"]
        assert [getattr(leaf.data, "broken", True) for leaf in folder.children] == [False, False, False]


async def test_a_whole_sweep_is_submitted_as_one_group_from_its_row(tmp_path: Path) -> None:
    """A sweep file's row for all its jobs (above its members) says every value swept (new-operator pass: `osl 8`
    only) and goes to Preview (it went straight to Submit, Topology ticked though never shown), each member listed
    with its values and shape, `m` showing the next member's scripts; Ctrl+N to Submit, each member listed; Submit sends
    every member through `submit_sweep` (as `apply -f osl.yaml`), each job.json marked with the group and the values
    it was swept with, and the Monitor lists the group's rows."""
    from srt_tui.core.jobdir.contract import read_job_meta
    from srt_tui.slurm.local import LocalLauncher
    from srt_tui.tui.launch.messages import SweepSubmitted
    from srt_tui.tui.launch.steps.preview_step import PreviewStep
    from srt_tui.tui.launch.steps.submit_step import SubmitStep
    from srt_tui.tui.monitor.screen import MonitorScreen
    from srt_tui.widgets.step_bar import StepBar

    text = (REPO / "recipes/mocker/mocker-agg-direct.yaml").read_text()
    sweep = text.replace("name: mocker-agg-direct", "name: osl\nsweep:\n  osl: [8, 4]").replace(
        "osl: 4", 'osl: "{osl}"'
    )
    (tmp_path / "osl.yaml").write_text(sweep)
    messages: list[Message] = []
    app = make_app("local")
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await settle(pilot)
        opened = await _open_file(pilot, "osl.yaml")
        assert (opened.label, opened.members, opened.broken) == ("osl  (all 2 jobs)", 2, False), opened.error

        def on_submit() -> bool:
            found = app.screen.query(SubmitStep)
            return bool(found) and found.first().display and found.first().sweep is not None

        summary = _plain(app.screen.query_one("#recipe-summary", Static))
        assert "swept      osl 8, 4" in summary, summary  # every member's values, not the first one's `osl 8`
        assert "osl 8 · concurrency 2  (the first job's)" in summary, summary

        def on_preview() -> bool:
            found = app.screen.query(PreviewStep)
            return bool(found) and found.first().display and found.first().prepared is not None

        await pilot.press("down", "enter")  # one member first, then back: the whole sweep keeps none of its recipe
        await _until(pilot, "the Topology step", lambda: getattr(app.screen, "index", None) == 2)
        await pilot.press("escape")
        await _until(pilot, "the Recipe step", lambda: getattr(app.screen, "index", None) == 1)
        await pilot.press("up")
        await settle(pilot)
        await pilot.press("enter")  # the whole sweep: its members checked, then Preview (new-operator pass: Submit)
        await _until(pilot, "the Preview step", on_preview)
        bar = app.screen.query_one(StepBar)
        crumbs = bar._crumbs("").plain
        assert "– 3 Topology" in crumbs and "✓ 3" not in crumbs, crumbs  # never shown: skipped, not ticked
        preview = app.screen.query_one(PreviewStep)
        head = _plain(app.screen.query_one("#preview-summary", Static))
        assert "sweep: 2 jobs, one group · 2 nodes" in head, head
        assert "▸ osl_osl8  osl=8  agg1 · 1 node(s), 8 GPUs" in head and "  osl_osl4  osl=4" in head, head
        assert preview.edited is None  # `w` saved the member's recipe chosen before as the sweep's
        first = preview.prepared
        assert first is not None and "osl_osl8" in first.script
        await pilot.press("m")  # the second member's scripts
        await settle(pilot)
        member = preview.prepared
        assert member is not None and member is not first and "osl_osl4" in member.script
        assert "▸ osl_osl4" in _plain(app.screen.query_one("#preview-summary", Static))
        await pilot.press("ctrl+n")
        await _until(pilot, "the Submit step", on_submit)
        step = app.screen.query_one(SubmitStep)
        assert step.launcher == "local"
        shown = _plain(app.screen.query_one("#request", Static))
        assert "2 jobs, one group · 2 nodes" in shown
        assert "osl_osl8  osl=8  agg1 · 1 node" in shown and "osl_osl4  osl=4  agg1 · 1 node" in shown
        await pilot.press("ctrl+n")  # submitted once this machine's checks answer
        outcome = await _wait_for(messages, (SweepSubmitted, SubmitFailed))
        await pilot.pause()
        assert isinstance(outcome, SweepSubmitted), getattr(outcome, "reason", "")
        try:
            assert len(outcome.jobs) == 2 and not outcome.failed
            metas = [read_job_meta(job_dir) for _, job_dir in outcome.jobs]
            assert [(m.group, m.group_member, dict(m.group_values or {})) for m in metas] == [
                (outcome.group, "sweep[0]", {"osl": 8}),
                (outcome.group, "sweep[1]", {"osl": 4}),
            ]
            assert app.current_mode == "monitor"
            monitor = app.screen_stack[0]
            assert isinstance(monitor, MonitorScreen) and monitor.query_text == outcome.group
        finally:
            for job_id, job_dir in outcome.jobs:
                LocalLauncher().cancel(job_id, job_dir)


async def test_a_whole_sweeps_preview_offers_no_recipe_to_write_and_says_whose_dry_run_it_saves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole sweep's Preview (s36): `w` (write the recipe) did nothing there and was offered; it is not. `s` saves
    the dry-run of the member shown only, and its toast says so (which one, and `m` for the next)."""
    from srt_tui.tui.launch.steps.preview_step import PreviewStep

    text = (REPO / "recipes/mocker/mocker-agg-direct.yaml").read_text()
    sweep = text.replace("name: mocker-agg-direct", "name: osl\nsweep:\n  osl: [8, 4]").replace(
        "osl: 4", 'osl: "{osl}"'
    )
    (tmp_path / "osl.yaml").write_text(sweep)
    messages: list[Message] = []
    app = make_app("local")
    said: list[str] = []  # as raised: a toast on screen ends after its 5 s on the wall clock
    notify = app.notify

    def record(message: str, **kw: Any) -> None:
        said.append(str(message))
        notify(message, **kw)

    monkeypatch.setattr(app, "notify", record)
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await settle(pilot)
        await _open_file(pilot, "osl.yaml")  # the cursor on its `(all 2 jobs)` row
        await pilot.press("enter")

        def on_preview() -> bool:
            found = app.screen.query(PreviewStep)
            return bool(found) and found.first().display and found.first().prepared is not None

        await _until(pilot, "the Preview step", on_preview)
        offered = {b.binding.action for b in app.screen.active_bindings.values()}
        assert "save_dry_run" in offered and "save_recipe" not in offered, offered
        await pilot.press("m", "s")  # the second member's dry-run
        await settle(pilot)
        await pilot.press("enter")
        saved = await _wait_for(messages, (FileSaved,))
        await settle(pilot)
    assert isinstance(saved, FileSaved) and (saved.path / "sbatch.sh").is_file()
    assert "osl_osl4" in (saved.path / "sbatch.sh").read_text()
    assert said and said[-1].endswith(" · osl_osl4 only, 2 of the sweep's 2 jobs (m: the next)"), said


async def test_open_names_a_missing_file_and_lists_nothing_a_refused_file_gives_way(tmp_path: Path) -> None:
    """Operator pass: `o` `nope.yaml` Enter (no such file) left an `opened/ └ ✗ nope` row for good; then (op8) the
    prompt closed on it with a toast, and what the operator typed next went to the recipe step as keys. A missing
    file keeps the prompt open, why under the field, and lists no row; a file that is there but refused keeps its
    ✗ row (it says why) until the next file opened takes its place."""
    from srt_tui.tui.prompts import PathPrompt

    (tmp_path / "bad.yaml").write_text("name: [unclosed\n")
    (tmp_path / "my.yaml").write_text((REPO / "recipes/mocker/mocker-agg2.yaml").read_text())
    app = make_app("local")
    async with app.run_test(size=(80, 24)) as pilot:
        _, tree = await launch_and_tree(pilot)
        await pilot.press("o")
        await settle(pilot)
        await pilot.press(*"nope.yaml", "enter")
        await settle(pilot)
        assert isinstance(app.screen, PathPrompt)  # still open: the operator fixes the path there
        why = app.screen.query_one("#prompt-error", Static)
        assert why.display and "no such recipe file: nope.yaml" in str(why.content), why.content
        await pilot.press("backspace", *"x", "e")  # read as the path's characters, not as the step's keys
        assert app.screen.query_one("#prompt-input", Input).value == "nope.yamxe"
        assert not why.display  # the reason was the old entry's
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, PathPrompt)
        assert not any("opened" in str(folder.label) for folder in tree.root.children)
        opened = await _open_file(pilot, "bad.yaml")
        assert opened.broken and str(tree.cursor_node.label if tree.cursor_node else "").startswith("✗ bad")
        opened = await _open_file(pilot, "my.yaml")
        folder = next(f for f in tree.root.children if "opened" in str(f.label))
        assert [str(getattr(leaf.data, "label", "")) for leaf in folder.children] == [opened.label], folder.children


async def test_question_mark_lists_the_keys_of_the_current_step() -> None:
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        rows = {(r.scope, r.description): r.key for r in app.screen.rows}
        recipe_filter = ("Recipe step", "Filter the recipes: every word must match, !word excludes")
        assert rows.get(recipe_filter) == "/"  # Help says that words combine
        assert ("this screen", "Next") in rows and ("this screen", "Back") in rows
        assert ("everywhere", "Help") in rows
        # a letter or digit is text in a field: Help says where they work (issue 21 defect 7)
        assert "q" in rows[("outside text fields", "Quit")]
        assert "2" in rows[("outside text fields", "Monitor mode")]
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, HelpScreen)


async def test_modes_switch_by_key_but_not_while_typing() -> None:
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        # Monitor and Setup run their own pollers/probes: only wait for the switch, not for their workers (a key
        # typed while the Monitor waits for its first refresh waits for it: `key_order`)
        for key, mode in (("2", "monitor"), ("3", "setup"), ("f2", "launch")):
            await pilot.press(key)
            for _ in range(100):
                if app.current_mode == mode:
                    break
                await pilot.pause(0.05)
            assert app.current_mode == mode, key
        await pilot.press("slash", "2")  # typed into the filter, not a mode switch
        await settle(pilot)
        assert app.current_mode == "launch"
        assert app.screen.query_one("#recipe-filter", Input).value == "2"


async def test_command_palette_offers_the_modes() -> None:
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"setup")
        await settle(pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert app.current_mode == "setup"


async def test_profile_table_keeps_every_fact_on_screen_when_narrow() -> None:
    """At 80 columns the table swaps to short columns instead of scrolling the exporter off screen."""
    app = make_app("amd-mi300x")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("escape")  # the profile given opened the recipe list: the Profile step is one key back
        await settle(pilot)
        table: DataTable[object] = app.screen.query_one("#profile-table", DataTable)
        assert table.virtual_size.width <= table.size.width
        names = [str(c.label) for c in table.columns.values()]
        assert names[-3:] == ["INTERFACE", "RUN", "EXPORTER"]
        row = table.get_row_at(table.cursor_row)
        assert [str(c) for c in row[1:4]] == ["amd-mi300x", "8", "ROCR"]
        await pilot.resize_terminal(120, 36)
        await settle(pilot)
        assert "MASK VARIABLE" in [str(c.label) for c in table.columns.values()]
        assert str(table.get_row_at(table.cursor_row)[1]) == "amd-mi300x"  # the cursor stays on the same profile


async def test_header_shows_profile_and_slurm_check() -> None:
    app = make_app("local", probe=(True, "slurmctld answers (cli transport)"))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.context.slurm_state == "up"
        assert app.context.profile_label == "local (shipped)"
        shown = app.screen.query_one(AppHeader).render().plain
        assert "local (shipped)" in shown and "✓ reachable" in shown


async def test_broken_profile_error_is_shown_inline() -> None:
    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        errors = str(app.screen.query_one("#profile-errors").render())
        assert "$SRT_TUI_CONFIG_DIR/profiles/broken.yaml:2: gpus_per_nod: unknown key" in errors
        assert "gpus_per_node" in errors
        assert os.environ["SRT_TUI_CONFIG_DIR"] not in errors


async def test_read_only_mode_disables_submission() -> None:
    app = make_app("local", probe=None, read_only=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert "read-only" in app.screen.query_one(AppHeader).render().plain
        await pilot.press("slash", *"agg2", "enter", "enter")
        await settle(pilot)
        await pilot.press("ctrl+n", "ctrl+n")
        await settle(pilot)
        assert app.screen.query_one("#submit").disabled


async def test_preview_masks_secrets_and_saves_dry_run_and_recipe(tmp_path: Path) -> None:
    text = (REPO / "recipes/mocker/mocker-agg2.yaml").read_text()
    (tmp_path / "sec.yaml").write_text(text + 'environment: {HF_TOKEN: "hf_do_not_show", LOG_LEVEL: debug}\n')
    messages: list[Message] = []
    app = make_app("local")
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await settle(pilot)
        assert (await _open_file(pilot, "sec.yaml")).error is None
        await pilot.press("enter")  # choose the opened recipe
        await settle(pilot)
        await pilot.press("ctrl+n")  # → preview
        await settle(pilot)
        tabs = app.screen.query_one("#preview-tabs", TabbedContent)
        for tab in ("tab-processes", "tab-env", "tab-sbatch", "tab-script"):
            tabs.active = tab
            await settle(pilot)
        app.screen.query_one(ScriptView).focus()  # as after `tab` from the tab bar
        await settle(pilot)
        shown = " ".join(_plain(app.screen.query_one(sel, Static)) for sel in ("#mounts-env", "#process-detail"))
        assert "HF_TOKEN" in shown and "***" in shown and "hf_do_not_show" not in shown
        assert "LOG_LEVEL" in shown
        assert "hf_do_not_show" not in app.screen.query_one(ScriptView).script

        await pilot.press("s")  # the prompt offers dry-runs/<name>-<topology>-<clock stamp>
        await settle(pilot)
        assert app.screen.query_one("#prompt-input", Input).value == "dry-runs/mocker-agg2-agg2-20260102-030405"
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("w")  # recipe YAML: the user's recipe folder, which the Recipe step lists
        await settle(pilot)
        assert app.screen.query_one("#prompt-input", Input).value == str(user_recipes_dir() / "mocker-agg2-agg2.yaml")
        await pilot.press("enter")
        await settle(pilot)
        for _ in range(100):  # both saves run in workers; their FileSaved messages may still be in flight
            if {m.kind for m in messages if isinstance(m, FileSaved)} >= {"dry-run", "recipe"}:
                break
            await pilot.pause(0.05)
    saved = {m.kind: m.path for m in messages if isinstance(m, FileSaved)}
    assert (saved["dry-run"] / "sbatch.sh").is_file() and (saved["dry-run"] / "plan.json").is_file()
    assert "hf_do_not_show" not in (saved["dry-run"] / "recipe.yaml").read_text()
    assert saved["recipe"] == user_recipes_dir() / "mocker-agg2-agg2.yaml"
    assert "name: mocker-agg2" in saved["recipe"].read_text()
