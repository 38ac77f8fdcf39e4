"""Every mode and screen at narrow terminals (issue 21, new-operator pass: `srt-tui` in a 62-column tmux ended in
an IndexError in the step bar): the Launch steps, the Monitor's jobs list, a job view, a worker's detail, the log
viewer, events, results, Setup and Help, at 60×20, 50×16 and 40×12 and through a resize from 120×36 down to 40×12
and back. A cramped layout is allowed; a traceback is not: the app keeps running through every step, and each step
is on the screen it names (so the sweep cannot pass by never getting there)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input

from srt_tui.monitor.model import JobSnapshot
from srt_tui.tui.app import SrtTuiApp
from srt_tui.tui.monitor.screen import MonitorScreen
from srt_tui.widgets.step_bar import StepBar
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import NVIDIA, settle
from tests.tui.tui_helpers import make_app

SIZES = ((60, 20), (50, 16), (40, 12))
#: the resize: from wide down to the smallest, and back
SQUEEZE = ((100, 30), (60, 20), (40, 12), (120, 36))
RECIPE, PROFILE = "amd/mi300x-vllm-moriio-colocated.yaml", "amd-mi300x"
STEPS = ("profile", "recipe", "topology", "preview", "submit")

Visit = Callable[[Pilot[Any], str], Awaitable[None]]


async def _alive(pilot: Pilot[Any], where: str, screen: str | None = None) -> None:
    """The app handled everything sent so far and is still running (a crash in a render ends it), on ``screen``
    (a screen class's name, or a wizard step's)."""
    await settle(pilot, rounds=5)
    app = pilot.app
    assert app._exception is None and app.is_running, f"{where}: the app ended ({app._exception!r})"
    if screen in STEPS:
        assert STEPS[app.screen.query_one(StepBar).current] == screen, where
    elif screen is not None:
        assert type(app.screen).__name__ == screen, f"{where}: on {type(app.screen).__name__}"


async def _press(pilot: Pilot[Any], where: str, *keys: str, screen: str | None = None) -> None:
    await pilot.press(*keys)
    await _alive(pilot, where, screen)


async def _help(pilot: Pilot[Any], where: str) -> None:
    """Help opened over this screen (as `?` does outside a text field) and closed again."""
    before = type(pilot.app.screen).__name__
    app = pilot.app
    assert isinstance(app, SrtTuiApp)
    app.action_help()
    await _alive(pilot, f"{where} help", "HelpScreen")
    await _press(pilot, f"{where} help closed", "escape", screen=before)


async def _walk_launch(pilot: Pilot[Any], visit: Visit) -> None:
    """An app opened with the nvidia profile (on the Recipe step): every step by keys, Monitor, Setup, back to
    Launch, then back step by step to Profile; ``visit`` on each."""
    await _alive(pilot, "recipe", "recipe")
    await visit(pilot, "recipe")
    await pilot.press("slash")
    pilot.app.screen.query_one("#recipe-filter", Input).insert_text_at_cursor(NVIDIA.query)
    await _press(pilot, "recipe filtered", "tab", "escape", screen="recipe")  # the keys to the tree, filter closed
    await _press(pilot, "topology", "enter", screen="topology")
    await visit(pilot, "topology")
    for step in ("preview", "submit"):
        await _press(pilot, step, "ctrl+n", screen=step)
        await visit(pilot, step)
    for key, mode in (("2", "MonitorScreen"), ("3", "SetupScreen"), ("1", "LaunchScreen")):
        await _press(pilot, mode, key, screen=mode)
        await visit(pilot, mode)
    for step in ("preview", "topology", "recipe", "profile"):
        await _press(pilot, f"back to {step}", "escape", screen=step)
    await visit(pilot, "profile")


def _job_dir(tmp_path: Path) -> Path:
    """A job directory with a plan and a log per process (the worker detail and the log viewer read them)."""
    job_dir = tmp_path / "81240"
    (job_dir / "logs").mkdir(parents=True)
    plan = frozen.plan_json(RECIPE, PROFILE)
    (job_dir / "plan.json").write_text(json.dumps(plan))
    for proc in plan["processes"]:
        log = job_dir / proc["log"]
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(
            "".join(f"loading shard {i} of a model, a line longer than a narrow screen\n" for i in range(40))
        )
    return job_dir


def _fleet(tmp_path: Path) -> list[JobSnapshot]:
    """The jobs table's usual fleet, its degraded AMD job with files to read."""
    return [*(s for s in frozen.fleet() if s.job_id != "81240"),
            frozen.frozen_job("81240", RECIPE, PROFILE, scenario="degraded", job_dir=_job_dir(tmp_path))]  # fmt: skip


