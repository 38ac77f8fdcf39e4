"""The Monitor: one refresh = at most one batched Slurm query, the job directories, and async HTTP
probes of every worker, router and GPU exporter, all concurrent.

Every source is fetched as its own task (`sources.Sources`): a failing one is shown as stale with its
error and retried with back-off, and one that does not answer within the refresh budget keeps running
in the background while the refresh returns with what everyone else said. When the login node cannot
reach the nodes, what the job relays into its directory is shown instead, marked as relayed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path

from srt_tui.core.jobdir.contract import (
    CANCEL_FILE,
    ENDPOINTS_FILE,
    JOB_FILE,
    PLAN_FILE,
    CancelDoc,
    EndpointsDoc,
    JobDirError,
    JobMeta,
    PlanDoc,
    parse_cancel,
    parse_endpoints,
    parse_job_meta,
    parse_plan,
)
from srt_tui.core.jobdir.discovery import SRTCTL, dir_kind
from srt_tui.monitor.files.jobfiles import FileCache
from srt_tui.monitor.model import FINAL_STAGES, JobSnapshot, SourceState
from srt_tui.monitor.probes.http import HttpFailure, Origin, ProbeClient, Response
from srt_tui.monitor.probes.prom import SampleCache
from srt_tui.monitor.probes.sources import Source, Sources
from srt_tui.monitor.snapshot.build import build_snapshot
from srt_tui.monitor.snapshot.frozen import FrozenJobs, Stamp
from srt_tui.monitor.statuses.context import (
    JobFiles,
    Refresh,
    RouterView,
    gpu_exporter_key,
    nginx_key,
    router_key,
    router_metrics_key,
    worker_key,
)
from srt_tui.monitor.statuses.gpus import scrape_targets
from srt_tui.monitor.statuses.health_log import HealthLog
from srt_tui.monitor.statuses.history import CounterHistory
from srt_tui.monitor.statuses.router import registrations
from srt_tui.monitor.statuses.srtctl_dir import srtctl_job
from srt_tui.monitor.statuses.stage import derive_stage
from srt_tui.monitor.statuses.workers import WorkerProbe
from srt_tui.slurm.client import JobState, SlurmClient
from srt_tui.slurm.local import LocalLauncher, is_local_job

__all__ = ["Monitor", "derive_stage"]
RELAY_FRESH_S = 30.0
#: how often a steady router's registrations are read (`Monitor._steady`): each read is a line or two of the
#: router's log, and at every refresh the Monitor's `GET /workers` were 80 of its 182 lines after a minute
STEADY_REGISTRATIONS_S = 15.0


class Monitor:
    """Builds JobSnapshots. Reuse one instance: connections, back-off, file caches and counter history
    live across refreshes (a rate needs two refreshes). Not thread-safe; use it from one event loop."""

    def __init__(
        self,
        slurm: SlurmClient | None,
        http_timeout: float = 2.0,
        *,
        connect_timeout: float = 1.0,
        budget_s: float = 1.5,
        backoff_base: float = 0.5,
        backoff_cap: float = 8.0,
        relay_fresh_s: float = RELAY_FRESH_S,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        slurm_down: str | None = None,
        history: CounterHistory | None = None,
    ) -> None:
        self.slurm = slurm
        #: why no Slurm transport could be set up (shown instead of a bare "no transport")
        self.slurm_down = slurm_down
        self.local = LocalLauncher()
        self.http = ProbeClient(http_timeout, connect_timeout)
        self.clock = clock
        self.wall = wall
        self.budget_s = budget_s
        self.relay_fresh_s = relay_fresh_s
        self.sources = Sources(clock, backoff_base, backoff_cap)
        self.files = FileCache()
        self.samples = SampleCache()
        #: counter samples: the rates' and serving figures' window (``history``: one kept by the caller across
        #: Monitors, as `status --watch` keeps it across its refreshes)
        self.history = history if history is not None else CounterHistory()
        self.health = HealthLog()
        #: ended jobs' last snapshots, reused while their files are unchanged
        self.frozen = FrozenJobs()
        #: the job directories the file cache was last trimmed to
        self._forgot_for: set[Path] = set()
        #: Slurm queries started so far (one per refresh at most)
        self.slurm_queries = 0
        self.refreshes = 0

    async def aclose(self) -> None:
        """Cancel running fetches and close pooled connections."""
        self.sources.close()
        self.http.close()

    # -- fetches ------------------------------------------------------------------------------------

    async def _query_slurm(self, ids: list[str]) -> dict[str, JobState]:
        assert self.slurm is not None
        self.slurm_queries += 1
        return await asyncio.to_thread(self.slurm.query, ids)

    async def _probe_worker(self, health_url: str, metrics_url: str | None) -> WorkerProbe:
        """/health and /metrics of one worker, pipelined on one connection when they share an origin."""
        h = Origin.parse(health_url)
        m = Origin.parse(metrics_url) if metrics_url else None
        if m is not None and (m.host, m.port) == (h.host, h.port):
            health, metrics = await self.http.get_many(h.host, h.port, [h.path, m.path])
            return WorkerProbe(health.status, metrics.text() if metrics.status == 200 else None)
        (health,) = await self.http.get_many(h.host, h.port, [h.path])
        text = None
        if m is not None:
            (resp,) = await self.http.get_many(m.host, m.port, [m.path])
            text = resp.text() if resp.status == 200 else None
        return WorkerProbe(health.status, text)

    def _want_http(self, job: JobFiles, now: float) -> None:
        for w in job.endpoint_workers():
            if w.get("health_url"):
                metrics = w.get("metrics_url")
                fetch = partial(self._probe_worker, str(w["health_url"]), str(metrics) if metrics else None)
                self.sources.want(worker_key(str(w["health_url"])), fetch, now)
        for view in job.router_views():
            reg = view.registration_url()
            if reg:
                every = STEADY_REGISTRATIONS_S if self._steady(job, view, reg) else 0.0
                self.sources.want(router_key(reg), partial(self.http.get, reg), now, every)
            if view.metrics_url:
                self.sources.want(router_metrics_key(view.metrics_url), partial(self.http.get, view.metrics_url), now)
        nginx = job.nginx_health_url()
        if nginx:
            self.sources.want(nginx_key(nginx), partial(self.http.get, nginx), now)
        for _, url in scrape_targets(job)[1]:
            self.sources.want(gpu_exporter_key(url), partial(self._scrape, url), now)

    def _steady(self, job: JobFiles, view: RouterView, reg: str) -> bool:
        """The router's last registrations were the plan's, all healthy, its Prometheus port (read at every
        refresh, and not logged) answers, and every worker answers healthy: nothing to watch for on
        `GET /workers` until one of these changes. A router without a metrics port is read at every refresh."""
        src = self.sources.get(router_key(reg))
        if not src.ok or not isinstance(src.value, Response) or not view.metrics_url:
            return False
        metrics = self.sources.get(router_metrics_key(view.metrics_url))
        if not metrics.ok or metrics.task is not None:  # failing, or slow to answer: read /workers as well
            return False
        expected = {k: n for k, n in view.plan.expected.items() if n}
        regs, _ = registrations(view.plan.registration, src.value.status, src.value.body, "prefill" in expected)
        if regs is None or regs.registered != expected or regs.healthy != expected:
            return False
        for w in job.endpoint_workers():
            probe = self.sources.get(worker_key(str(w.get("health_url") or "")))
            if not probe.ok or not isinstance(probe.value, WorkerProbe) or probe.value.health != 200:
                return False
        return True

    async def _scrape(self, url: str) -> str:
        """A Prometheus exporter's text; any status but 200 is a failure (the last good text stays shown)."""
        resp = await self.http.get(url)
        if resp.status != 200:
            raise HttpFailure("http", f"{Origin.parse(url).path} answered HTTP {resp.status}")
        return resp.text()

    # -- refresh ------------------------------------------------------------------------------------

    def _read_job_or_say(self, job_id: str, job_dir: Path) -> JobFiles:
        """`_read_job`, or (whatever went wrong reading this one job) a job that says so: one damaged
        directory never empties the list of every other job."""
        try:
            return self._read_job(job_id, job_dir)
        except Exception as exc:  # noqa: BLE001 - shown as the job's problem, the others still read
            problem = f"cannot be read ({type(exc).__name__}: {exc})"
            return JobFiles(job_id, job_dir, JobMeta(job_id), PlanDoc(), None, [], (problem,))

    def _read_job(self, job_id: str, job_dir: Path) -> JobFiles:
        """The job's files through the core's contract; what cannot be read is said, not guessed."""
        f = self.files
        problems: list[str] = []
        meta = f.doc(job_dir / JOB_FILE, parse_job_meta)
        plan = f.doc(job_dir / PLAN_FILE, parse_plan)
        if meta is None and plan is None and dir_kind(job_dir, job_id) == SRTCTL:
            return srtctl_job(job_id, job_dir, f)
        endpoints = f.doc(job_dir / ENDPOINTS_FILE, parse_endpoints)
        cancel = f.doc(job_dir / CANCEL_FILE, parse_cancel)
        if is_local_job(job_id):  # the launcher reads local.json itself (bounded): a pipe there is named
            f.check(job_dir / "local.json")
        for got in (meta, plan, endpoints, cancel):
            if isinstance(got, JobDirError):
                problems.append(got.short)
        if plan is None:
            problems.append(f"{PLAN_FILE}: missing")
        return JobFiles(
            job_id,
            job_dir,
            meta if isinstance(meta, JobMeta) else JobMeta(job_id),
            plan if isinstance(plan, PlanDoc) else PlanDoc(),
            endpoints if isinstance(endpoints, EndpointsDoc) else None,
            f.events(job_dir),
            tuple(problems),
            cancel=cancel if isinstance(cancel, CancelDoc) else None,
        )

    def _read_jobs(self, jobs: Mapping[str, Path]) -> tuple[dict[str, Stamp], dict[str, JobSnapshot], list[JobFiles]]:
        """Each job's stamp (taken before reading), the frozen snapshots still valid, and the others' files."""
        dirs = {j: d if isinstance(d, Path) else Path(d) for j, d in jobs.items()}
        stamps, kept = self.frozen.split(dirs)
        return stamps, kept, [self._read_job_or_say(j, dirs[j]) for j in stamps]

    def _state(self, job: JobFiles, slurm_states: dict[str, JobState]) -> JobState | None:
        if is_local_job(job.job_id):
            return self.local.state(job.job_id, job.dir)
        return slurm_states.get(job.job_id)

    async def refresh(self, jobs: Mapping[str, Path]) -> list[JobSnapshot]:
        """Snapshots of all tracked jobs, in the given order.

        At most one Slurm query (exactly one, unless the previous query is still running or Slurm is
        backing off after a failure), concurrent with every HTTP probe; returns within about
        ``budget_s`` even when some source hangs.
        """
        started = self.clock()
        self.refreshes += 1
        self.samples.rotate()
        # job-directory files may sit on a slow shared filesystem: read them off the event loop; an ended job
        # whose files did not change since it ended is not read again (its stamp is a few stats)
        stamps, kept, views = await asyncio.to_thread(self._read_jobs, jobs)
        slurm_ids = [v.job_id for v in views if not is_local_job(v.job_id)]
        slurm_src: Source | None = None
        if slurm_ids and self.slurm is not None:
            slurm_src = self.sources.want("slurm", lambda: self._query_slurm(slurm_ids), started)
        known = self._slurm_states()
        for v in views:
            if v.endpoints is not None and derive_stage(v.events, self._state(v, known))[0] not in FINAL_STAGES:
                self._want_http(v, started)
        await self.sources.settle(self.budget_s)
        now = self.clock()
        ctx = Refresh(
            self.sources,
            self.files,
            self.samples,
            self.history,
            self.wall,
            self.budget_s,
            self.relay_fresh_s,
            started,
            now,
            self.health,
        )
        states = self._slurm_states()
        slurm_state = self._slurm_source(slurm_src, bool(slurm_ids), started, now)

        def one(v: JobFiles) -> JobSnapshot:
            local = is_local_job(v.job_id)
            state = self._state(v, states)
            snap = build_snapshot(ctx, v, state, SourceState("local", True) if local else slurm_state)
            self.frozen.keep(snap, v.dir, stamps[v.job_id], state)
            return snap

        def build() -> dict[str, JobSnapshot]:
            return {v.job_id: _or_said(one, v) for v in views}

        built = await asyncio.to_thread(build)  # snapshots read relay and log files too
        snaps = [kept.get(j) or built[j] for j in jobs]
        self.frozen.prune(jobs)
        self.sources.prune(started - 60.0)
        self.history.prune(now - 300.0)
        self.health.prune(self.wall() - 300.0)
        if self.refreshes % 20 == 0:
            tracked = {d if isinstance(d, Path) else Path(d) for d in jobs.values()}
            if tracked != self._forgot_for:  # nothing to forget while the same jobs are tracked
                self.files.forget(tracked)
                self._forgot_for = tracked
            self.http.forget(_origins(views))
        return snaps

    def _slurm_states(self) -> dict[str, JobState]:
        value = self.sources.get("slurm").value
        return value if isinstance(value, dict) else {}

    def _slurm_source(self, src: Source | None, needed: bool, started: float, now: float) -> SourceState:
        """The Slurm source: ok, failing (with the error and the back-off), or not answering."""
        if not needed:
            return SourceState("slurm", True)
        if self.slurm is None or src is None:
            return SourceState("slurm", False, self.slurm_down or "no Slurm transport available", None)
        retry = max(0.0, src.next_at - now) if src.kind and src.task is None else None
        if src.task is not None and src.pending_for(now) >= self.budget_s:
            error = f"no answer from Slurm for {src.pending_for(now):.0f} s"
            if src.kind:
                error += f" (last error: {src.error})"
            return SourceState("slurm", False, error, src.age(now), retry)
        if src.kind:
            return SourceState("slurm", False, src.error, src.age(now), retry)
        if src.ok_at is None:
            return SourceState("slurm", False, "waiting for the first Slurm answer", None)
        return SourceState("slurm", True, "", src.age(now) if src.ok_at < started else 0.0)


