"""Cancel a job the one way both faces do it: the local launcher for local jobs, else Slurm."""

from __future__ import annotations

from pathlib import Path

from .local import LocalLauncher, is_local_job


def cancel_job(job_id: str, job_dir: Path, transport: str | None = None) -> None:
    """Stop a job and every step of it (SlurmUnavailable when Slurm cannot be reached)."""
    if is_local_job(job_id):
        LocalLauncher().cancel(job_id, job_dir)
        return
    from .select import get_client

    get_client(transport).cancel(job_id)
