"""How Monitor mode cancels jobs (injectable for tests); where it gets its snapshots is `srt_tui.monitor.feeds`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

#: cancels a job; may return the line to show the operator ("… already ended: nothing to cancel")
Canceller = Callable[[str, Path], "str | None"]


#: what cancels a job from the Monitor, as the job's end names it (`cancelled with the srt-tui Monitor at 12:03 UTC`)
BY_MONITOR = "the srt-tui Monitor"


def default_cancel(job_id: str, job_dir: Path) -> str:
    """Cancel a job the way `srt-tui cancel` does, recorded as the Monitor's; what happened, in one line."""
    from srt_tui.slurm.cancel import cancel_job

    return cancel_job(job_id, job_dir, by=BY_MONITOR).describe()
