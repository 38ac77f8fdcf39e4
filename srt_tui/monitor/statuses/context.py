"""What one refresh works with: the job's files as read, and the monitor's state shared by the builders."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from srt_tui.core.jobdir.contract import CancelDoc, EndpointsDoc, JobMeta, Obj, PlanDoc
from srt_tui.core.plan.document import PlanExporter, PlanNginx, PlanRouter
from srt_tui.monitor.files.jobfiles import Event, FileCache
from srt_tui.monitor.probes.prom import SampleCache
from srt_tui.monitor.probes.sources import Source, Sources
from srt_tui.monitor.statuses.health_log import HealthLog
from srt_tui.monitor.statuses.history import CounterHistory
from srt_tui.monitor.statuses.serving import Parts


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a dict, else an empty one (job files are read defensively)."""
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class JobFiles:
    """The files of one job directory, as read at the start of a refresh (through the core's job
    directory contract: a file it cannot read is empty here and named in ``problems``)."""

    job_id: str
    dir: Path
    meta: JobMeta
    plan: PlanDoc
    endpoints: EndpointsDoc | None
    events: list[Event]
    #: one line per job file that could not be read (file, key, what was expected)
    problems: tuple[str, ...] = ()
    #: who wrote the directory: `srt-tui`, or `srtctl` (no job.json/plan.json: Slurm state and logs only)
    written_by: str = "srt-tui"
    #: cancel.json: srt-tui cancelled the job (by what, when); None when it did not
    cancel: CancelDoc | None = None

    @property
    def run_key(self) -> str:
        """This submission of the job: its id and submission time. Slurm reuses ids (a controller's state reset,
        MaxJobId wrapping), and a new job's counters and health history must not carry on the old one's."""
        return f"{self.job_id}@{self.meta.submitted_at}" if self.meta.submitted_at else self.job_id

    @property
    def router_endpoints(self) -> Obj:
        """endpoints.json's router section (empty without a router or before it is written)."""
        return (self.endpoints.router if self.endpoints else None) or {}

    def router_views(self) -> list[RouterView]:
        """Every router: plan.json's `routers` (srtctl's multi-frontend layout) or its one `router`,
        each with its endpoints.json entry once the job wrote it."""
        plans = self.plan.all_routers()
        eps = list(self.endpoints.routers if self.endpoints else ()) or [self.router_endpoints]
        return [RouterView(p, eps[i] if i < len(eps) else {}) for i, p in enumerate(plans)]

    @property
    def nginx_plan(self) -> PlanNginx | None:
        """plan.json's nginx in front of the routers (None when the job runs none)."""
        return self.plan.nginx

    def nginx_health_url(self) -> str | None:
        """nginx's /health (answered by a router behind it), once endpoints.json gives its address."""
        url = ((self.endpoints.nginx if self.endpoints else None) or {}).get("url")
        return f"{str(url).rstrip('/')}/health" if self.nginx_plan is not None and url else None

    def endpoint_workers(self) -> list[Obj]:
        """endpoints.json's workers."""
        return list(self.endpoints.workers) if self.endpoints else []

    def registration_url(self) -> str | None:
        """Where the (first) router's registrations are read (see RouterView.registration_url)."""
        views = self.router_views()
        return views[0].registration_url() if views else None

    @property
    def gpu_exporter(self) -> PlanExporter | None:
        """plan.json's GPU exporter block when the job launched one (None when it was only resolved)."""
        block = self.plan.gpu_exporter
        return block if block is not None and block.launched else None

    def gpu_exporter_urls(self) -> list[tuple[int, str]]:
        """(node index, URL) of each node's launched GPU exporter, from endpoints.json (node IPs resolved)."""
        if self.gpu_exporter is None:
            return []
        urls = self.endpoints.gpu_exporter_urls if self.endpoints else None
        if urls is None:
            return []
        return [(i, u) for i, u in enumerate(urls) if isinstance(u, str) and u.startswith("http://") and "<" not in u]

    def source_keys(self) -> list[str]:
        """Keys of every HTTP source of this job (workers, router registrations, router metrics)."""
        keys = [worker_key(str(w["health_url"])) for w in self.endpoint_workers() if w.get("health_url")]
        for view in self.router_views():
            reg = view.registration_url()
            if reg:
                keys.append(router_key(reg))
            if view.metrics_url:
                keys.append(router_metrics_key(view.metrics_url))
        nginx = self.nginx_health_url()
        if nginx:
            keys.append(nginx_key(nginx))
        return keys