async def _walk_monitor(pilot: Pilot[Any], visit: Visit) -> None:
    """The jobs list (sorted, filtered), a job view, a worker's detail, its log (wrapped, the log picker), the
    job's events, logs and results; ``visit`` on the main ones."""
    await _alive(pilot, "jobs list", "MonitorScreen")
    await visit(pilot, "jobs list")
    pilot.app.screen.query_one("#jobs-table", DataTable).focus()
    await _press(pilot, "sorted", "s")
    await _press(pilot, "filtered", "slash", "8", "1", "2", "4", "0")
    await _press(pilot, "job view", "enter")  # the filter's Enter opens the job it names
    screen = pilot.app.screen
    assert isinstance(screen, MonitorScreen) and screen.in_job_view and screen.current_job() == "81240"
    await visit(pilot, "job view")
    await _press(pilot, "job view scrolled", "ctrl+d", "ctrl+u")
    pilot.app.screen.query_one("#job-workers", DataTable).focus()
    await _press(pilot, "worker detail", "g", "enter", screen="WorkerDetail")
    await visit(pilot, "worker detail")
    await _press(pilot, "worker log", "l", screen="LogViewerScreen")
    await visit(pilot, "worker log")
    await _press(pilot, "worker log wrapped", "w")
    await _press(pilot, "log picker", "o", screen="LogPicker")
    await _press(pilot, "log picker closed", "escape", screen="LogViewerScreen")
    await _press(pilot, "back from the log", "escape", screen="WorkerDetail")
    await _press(pilot, "back from the detail", "escape", screen="MonitorScreen")
    for key, name in (("e", "EventsScreen"), ("l", "LogViewerScreen"), ("R", "ResultsScreen")):
        await _press(pilot, name, key, screen=name)
        await visit(pilot, name)
        await _press(pilot, f"back from {name}", "escape", screen="MonitorScreen")
    await _press(pilot, "back to the list", "escape", screen="MonitorScreen")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_every_launch_step_and_mode_at_narrow_sizes(size: tuple[int, int]) -> None:
    app = make_app(NVIDIA.profile)
    async with app.run_test(size=size) as pilot:
        await _walk_launch(pilot, _help)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_monitor_and_its_screens_at_narrow_sizes(tmp_path: Path, size: tuple[int, int]) -> None:
    app = frozen_app(_fleet(tmp_path))
    async with app.run_test(size=size) as pilot:
        await _walk_monitor(pilot, _help)


async def _squeeze(pilot: Pilot[Any], where: str) -> None:
    """This screen resized down to 40×12 and back to 120×36 (the operator's second crash: 100×30 to 60×20)."""
    for w, h in SQUEEZE:
        await pilot.resize_terminal(w, h)
        await _alive(pilot, f"{where} at {w}x{h}")


async def test_a_resize_from_wide_to_40x12_and_back_on_every_launch_step_and_mode() -> None:
    app = make_app(NVIDIA.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await _walk_launch(pilot, _squeeze)
        await _press(pilot, "help", "question_mark", screen="HelpScreen")
        await _squeeze(pilot, "help")


async def test_the_operators_resize_100x30_to_60x20_then_2() -> None:
    """`srt-tui` with no profile (the step bar has no choice to show yet), resized, then Monitor mode."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await _alive(pilot, "opened", "profile")
        await pilot.resize_terminal(60, 20)
        await _alive(pilot, "at 60x20", "profile")
        await _press(pilot, "monitor at 60x20", "2", screen="MonitorScreen")
        await _press(pilot, "launch at 60x20", "1", screen="profile")
        await _squeeze(pilot, "profile")


async def test_a_resize_from_wide_to_40x12_and_back_on_every_monitor_screen(tmp_path: Path) -> None:
    app = frozen_app(_fleet(tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        await _walk_monitor(pilot, _squeeze)


async def _walk_all_jobs(pilot: Pilot[Any], visit: Visit) -> None:
    """`A`: every Slurm job of mine, sorted, a plain sbatch job's Slurm facts, back to the jobs list."""
    await _press(pilot, "all jobs", "A", screen="AllJobsScreen")
    await visit(pilot, "all jobs")
    await _press(pilot, "all jobs sorted", "s", screen="AllJobsScreen")
    await _press(pilot, "all jobs sorted back", "s", "s", "s", "s", screen="AllJobsScreen")
    await _press(pilot, "a plain sbatch job", "g", "j", "enter", screen="SlurmFactsScreen")
    await visit(pilot, "slurm facts")
    await _press(pilot, "back from the facts", "escape", screen="AllJobsScreen")
    await _press(pilot, "back to srt-tui's jobs", "A", screen="MonitorScreen")


def _all_jobs_app() -> SrtTuiApp:
    from srt_tui.tui.monitor.alljobs.source import FrozenJobsSource
    from tests.monitor.alljobs_frozen import FACTS, app_with, rows

    return app_with(FrozenJobsSource("ann", rows(), FACTS), snaps=[frozen.nvidia("healthy")])


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_all_my_slurm_jobs_at_narrow_sizes(size: tuple[int, int]) -> None:
    app = _all_jobs_app()
    async with app.run_test(size=size) as pilot:
        await _walk_all_jobs(pilot, _help)


async def test_a_resize_from_wide_to_40x12_and_back_on_all_my_slurm_jobs() -> None:
    app = _all_jobs_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await _walk_all_jobs(pilot, _squeeze)


async def test_a_live_local_mock_job_through_the_resize(tmp_path: Path) -> None:
    """The real Monitor polling a job of one real mock worker: its row, its job view, the worker's detail and log
    squeezed to 40×12 and back while refreshes keep arriving."""
    from tests.monitor.tui_apps import live_agg_app, until_healthy

    with live_agg_app(tmp_path, "local-7") as (app, _worker, _job_dir):
        async with app.run_test(size=(120, 36)) as pilot:
            screen = app.screen
            assert isinstance(screen, MonitorScreen)
            await until_healthy(pilot, screen, "local-7")
            await _squeeze(pilot, "live jobs list")
            screen.query_one("#jobs-table", DataTable).focus()
            await _press(pilot, "live job view", "enter")
            assert screen.in_job_view and screen.current_job() == "local-7"
            await _squeeze(pilot, "live job view")
            screen.query_one("#job-workers", DataTable).focus()
            await _press(pilot, "live worker detail", "g", "enter", screen="WorkerDetail")
            await _squeeze(pilot, "live worker detail")
            await _press(pilot, "live worker log", "l", screen="LogViewerScreen")
            await _squeeze(pilot, "live worker log")
