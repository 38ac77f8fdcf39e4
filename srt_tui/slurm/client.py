"""The SlurmClient protocol and the immutable records every transport returns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

#: Job states after which nothing more happens to the job.
TERMINAL_STATES: frozenset[str] = frozenset(
    {
        "COMPLETED",
        "FAILED",
        "CANCELLED",
        "TIMEOUT",
        "NODE_FAIL",
        "PREEMPTED",
        "BOOT_FAIL",
        "DEADLINE",
        "OUT_OF_MEMORY",
        "SPECIAL_EXIT",
        "REVOKED",
    }
)
#: Job states of a job that is still queued or running.
ACTIVE_STATES: frozenset[str] = frozenset(
    {
        "PENDING",
        "RUNNING",
        "SUSPENDED",
        "COMPLETING",
        "CONFIGURING",
        "REQUEUED",
        "REQUEUE_HOLD",
        "REQUEUE_FED",
        "RESIZING",
        "RESV_DEL_HOLD",
        "SIGNALING",
        "STAGE_OUT",
        "STOPPED",
    }
)
#: Ended states whose reason says why the job ended; any other state's reason is a stale wait reason
#: (a pending job cancelled keeps `Resources`), worth showing only while the job is PENDING.
ENDED_WITH_REASON: frozenset[str] = frozenset(
    {"FAILED", "NODE_FAIL", "TIMEOUT", "OUT_OF_MEMORY", "BOOT_FAIL", "PREEMPTED", "DEADLINE"}
)
#: The state reported for a job id Slurm does not know (never submitted, or purged after MinJobAge).
UNKNOWN_STATE = "UNKNOWN"


@dataclass(frozen=True)
class JobState:
    """One job as Slurm reports it, normalised across Slurm versions and transports."""

    job_id: str
    name: str
    state: str
    reason: str = ""
    nodes: tuple[str, ...] = ()
    node_count: int = 0
    exit_code: int | None = None
    exit_signal: int | None = None
    submit_time: int | None = None
    start_time: int | None = None
    end_time: int | None = None
    time_limit: int | None = None
    #: a pending job's expected start (Unix time), when the scheduler estimated one (`squeue --start`)
    expected_start: int | None = None
    partition: str = ""
    work_dir: str = ""
    #: who submitted it, and its stdout file with Slurm's %-patterns expanded (empty when not asked for)
    user: str = ""
    stdout: str = ""

    @classmethod
    def unknown(cls, job_id: str) -> JobState:
        """The record for a job id that Slurm does not (or no longer) know."""
        return cls(job_id=job_id, name="", state=UNKNOWN_STATE)

    @property
    def is_terminal(self) -> bool:
        """True once the job has ended (completed, failed, cancelled, timed out, ...)."""
        return self.state in TERMINAL_STATES

    @property
    def is_active(self) -> bool:
        """True while the job is queued or running."""
        return self.state in ACTIVE_STATES

    @property
    def reason_worth_showing(self) -> str:
        """Slurm's reason while the job waits, or why it ended; '' for a stale wait reason."""
        if self.state == "PENDING" or self.state in ENDED_WITH_REASON:
            return "" if self.reason == "None" else self.reason
        return ""

    @property
    def is_known(self) -> bool:
        """False when Slurm did not report the job at all."""
        return self.state != UNKNOWN_STATE


@dataclass(frozen=True)
class NodeInfo:
    """One compute node: capacity, GPUs (count and type from its GRES), partitions, address."""

    name: str
    state: str
    cpus: int = 0
    memory_mb: int = 0
    gres: str = ""
    gpus: int = 0
    gpu_type: str | None = None
    partitions: tuple[str, ...] = ()
    address: str = ""


@dataclass(frozen=True)
class PartitionInfo:
    """One partition: its nodes (expanded), size, default flag and time limit in minutes."""

    name: str
    state: str
    nodes: tuple[str, ...] = ()
    total_nodes: int = 0
    total_cpus: int = 0
    is_default: bool = False
    max_time: int | None = None


@dataclass(frozen=True)
class ControllerInfo:
    """What slurmctld says about itself: its Slurm version and the cluster's name."""

    version: str
    cluster_name: str | None = None


@runtime_checkable
class SlurmClient(Protocol):
    """What srt-tui needs from Slurm, behind one protocol so the TUI never cares which transport runs."""

    # Declared capabilities: ``name`` ("cli", "pyslurm"); ``supports_json``: reads Slurm's JSON output;
    # ``in_process``: talks to slurmctld from this process (no subprocess); ``last_error``: the
    # operator-facing reason of the last failed ``ping``; ``submit_note``: how the last job was submitted
    # when it was not the transport's own way (pyslurm sends a job it cannot express through sbatch).

    name: str
    supports_json: bool
    in_process: bool
    last_error: str | None
    submit_note: str

    def submit(
        self,
        script_path: Path,
        workdir: Path,
        extra_env: Mapping[str, str] | None = None,
        *,
        hold: bool = False,
        output: str | None = None,
        directives: Sequence[tuple[str, str | None]] | None = None,
    ) -> str:
        """Submit a batch script to run in ``workdir`` (held if ``hold``; ``output`` may use %j); return the job id.

        ``directives``: the ``#SBATCH --key[=value]`` pairs srt-tui rendered into the script (a transport
        that does not read the script, pyslurm, submits these; None: read from the script)."""
        ...

    def release(self, job_id: str) -> None:
        """Release a job submitted with ``hold=True`` so it can be scheduled."""
        ...

    def query(self, job_ids: Sequence[str]) -> dict[str, JobState]:
        """The state of every given job in ONE Slurm call; unknown ids map to ``JobState.unknown``."""
        ...

    def cancel(self, job_id: str) -> None:
        """Cancel a job (no error if it has already ended)."""
        ...

    def user_jobs(self, user: str) -> list[JobState]:
        """Every job of ``user`` slurmctld still holds (queued, running, recently ended), with its work
        dir and stdout path, plus the recent ended ones accounting remembers where it runs."""
        ...

    def show_job(self, job_id: str) -> dict[str, str]:
        """Every field Slurm reports for one job, in ``scontrol show job``'s names (Key -> Value)."""
        ...

    def partitions(self) -> list[PartitionInfo]:
        """All partitions of the cluster."""
        ...

    def nodes(self) -> list[NodeInfo]:
        """All nodes of the cluster, one record per node."""
        ...

    def controller_info(self) -> ControllerInfo:
        """The controller's Slurm version and cluster name (one call; SlurmUnavailable when it is down)."""
        ...

    def test_submit(self, options: Sequence[str]) -> str | None:
        """Would Slurm accept a job with these sbatch options (``sbatch --test-only``)? None if so,
        else Slurm's reason."""
        ...

    def accounts(self, user: str) -> list[str] | None:
        """The accounts ``user`` may charge (Slurm accounting); None when this cluster cannot tell."""
        ...

    def ping(self) -> bool:
        """True if slurmctld answers; on False ``last_error`` says why."""
        ...