def _origins(views: list[JobFiles]) -> set[tuple[str, int]]:
    """Every host:port the tracked jobs are probed on (to close connections to forgotten ones)."""
    out: set[tuple[str, int]] = set()
    for v in views:
        urls = [w.get(k) for w in v.endpoint_workers() for k in ("health_url", "metrics_url")]
        urls += [r.endpoints.get(k) for r in v.router_views() for k in ("url", "workers_url", "metrics_url")]
        urls.append(v.nginx_health_url())
        urls += [url for _, url in v.gpu_exporter_urls()]
        for url in urls:
            if isinstance(url, str) and url.startswith("http://"):
                o = Origin.parse(url)
                out.add((o.host, o.port))
    return out


def _or_said(build: Callable[[JobFiles], JobSnapshot], job: JobFiles) -> JobSnapshot:
    """``build(job)``, or the job with only what went wrong: one job's damaged files never end the refresh
    of every other job (the Monitor once showed "refresh failed" and no jobs at all)."""
    try:
        return build(job)
    except Exception as exc:  # noqa: BLE001 - said as the job's problem; the other jobs are built
        bare = JobFiles(job.job_id, job.dir, JobMeta(job.job_id), PlanDoc(), None, [])
        problems = (*job.problems, f"cannot be shown ({type(exc).__name__}: {exc})")
        return build(replace(bare, problems=problems))
