"""Immutable monitor snapshots: what one refresh knows about a job, its workers and its router."""

from __future__ import annotations

from dataclasses import dataclass, field

#: lifecycle stages in order (DESIGN "Lifecycle stages"); terminal ones last
STAGES = (
    "submitted",
    "pending",
    "starting",
    "resolving nodes",
    "infra starting",
    "workers starting",
    "workers healthy",
    "router starting",
    "router ready",
    "benchmark",
    "serving",
    "completed",
    "failed",
    "cancelled",
    "timed out",
)
READY_STAGES = frozenset({"router ready", "benchmark", "serving"})
FINAL_STAGES = frozenset({"completed", "failed", "cancelled", "timed out"})


@dataclass(frozen=True)
class SourceState:
    """Health of one data source (slurm, job dir, http, relay): ok, or stale with the error."""

    name: str
    ok: bool
    error: str = ""
    age_s: float = 0.0


@dataclass(frozen=True)
class WorkerStatus:
    """One worker as observed: placement from the plan, health and counters from HTTP or the relay."""

    name: str
    role: str
    node_index: int
    gpus: tuple[int, ...]
    mask: str | None
    url: str | None
    health: str = "unknown"  # healthy | unhealthy | down | unknown
    detail: str = ""
    last_error_line: str = ""
    log: str = ""
    requests_total: float | None = None
    requests_ok: float | None = None
    requests_failed: float | None = None
    rate_per_s: float | None = None
    running: float | None = None
    queued: float | None = None


@dataclass(frozen=True)
class RouterStatus:
    """The router: expected vs registered workers per role, and its own counters."""

    type: str
    url: str | None
    up: bool | None = None
    expected: dict[str, int] = field(default_factory=dict)
    registered: dict[str, int] = field(default_factory=dict)
    healthy: dict[str, int] = field(default_factory=dict)
    requests: float | None = None
    errors: float | None = None
    retries: float | None = None
    detail: str = ""


@dataclass(frozen=True)
class JobSnapshot:
    """Everything one refresh knows about a job."""

    job_id: str
    job_dir: str
    name: str
    profile: str
    topology: str
    launcher: str
    slurm_state: str
    slurm_reason: str
    stage: str
    stage_time: str
    stage_detail: str
    workers: tuple[WorkerStatus, ...] = ()
    router: RouterStatus | None = None
    sources: tuple[SourceState, ...] = ()
    submitted_at: str = ""
    relayed: bool = False
    failure_log: str = ""

    @property
    def is_ready(self) -> bool:
        """The router has registered every worker (or the single worker serves)."""
        return self.stage in READY_STAGES

    @property
    def is_final(self) -> bool:
        """The job has ended."""
        return self.stage in FINAL_STAGES

    def healthy_counts(self) -> dict[str, tuple[int, int]]:
        """(healthy, total) workers per role."""
        out: dict[str, tuple[int, int]] = {}
        for w in self.workers:
            h, t = out.get(w.role, (0, 0))
            out[w.role] = (h + (w.health == "healthy"), t + 1)
        return out
