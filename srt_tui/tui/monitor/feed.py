"""How Monitor mode cancels jobs (injectable for tests); where it gets its snapshots is `srt_tui.monitor.feeds`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

#: cancels a job; may return the line to show the operator ("… already ended: nothing to cancel")
Canceller = Callable[[str, Path], "str | None"]


def default_cancel(job_id: str, job_dir: Path) -> str:
    """Cancel a job the way `srt-tui cancel` does; what happened, in one line."""
    from srt_tui.slurm.cancel import cancel_job

    return cancel_job(job_id, job_dir).describe()
