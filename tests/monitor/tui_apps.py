"""The real SrtTuiApp opened on Monitor mode, fed frozen snapshots (no polling, fixed clock), and the frozen feed."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from srt_tui.monitor.feeds import SnapshotFeed
from srt_tui.monitor.model import JobSnapshot
from srt_tui.tui.app import SrtTuiApp
from srt_tui.tui.context import ContextHub
from srt_tui.tui.monitor.feed import Canceller
from srt_tui.tui.monitor.screen import MonitorScreen
from tests.monitor.frozen import fixed_clock

if TYPE_CHECKING:
    from tests.mock.mockprocs import Worker


class MonitorTestApp(SrtTuiApp):
    """SrtTuiApp starting in Monitor mode with an injected screen; `screen_factory` builds it."""

    DEFAULT_MODE = "monitor"

    def __init__(
        self,
        screen_factory: Callable[[ContextHub], MonitorScreen],
        *,
        read_only: bool = False,
        clock: Callable[[], datetime] = fixed_clock,
    ) -> None:
        super().__init__(
            read_only=read_only,
            clock=clock,
            check_slurm=False,
            cursor_blink=False,
            screens={"monitor": screen_factory},
        )
        self.animation_level = "none"


def frozen_app(
    snaps: Sequence[JobSnapshot],
    *,
    read_only: bool = False,
    canceller: Canceller | None = None,
    open_job: str | None = None,
    clock: Callable[[], datetime] = fixed_clock,
) -> MonitorTestApp:
    """An app showing ``snaps`` as they are (never polling); optionally with one job opened; ``clock``: the app's (a
    test that lets time pass hands in its own)."""

    def make(hub: ContextHub) -> MonitorScreen:
        screen = MonitorScreen(hub, snapshots=snaps, canceller=canceller, discover=False, poll_interval=None)
        if open_job is not None:
            screen.call_after_refresh(screen.open_job, open_job)
        return screen

    return MonitorTestApp(make, read_only=read_only, clock=clock)


def fed_app(feed: SnapshotFeed, jobs: dict[str, Path], *, interval: float = 0.2,
            canceller: Canceller | None = None) -> MonitorTestApp:  # fmt: skip
    """An app polling ``feed`` for ``jobs`` every ``interval`` seconds."""
    return MonitorTestApp(
        lambda hub: MonitorScreen(hub, feed, jobs=jobs, canceller=canceller, discover=False, poll_interval=interval)
    )


@contextlib.contextmanager
def live_agg_app(tmp_path: Path, job_id: str) -> Iterator[tuple[MonitorTestApp, Worker, Path]]:
    """Real parts: the real Monitor polling every 0.2 s a job of one real mock worker (its directory written as
    the launch side writes it); the app, the worker (to stop it) and the job directory."""
    from srt_tui.monitor.feeds.live import LiveFeed
    from srt_tui.monitor.snapshot.collect import Monitor
    from tests.mock.mockprocs import Launcher
    from tests.monitor.jobdirs import write_agg_job

    launcher = Launcher(tmp_path)
    try:
        (worker,) = launcher.workers(("regular", "agg_0"))
        job_dir = write_agg_job(tmp_path / "job", job_id, [(worker, 0)], nodes=1)
        feed = LiveFeed(monitor_factory=lambda: Monitor(None, connect_timeout=0.5, budget_s=0.5, backoff_cap=0.5))
        yield fed_app(feed, {job_id: job_dir}, interval=0.2), worker, job_dir
    finally:
        launcher.close()


async def until_healthy(pilot: Any, screen: MonitorScreen, job_id: str, tries: int = 50) -> None:
    """Until the Monitor has seen the job's first worker healthy (or `tries` tenths of a second)."""
    for _ in range(tries):
        await pilot.pause(0.1)
        snap = screen.snapshot_of(job_id)
        if snap is not None and snap.workers and snap.workers[0].health == "healthy":
            return


class FrozenFeed:
    """Always the same snapshots (tests, screenshots and replays); records how often it was asked."""

    def __init__(self, snapshots: Sequence[JobSnapshot]) -> None:
        self.snapshots = list(snapshots)
        self.calls = 0

    async def refresh(self, jobs: Mapping[str, Path]) -> list[JobSnapshot]:
        """The frozen snapshots of the tracked jobs (all of them when none is tracked)."""
        self.calls += 1
        return [s for s in self.snapshots if s.job_id in jobs] if jobs else list(self.snapshots)

    async def aclose(self) -> None:
        """Nothing to release."""


async def highlighted_worker_detail(snap: JobSnapshot) -> str:
    """The worker detail's text for the worker the job view's cursor is on (a failed job: the one that failed it)."""
    from textual.widgets import DataTable, Static

    from srt_tui.tui.monitor.worker_detail import WorkerDetail

    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        app.screen.query_one("#job-workers", DataTable).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, WorkerDetail)
        return str(app.screen.query_one("#worker-detail-text", Static).render())


async def router_panel_text(snap: JobSnapshot, width: int = 80) -> str:
    """What the job view's router panel draws for ``snap`` (opened in a frozen app), as plain text ``width`` wide."""
    from rich.console import Console

    from srt_tui.tui.monitor.router_panel import RouterPanel

    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        console = Console(width=width, record=True, color_system=None)
        console.print(app.screen.query_one(RouterPanel).render())
        return console.export_text()
