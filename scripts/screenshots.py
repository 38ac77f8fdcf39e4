"""Regenerate screenshots/*.svg from the app itself: the launch wizard, the Monitor and the Setup mode.

    python scripts/screenshots.py [--size 120x36] [--out screenshots]

The app runs headless with a fixed clock, no cursor blink, no animation, an isolated config directory
and a fixed "Slurm unreachable" answer, so the pictures do not depend on this host. The Monitor is
fed the frozen NVIDIA/AMD job snapshots and Setup the recorded probe run that the tests use.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # the Monitor and Setup pictures reuse the tests' frozen data


async def shoot(vendor: str, step: str, size: tuple[int, int], out: Path) -> Path:
    """One picture: drive a fresh app to `step` and save its SVG."""
    from srt_tui.tui.app import SrtTuiApp
    from tests.tui.scenarios import SCENARIOS, reach

    scenario = SCENARIOS[vendor]
    app = SrtTuiApp(
        profile=scenario.profile,
        clock=lambda: datetime(2026, 1, 2, 3, 4, 5),
        slurm_probe=lambda: (False, "sinfo: command not found"),
        cursor_blink=False,
    )
    app.animation_level = "none"
    name = f"{vendor}-{step}.svg"
    async with app.run_test(size=size) as pilot:
        await reach(pilot, scenario, step, typed=False)
        app.save_screenshot(name, str(out))
    return out / name


async def shoot_other_modes(size: tuple[int, int], out: Path) -> list[Path]:
    """Monitor (jobs table, a degraded NVIDIA job, a healthy AMD job, Results views, all my Slurm jobs, the
    log viewer, events) and Setup (probe results)."""
    from tests.monitor import frozen
    from tests.monitor.tui_apps import frozen_app
    from tests.setup.recorded import setup_app
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
    written += await shoot_results(size, out)
    written.append(await shoot_alljobs(size, out))
    written.append(await shoot_logs(size, out))
    written.append(await shoot_events(size, out))
    app = setup_app()
    async with app.run_test(size=size) as pilot:
        await pilot.click("#run-probes")
        await settle(pilot)
        await pilot.press(*["down"] * 7)  # onto visible_devices_env: its evidence shows on the right
        await pilot.pause()
        app.save_screenshot("setup-proposal.svg", str(out))
    written.append(out / "setup-proposal.svg")
    return written


async def shoot_alljobs(size: tuple[int, int], out: Path) -> Path:
    """All my Slurm jobs (`A`): srt-tui's and srtctl's jobs beside a plain sbatch job, from frozen rows."""
    from tests.monitor import alljobs_frozen, frozen
    from tests.tui.scenarios import settle

    app = alljobs_frozen.app_with(alljobs_frozen.source(), snaps=frozen.fleet())
    async with app.run_test(size=size) as pilot:
        await pilot.press("A")
        await settle(pilot)
        app.save_screenshot("monitor-alljobs.svg", str(out))
    return out / "monitor-alljobs.svg"


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


async def shoot_logs(size: tuple[int, int], out: Path) -> Path:
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
    return out / "monitor-log-viewer.svg"


async def shoot_events(size: tuple[int, int], out: Path) -> Path:
    """The events view (`e`) of a degraded job: its stages, then its decode seen going down."""
    import os
    import time

    from tests.monitor import frozen
    from tests.monitor.tui_apps import frozen_app
    from tests.tui.scenarios import settle

    os.environ["TZ"] = "UTC"  # the view says local time: the same drawing on every machine
    time.tzset()
    with tempfile.TemporaryDirectory() as tmp:
        app = frozen_app([frozen.degraded_with_events(Path(tmp) / "81234")], open_job="81234")
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await pilot.press("e")
            await settle(pilot)
            app.save_screenshot("monitor-events.svg", str(out))
    return out / "monitor-events.svg"


async def main_async(size: tuple[int, int], out: Path) -> list[Path]:
    from tests.tui.scenarios import STEP_ORDER

    written = []
    for vendor in ("nvidia", "amd"):
        for step in STEP_ORDER:
            written.append(await shoot(vendor, step, size, out))
    written.append(await shoot("invalid", "topology", size, out))
    written += await shoot_other_modes(size, out)
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="120x36", help="terminal size WxH")
    parser.add_argument("--out", default=str(REPO / "screenshots"))
    args = parser.parse_args()
    width, height = (int(x) for x in args.size.lower().split("x"))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    os.environ["TEXTUAL_ANIMATIONS"] = "none"
    os.environ["SRT_TUI_CONFIG_DIR"] = tempfile.mkdtemp(prefix="srt-shots-")
    os.environ.pop("SRTSLURM_CONFIG", None)
    os.environ["SRT_TUI_LOGIN_HOST"] = "me@login"  # the job view's ssh line, the same on every machine
    os.chdir(tempfile.mkdtemp(prefix="srt-shots-cwd-"))
    for path in asyncio.run(main_async((width, height), out)):
        print(path.relative_to(REPO) if path.is_relative_to(REPO) else path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
