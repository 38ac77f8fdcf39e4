"""Frozen rows of the all-jobs view (A) for its tests, snapshots and the README screenshot: a running srtctl
job, a plain `sbatch --wrap` job, a pending one, an ended srt-tui job and one hidden from the start."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from srt_tui.core.jobdir.discovery import SRT_TUI, SRTCTL, FoundDir
from srt_tui.monitor.alljobs.query import MyJob
from srt_tui.monitor.feeds.live import LiveFeed
from srt_tui.monitor.model import JobSnapshot
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.slurm.client import JobState
from srt_tui.tui.context import ContextHub
from srt_tui.tui.monitor.alljobs.source import FrozenJobsSource, JobsSource
from srt_tui.tui.monitor.screen import MonitorScreen
from tests.monitor import frozen
from tests.monitor.tui_apps import MonitorTestApp

T0 = int(frozen.NOW.timestamp())


def job(job_id: str, name: str, state: str, **kw: Any) -> JobState:
    """A row as `squeue -O` gives it (times relative to the frozen clock)."""
    return JobState(job_id=job_id, name=name, state=state, partition="gpu", user="ann", **kw)


def rows(srtctl_dir: Path | None = None) -> list[MyJob]:
    """The five jobs, in squeue's order (``srtctl_dir``: a real srtctl output directory for job 81301)."""
    srtctl = Path("/lustre/ann/srt-slurm/outputs/81301") if srtctl_dir is None else srtctl_dir
    running = {"nodes": ("node1", "node2"), "node_count": 2, "start_time": T0 - 3725}
    plain = {"nodes": ("node3",), "node_count": 1, "start_time": T0 - 42, "work_dir": "/home/ann",
             "stdout": "/home/ann/slurm-81302.out"}  # fmt: skip
    ended = {"nodes": ("node1",), "node_count": 1, "start_time": T0 - 900, "end_time": T0 - 300}
    return [
        MyJob(job("81301", "dsr1-fp8-1p1d", "RUNNING", **running), FoundDir(srtctl, SRTCTL)),
        MyJob(job("81302", "sleep-wrap", "RUNNING", **plain)),
        MyJob(job("81303", "big-sweep-member", "PENDING", reason="Resources", node_count=4)),
        MyJob(job("81290", "qwen3-agg", "COMPLETED", **ended), FoundDir(Path("/home/ann/outputs/81290"), SRT_TUI)),
        MyJob(job("81200", "old-cancelled", "CANCELLED", reason="Resources"), None, hidden=True),
    ]


#: `scontrol show job 81302`'s fields (81303's are not given: Slurm no longer knows it)
FACTS = {"81302": {"JobId": "81302", "JobName": "sleep-wrap", "UserId": "ann(1000)", "JobState": "RUNNING",
                   "Command": "(null)", "WorkDir": "/home/ann", "StdOut": "/home/ann/slurm-81302.out"}}  # fmt: skip


def source() -> FrozenJobsSource:
    """The frozen rows and facts."""
    return FrozenJobsSource("ann", rows(), FACTS)


def app_with(jobs: JobsSource, *, snaps: Sequence[JobSnapshot] = (), live: bool = False) -> MonitorTestApp:
    """The real app on Monitor mode with the all-jobs rows injected; `live`: the real monitor reads job dirs."""

    def make(hub: ContextHub) -> MonitorScreen:
        if live:
            feed = LiveFeed(monitor_factory=lambda: Monitor(None, budget_s=0.5))
            return MonitorScreen(hub, feed, discover=False, poll_interval=0.2, jobs_source=jobs)
        return MonitorScreen(hub, snapshots=snaps, discover=False, poll_interval=None, jobs_source=jobs)

    return MonitorTestApp(make)
