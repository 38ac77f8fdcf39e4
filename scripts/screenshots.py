"""Regenerate screenshots/*.svg from the app itself: the launch wizard, the Monitor and the Setup mode.

    python scripts/screenshots.py [--size 120x36] [--out screenshots] [--only GROUP …]

The app runs headless with a fixed clock, no cursor blink, no animation, isolated config, state, output and cache
directories, UTC, and a fixed "Slurm unreachable" answer, so the pictures do not depend on this host (the same
bytes on every run). The Monitor is fed the frozen NVIDIA/AMD job snapshots and Setup the recorded probe run that
the tests use. `tests/test_screenshots.py` draws them again and fails when a committed file is behind the app.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # the Monitor and Setup pictures reuse the tests' frozen data

from tests.tui.scenarios import STEP_ORDER  # noqa: E402  (after the path: the tests' own scenarios)

#: the size of every picture (the README's tables show them side by side)
SIZE = (120, 36)


@contextlib.contextmanager
def drawing_environment(scratch: Path) -> Iterator[None]:
    """Draw under `scratch`: fresh config, state, output and cache directories, a scratch working directory, UTC, no
    animation, a fixed login host, no srtslurm.yaml; everything as it was afterwards (a test draws in its process)."""
    values = {
        "TEXTUAL_ANIMATIONS": "none",
        "SRT_TUI_CONFIG_DIR": str(scratch / "config"),
        "SRT_TUI_STATE_DIR": str(scratch / "state"),
        "SRT_TUI_OUTPUT_DIR": str(scratch / "outputs"),
        "XDG_CACHE_HOME": str(scratch / "cache"),
        "SRT_TUI_LOGIN_HOST": "me@login",  # the job view's ssh line
        "TZ": "UTC",  # the events view says local time
    }
    saved = {name: os.environ.get(name) for name in (*values, "SRTSLURM_CONFIG")}
    cwd = Path.cwd()
    (scratch / "cwd").mkdir(parents=True, exist_ok=True)
    os.environ.update(values)
    os.environ.pop("SRTSLURM_CONFIG", None)
    time.tzset()
    os.chdir(scratch / "cwd")
    try:
        yield
    finally:
        os.chdir(cwd)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        time.tzset()


async def walk(vendor: str, size: tuple[int, int], out: Path) -> list[Path]:
    """Every wizard step of one scenario, in one app walked as an operator walks it: the Profile step (one key back
    from the recipe list a given profile opens on), its recipe found with the filter, then Topology, Preview and
    Submit (one app instead of one per step: the later steps cost no replay of the earlier ones)."""
    from textual.widgets import Input

    from tests.tui.scenarios import SCENARIOS, settle

    scenario = SCENARIOS[vendor]
    app = _wizard_app(scenario.profile)
    written = []

    def shot(step: str) -> None:
        app.save_screenshot(f"{vendor}-{step}.svg", str(out))
        written.append(out / f"{vendor}-{step}.svg")

    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        shot("profile")
        await pilot.press("enter")  # the given profile is highlighted: back to its recipes
        await settle(pilot)
        await pilot.press("slash")  # the filter text pasted (the same handlers as typed, faster)
        app.screen.query_one("#recipe-filter", Input).insert_text_at_cursor(scenario.query)
        await settle(pilot)
        await pilot.press("tab", "escape")  # the keys to the list, the filter closed: the cursor stays on the row
        await settle(pilot)
        shot("recipe")
        for step in STEP_ORDER[2:]:
            await pilot.press("enter" if step == "topology" else "ctrl+n")
            await settle(pilot)
            shot(step)
    return written


def _wizard_app(profile: str) -> Any:
    """The app the wizard's pictures are drawn from: a fixed clock, no Slurm, no cursor blink or animation."""
    from srt_tui.tui.app import SrtTuiApp

    app = SrtTuiApp(
        profile=profile,
        clock=lambda: datetime(2026, 1, 2, 3, 4, 5),
        slurm_probe=lambda: (False, "sinfo: command not found"),
        cursor_blink=False,
    )
    app.animation_level = "none"
    return app