@dataclass(frozen=True)
class RouterView:
    """One router as the job's files describe it: its plan.json entry and its endpoints.json entry."""

    plan: PlanRouter
    endpoints: Obj

    def registration_url(self) -> str | None:
        """Where its registrations are read: /workers (sglang/vllm-router) or /health (others)."""
        if self.plan.registration == "router-workers" and self.endpoints.get("workers_url"):
            return str(self.endpoints["workers_url"])
        if self.endpoints.get("url"):
            return str(self.endpoints["url"]).rstrip("/") + "/health"
        return None

    @property
    def metrics_url(self) -> str | None:
        """Its Prometheus listener, when it has one."""
        url = self.endpoints.get("metrics_url")
        return str(url) if url else None


def gpu_exporter_key(url: str) -> str:
    """Source key of one node's GPU exporter."""
    return f"gpu-exporter {url}"


def worker_key(health_url: str) -> str:
    """Source key of a worker endpoint."""
    return f"worker {health_url}"


def router_key(url: str) -> str:
    """Source key of a router's registration URL."""
    return f"router {url}"


def router_metrics_key(url: str) -> str:
    """Source key of a router's metrics URL."""
    return f"router-metrics {url}"


def nginx_key(url: str) -> str:
    """Source key of nginx's health URL (srtctl's multi-frontend layout)."""
    return f"nginx {url}"


@dataclass
class Refresh:
    """The monitor's state as the snapshot builders need it during one refresh."""

    sources: Sources
    files: FileCache
    samples: SampleCache
    history: CounterHistory
    wall: Callable[[], float]
    budget_s: float
    relay_fresh_s: float
    started: float
    now: float
    #: each worker's health changes (kept by the Monitor across refreshes)
    health: HealthLog = field(default_factory=HealthLog)
    #: each job's workers' serving readings of this refresh (summed into the job's by the snapshot)
    serving_parts: dict[str, list[Parts]] = field(default_factory=dict)

    def mono(self, wall: float) -> float:
        """A wall time (a file's mtime, an event's time) on the monotonic clock the history's samples use."""
        return self.now - (self.wall() - wall)

    def fresh(self, src: Source) -> bool:
        """The source answered during this refresh, or, for one read less often (`Source.every`), within that."""
        return src.ok_at is not None and (src.ok_at >= self.started or self.now - src.ok_at < src.every)

    def answered_now(self, src: Source) -> bool:
        """The source answered during this refresh (not merely within its `Source.every`)."""
        return src.ok and src.ok_at is not None and src.ok_at >= self.started

    def hanging(self, src: Source) -> bool:
        """An attempt has been running for longer than a refresh's budget."""
        return src.task is not None and src.pending_for(self.now) >= self.budget_s

    def unanswered(self, src: Source) -> bool:
        """No usable direct answer: the last attempt did not reach the host, or it hangs."""
        return self.hanging(src) or src.kind in ("timeout", "unreachable")

    def unanswered_since(self, src: Source) -> float | None:
        """When the newest ask that reached the process's node (or may have) went unanswered: the running attempt
        once it hangs, else the last failed one when it got no reply (`timeout`, `silent`); None when the last
        failure never reached the node (`unreachable`: it says nothing about the process) or none failed."""
        if self.hanging(src):
            return src.started_at
        return src.failed_asked_at if src.kind in ("timeout", "silent") else None

    def retry_note(self, src: Source) -> str:
        """`` (retry in N s)`` while the source backs off."""
        if src.task is None and src.next_at > self.now:
            return f" (retry in {src.next_at - self.now:.1f} s)"
        return ""
