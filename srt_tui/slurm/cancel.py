"""Cancel a job the one way both faces do it: the local launcher for local jobs, else Slurm."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .client import UNKNOWN_STATE, JobState
from .local import LocalLauncher, is_local_job


@dataclass(frozen=True)
class CancelOutcome:
    """What a cancel did: `cancelled`, or nothing because the job had ended or Slurm does not know it."""

    job_id: str
    cancelled: bool
    state: str = ""

    @property
    def known(self) -> bool:
        """False when Slurm has no record of the job (a mistyped id, or one purged long after it ended)."""
        return self.cancelled or self.state != UNKNOWN_STATE

    def describe(self) -> str:
        """One line for the operator."""
        if self.cancelled:
            return f"cancelled {self.job_id}"
        if not self.known:
            return f"{self.job_id}: Slurm does not know this job (ended long ago, or a mistyped id): nothing to cancel"
        return f"{self.job_id} already ended ({self.state}): nothing to cancel"


def cancel_job(job_id: str, job_dir: Path, transport: str | None = None) -> CancelOutcome:
    """Stop a job and every step of it (SlurmUnavailable when Slurm cannot be reached).

    Slurm's `scancel` exits 0 for an unknown or finished job, so the state is asked first: the
    operator is told when there was nothing to cancel instead of reading "cancelled".
    """
    if is_local_job(job_id):
        launcher = LocalLauncher()
        local = launcher.state(job_id, job_dir)
        if local.is_terminal or not local.is_known:  # `cancel` twice: "already ended (CANCELLED)", not "cancelled"
            return CancelOutcome(job_id, False, local.state)
        launcher.cancel(job_id, job_dir)
        return CancelOutcome(job_id, True, local.state)
    from .select import get_client

    client = get_client(transport)
    state = client.query([job_id]).get(job_id, JobState.unknown(job_id))
    if state.is_terminal or not state.is_known:
        return CancelOutcome(job_id, False, state.state)
    client.cancel(job_id)
    return CancelOutcome(job_id, True, state.state)