async def shoot(vendor: str, step: str, size: tuple[int, int], out: Path) -> list[Path]:
    """One picture: drive a fresh app to `step` and save its SVG."""
    from tests.tui.scenarios import SCENARIOS, reach

    scenario = SCENARIOS[vendor]
    app = _wizard_app(scenario.profile)
    name = f"{vendor}-{step}.svg"
    async with app.run_test(size=size) as pilot:
        await reach(pilot, scenario, step, typed=False)
        app.save_screenshot(name, str(out))
    return [out / name]


async def shoot_monitor(size: tuple[int, int], out: Path) -> list[Path]:
    """The Monitor: the jobs table, a degraded NVIDIA job, a healthy AMD job."""
    from tests.monitor import frozen
    from tests.monitor.tui_apps import frozen_app
    from tests.tui.scenarios import settle

    shots: list[tuple[str, Any]] = [
        ("monitor-jobs.svg", frozen_app(frozen.fleet())),
        ("monitor-nvidia-degraded.svg", frozen_app([frozen.nvidia("degraded")], open_job="81234")),
        ("monitor-amd-healthy.svg", frozen_app([frozen.amd("healthy")], open_job="81240")),
    ]
    written = []
    for name, app in shots:
        async with app.run_test(size=size) as pilot:
            await settle(pilot)  # the job view opens after the first refresh: its footer is composed again
            app.save_screenshot(name, str(out))
        written.append(out / name)
    return written


async def shoot_setup(size: tuple[int, int], out: Path) -> list[Path]:
    """Setup: the recorded probe run's proposal, the cursor on a key whose evidence shows on the right."""
    from tests.setup.recorded import setup_app
    from tests.tui.scenarios import settle

    app = setup_app()
    async with app.run_test(size=size) as pilot:
        await pilot.click("#run-probes")
        await settle(pilot)
        await pilot.press(*["down"] * 7)  # onto visible_devices_env: its evidence shows on the right
        await pilot.pause()
        app.save_screenshot("setup-proposal.svg", str(out))
    return [out / "setup-proposal.svg"]


async def shoot_alljobs(size: tuple[int, int], out: Path) -> list[Path]:
    """All my Slurm jobs (`A`): srt-tui's and srtctl's jobs beside a plain sbatch job, from frozen rows."""
    from tests.monitor import alljobs_frozen, frozen
    from tests.tui.scenarios import settle

    app = alljobs_frozen.app_with(alljobs_frozen.source(), snaps=frozen.fleet())
    async with app.run_test(size=size) as pilot:
        await pilot.press("A")
        await settle(pilot)
        app.save_screenshot("monitor-alljobs.svg", str(out))
    return [out / "monitor-alljobs.svg"]


async def shoot_results(size: tuple[int, int], out: Path) -> list[Path]:
    """The Results view (`R`) of one job and of a 3-member sweep, from result files the tests build."""
    from tests.monitor import frozen, resultdirs
    from tests.monitor.tui_apps import frozen_app
    from tests.tui.scenarios import settle

    recipe = ("nvidia/h100-2p1d-sglang.yaml", "nvidia-h100")
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        single = frozen.frozen_job("81234", *recipe, job_dir=resultdirs.single(Path(tmp) / "single"))
        sweep = [frozen.frozen_job(j, *recipe, job_dir=p) for j, p in resultdirs.sweep(Path(tmp) / "sweep")]
        for name, app in (
            ("monitor-results.svg", frozen_app([single], open_job="81234")),
            ("monitor-results-sweep.svg", frozen_app(sweep, open_job="81301")),
        ):
            async with app.run_test(size=size) as pilot:
                await pilot.pause()
                await pilot.press("R")
                await settle(pilot)
                app.save_screenshot(name, str(out))
            written.append(out / name)
    return written


