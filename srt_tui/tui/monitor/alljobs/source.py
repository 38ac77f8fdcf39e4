"""Where the all-jobs view gets its rows and a job's Slurm facts: the live cluster, or frozen rows (tests,
screenshots). Both are blocking calls, made from worker threads only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from srt_tui.monitor.alljobs.query import MyJob, MyJobs

if TYPE_CHECKING:
    from srt_tui.slurm.client import SlurmClient

#: seconds a Slurm command may take here before the view says Slurm did not answer
SLURM_TIMEOUT_S = 10.0


class JobsSource(Protocol):
    """The user's jobs, and one job's facts (``scontrol show job``'s fields; SlurmError when Slurm cannot say)."""

    def list_jobs(self) -> MyJobs:
        """One user-scoped refresh; Slurm failing is in ``MyJobs.error``, never raised."""
        ...

    def facts(self, job_id: str) -> dict[str, str]:
        """Every field Slurm reports for the job."""
        ...


class LiveJobsSource:
    """The real cluster through the chosen transport (picked on first use, with a short timeout)."""

    def __init__(self, transport: str | None = None, user: str | None = None) -> None:
        self._transport = transport
        self._user = user
        self._client: SlurmClient | None = None

    def _get(self) -> SlurmClient:
        from srt_tui.slurm.select import get_client

        if self._client is None:
            self._client = get_client(self._transport, require_reachable=False, timeout=SLURM_TIMEOUT_S)
        return self._client

    def list_jobs(self) -> MyJobs:
        """The user's jobs with their output directories and hidden flags."""
        from srt_tui.monitor.alljobs.query import current_user, my_jobs
        from srt_tui.state.hidden import hidden_jobs
        from srt_tui.state.jobindex import known_jobs

        user = self._user or current_user()
        try:
            client = self._get()
        except Exception as exc:  # no transport at all (no Slurm commands, no pyslurm): said in the view
            return MyJobs(user, (), str(exc))
        return my_jobs(client, user, hidden_jobs(), known_jobs())

    def facts(self, job_id: str) -> dict[str, str]:
        """``scontrol show job -o ID``'s fields."""
        return self._get().show_job(job_id)


class FrozenJobsSource:
    """Fixed rows and facts (tests and screenshots); counts the refreshes asked for."""

    def __init__(self, user: str, jobs: Sequence[MyJob], facts: Mapping[str, Mapping[str, str]] | None = None,
                 error: str = "") -> None:  # fmt: skip
        self.user = user
        self.jobs = tuple(jobs)
        self._facts = {k: dict(v) for k, v in (facts or {}).items()}
        self.error = error
        self.calls = 0

    def list_jobs(self) -> MyJobs:
        """The frozen rows (their hidden flags as given)."""
        self.calls += 1
        return MyJobs(self.user, self.jobs, self.error)

    def facts(self, job_id: str) -> dict[str, str]:
        """The frozen facts of the job (SlurmError when none were given: Slurm no longer knows it)."""
        from srt_tui.slurm.errors import SlurmError

        if job_id not in self._facts:
            raise SlurmError(f"slurm_load_jobs error: Invalid job id specified ({job_id})")
        return self._facts[job_id]
