"""Is Slurm's job under an id the job a directory describes? Slurm reuses ids (a controller's state reset,
MaxJobId wrapping) and another cluster answers for the same number when SLURM_CONF points elsewhere: reading
or cancelling by the number alone would act on someone else's job."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from srt_tui.core.isotime import parse_time
from srt_tui.slurm.client import JobState

#: Slurm's submit time may follow job.json's `submitted_at` by this much (a held submission, a slow controller,
#: clocks of the login node and the controller apart); further apart, it is another submission
SUBMIT_SLACK_S = 900.0


def foreign_job(state: JobState, name: str, submitted_at: str) -> str:
    """Why Slurm's record under this id is not the job named ``name`` submitted at ``submitted_at`` (job.json's),
    or "" when it is, or when there is nothing to tell them apart by (a job Slurm does not know, no job.json)."""
    if not state.is_known:
        return ""
    parsed = parse_time(submitted_at)
    when = parsed.timestamp() if parsed is not None else None
    other_name = bool(name and state.name and state.name != name)
    other_time = when is not None and state.submit_time is not None and abs(state.submit_time - when) > SUBMIT_SLACK_S
    if not (other_name or other_time):
        return ""
    seen = f"`{state.name}`" if state.name else "unnamed"
    if state.submit_time is not None:
        seen += f", submitted {datetime.fromtimestamp(state.submit_time, timezone.utc):%Y-%m-%d %H:%M:%SZ}"
    return (
        f"Slurm's job {state.job_id} is another job ({seen}), not `{name or '?'}` submitted {submitted_at or '?'}: "
        "Slurm reused the id, or SLURM_CONF is not the cluster this job ran on"
    )


def foreign_in_dir(state: JobState, job_dir: Path) -> str:
    """`foreign_job` against the job.json in ``job_dir`` ("" without one: a directory srt-tui did not write)."""
    from srt_tui.core.jobdir.contract import JobDirError, read_job_meta

    try:
        meta = read_job_meta(job_dir)
    except JobDirError:
        return ""
    return foreign_job(state, meta.name, meta.submitted_at)