async def shoot_logs(size: tuple[int, int], out: Path) -> list[Path]:
    """The log viewer (`l`) on a job's router log: real sglang-router lines, their colours, a search."""
    from srt_tui.tui.logs.screen import LogViewerScreen
    from tests.monitor import frozen
    from tests.monitor.tui_apps import frozen_app
    from tests.tui.log_samples import FixedLog
    from tests.tui.scenarios import settle

    snap = frozen.nvidia("degraded")
    router = next(i for i, ref in enumerate(snap.logs) if ref.kind == "router")
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        app.push_screen(LogViewerScreen(snap.logs, router, reader=FixedLog))  # fixed lines, not a host's file
        await settle(pilot)
        await pilot.press("slash", *"tokenizer", "enter")
        await pilot.pause()
        app.save_screenshot("monitor-log-viewer.svg", str(out))
    return [out / "monitor-log-viewer.svg"]


async def shoot_events(size: tuple[int, int], out: Path) -> list[Path]:
    """The events view (`e`) of a degraded job: its stages, then its decode seen going down (in UTC, as
    `drawing_environment` sets)."""
    from tests.monitor import frozen
    from tests.monitor.tui_apps import frozen_app
    from tests.tui.scenarios import settle

    with tempfile.TemporaryDirectory() as tmp:
        app = frozen_app([frozen.degraded_with_events(Path(tmp) / "81234")], open_job="81234")
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await pilot.press("e")
            await settle(pilot)
            app.save_screenshot("monitor-events.svg", str(out))
    return [out / "monitor-events.svg"]


@dataclass(frozen=True)
class Group:
    """Pictures drawn together (one app, or apps that share their data): the files it writes, and how."""

    files: tuple[str, ...]
    draw: Callable[[tuple[int, int], Path], Awaitable[list[Path]]]


def _walk(vendor: str) -> Group:
    return Group(tuple(f"{vendor}-{step}.svg" for step in STEP_ORDER), lambda size, out: walk(vendor, size, out))


#: every picture, by group: the test draws each group on its own (spread over the suite's workers)
GROUPS: dict[str, Group] = {
    "nvidia": _walk("nvidia"),
    "amd": _walk("amd"),
    "invalid": Group(("invalid-topology.svg",), lambda size, out: shoot("invalid", "topology", size, out)),
    "monitor": Group(("monitor-jobs.svg", "monitor-nvidia-degraded.svg", "monitor-amd-healthy.svg"), shoot_monitor),
    "results": Group(("monitor-results.svg", "monitor-results-sweep.svg"), shoot_results),
    "alljobs": Group(("monitor-alljobs.svg",), shoot_alljobs),
    "logs": Group(("monitor-log-viewer.svg",), shoot_logs),
    "events": Group(("monitor-events.svg",), shoot_events),
    "setup": Group(("setup-proposal.svg",), shoot_setup),
}


async def draw(groups: list[str], size: tuple[int, int], out: Path) -> list[Path]:
    """Draw `groups` into `out`, one after another; the files written."""
    written = []
    for name in groups:
        written += await GROUPS[name].draw(size, out)
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size", default="x".join(map(str, SIZE)), help="terminal size WxH")
    parser.add_argument("--out", default=str(REPO / "screenshots"))
    parser.add_argument("--only", nargs="+", choices=list(GROUPS), default=list(GROUPS), help="these groups only")
    args = parser.parse_args()
    try:
        width, height = (int(x) for x in args.size.lower().split("x"))
    except ValueError:
        parser.error(f"--size {args.size!r}: give it as WxH, e.g. 120x36")
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="srt-shots-") as scratch, drawing_environment(Path(scratch)):
        written = asyncio.run(draw(args.only, (width, height), out))
    for path in written:
        print(path.relative_to(REPO) if path.is_relative_to(REPO) else path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
