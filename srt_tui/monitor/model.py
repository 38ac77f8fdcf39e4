"""Immutable monitor snapshots: what one refresh knows about a job, its workers and its router.

Everything here is plain data (frozen dataclasses of str/int/float/tuple/dict), so a snapshot can be
rendered by the TUI, dumped by `srt-tui status --json` (``dataclasses.asdict``) or frozen in a test.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Literal

from srt_tui.core.isotime import parse_time
from srt_tui.core.results.progress import BenchProgress
from srt_tui.core.text.roles import ROLE_LETTER

#: lifecycle stages in order (submitted → … → serving, then the ends); terminal ones last
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
#: a stage in one word, for a column too narrow for its name (the jobs table at 80 columns cut `workers he…`):
#: the phase the job is in; the stages of one word already are their own short form
STAGE_SHORT = {
    "resolving nodes": "resolving",
    "infra starting": "infra",
    "workers starting": "workers",
    "workers healthy": "healthy",
    "router starting": "router",
    "router ready": "ready",
}
READY_STAGES = frozenset({"router ready", "benchmark", "serving"})
FINAL_STAGES = frozenset({"completed", "failed", "cancelled", "timed out"})
#: worker health values: healthy | unhealthy (HTTP answered, not 200) | down (nothing listening, or the
#: job ended) | hung (took the connection and sent no reply, or no answer while others of the job answer from
#: here: stopped, hung or overloaded) | unreachable (no route / no answer, and nothing relayed) | unknown (not
#: probed yet)
HEALTH_VALUES = ("healthy", "unhealthy", "down", "hung", "unreachable", "unknown")
#: the detail of a worker seen `down` because its job ended (not for a cause of its own)
JOB_ENDED = "the job has ended"
#: said after it when the job's end time is known neither from Slurm nor from its own final event: its history
#: row has no time (the time the Monitor first looked is not when it happened)
END_UNTIMED = " (when is not known)"
ROLE_LETTERS = ROLE_LETTER  # one table of role letters, shared with the plan views


@dataclass(frozen=True)
class SourceState:
    """Health of one data source (slurm, local, job dir, http, relay, gpu exporter): ok, or stale with the error.

    ``age_s`` is how old the data shown from this source is (0 when fresh this refresh, None when
    there never was any); ``retry_in_s`` is the remaining back-off before the next attempt.
    """

    name: str
    ok: bool
    error: str = ""
    age_s: float | None = 0.0
    retry_in_s: float | None = None


@dataclass(frozen=True)
class Placement:
    """One worker process (every rank of multi-node workers) on the GPU grid."""

    name: str
    worker: str
    role: str
    node_index: int
    gpus: tuple[int, ...]
    mask: str | None
    port: int | None


@dataclass(frozen=True)
class LogRef:
    """A process's log file (workers, router, infra, benchmark, the launch script)."""

    name: str
    kind: str
    path: str


@dataclass(frozen=True)
class HealthChange:
    """A worker's health as first seen by a refresh: when (ISO-8601 UTC), the new value and why."""

    at: str
    health: str
    detail: str = ""


#: a latency a Serving holds, as its fields are named: time to first token, between tokens (shown TPOT), end to end
LatencyFamily = Literal["ttft", "itl", "e2e"]
#: the quantiles of each latency
Quantile = Literal["p50", "p99"]
QUANTILES: tuple[Quantile, ...] = ("p50", "p99")


@dataclass(frozen=True)
class Latency:
    """One latency's figures over the window, in seconds (`Serving.latency`): its quantiles, its mean, the quantiles
    known only to be below their histogram's first bucket (with that bound), and whether the quantiles are a
    prefill's plus a decode's (approximate)."""

    family: LatencyFamily
    p50_s: float | None
    p99_s: float | None
    mean_s: float | None
    #: (quantile, its first bucket's bound in seconds) for each quantile known only to be below that bound
    below: tuple[tuple[Quantile, float], ...] = ()
    approximate: bool = False

    def quantile(self, q: Quantile) -> float | None:
        """The quantile ``q``'s value (interpolated: below its first bucket's bound, read `bound` first)."""
        return self.p50_s if q == "p50" else self.p99_s

    def bound(self, q: Quantile) -> float | None:
        """The first bucket's bound when the quantile ``q`` is only known to be below it."""
        return dict(self.below).get(q)

    @property
    def unresolved(self) -> tuple[Quantile, ...]:
        """The quantiles that fall in the histogram's first bucket (read `<100 ms`)."""
        return tuple(q for q, _ in self.below)

    @property
    def measured(self) -> bool:
        """A figure of it was read: its median or its mean."""
        return self.p50_s is not None or self.mean_s is not None


@dataclass(frozen=True)
class Serving:
    """How fast a worker (or a whole job) serves, from the engine's own metrics over the last minute:
    latency quantiles in seconds from histogram increases, tokens per second, queue depth, KV-cache use."""

    ttft_p50_s: float | None = None
    ttft_p99_s: float | None = None
    itl_p50_s: float | None = None
    itl_p99_s: float | None = None
    e2e_p50_s: float | None = None
    e2e_p99_s: float | None = None
    #: each latency's mean over the same window (its histogram's `_sum` over its `_count`): what the buckets
    #: cannot resolve below their first bound (`<100 ms`), the mean still says
    ttft_mean_s: float | None = None
    itl_mean_s: float | None = None
    e2e_mean_s: float | None = None
    input_tok_per_s: float | None = None
    output_tok_per_s: float | None = None
    running: float | None = None
    waiting: float | None = None
    #: KV-cache in use, 0..1 (a job: the fullest worker's)
    kv_usage: float | None = None
    #: seconds the latency figures cover (the histogram window actually held), None before two scrapes
    window_s: float | None = None
    #: sparklines over the figures' window, in slots of equal time (`statuses.history.SPARK_POINTS` of
    #: `SPARK_SLOT_S`), oldest first: TTFT p50 (s), ITL p50 (s), output tokens per second; None: nothing was read
    #: in that slot (drawn as a gap)
    spark_ttft_s: tuple[float | None, ...] = ()
    spark_itl_s: tuple[float | None, ...] = ()
    spark_output_tok: tuple[float | None, ...] = ()
    #: the latency quantiles that fall in their histogram's first bucket (from 0 to its bound), known only to
    #: be below that bound (shown `<100 ms`): (field name, the bound in seconds)
    below_first_bucket: tuple[tuple[str, float], ...] = ()
    #: the latency families (`ttft`, `e2e`) that add a P/D job's prefill's time to answer to its decodes' (its
    #: router runs the prefill first: vllm-router): their means add exactly, their quantiles are approximate (the
    #: legs taken as independent) and shown `≈`
    prefill_added: tuple[str, ...] = ()
    #: what a client through the job's router measures of TTFT beyond these figures, from the router's own socket
    #: handling (`Router.client_ttft_added_s`: sglang-router's missing TCP_NODELAY, up to 40 ms), and that router's
    #: type; 0 and "" where none is known (a worker's own figures, other routers)
    client_ttft_added_s: float = 0.0
    client_ttft_router: str = ""
    #: the workers whose metrics could not be read now, with why (`decode_1 hung`): `running` and `waiting` are the
    #: others' sum, and the whole is unknown (shown `2+?`, or `?`), never a zero that reads as idle
    unread: tuple[str, ...] = ()
    #: a worker's figures while its metrics cannot be read now (`unread`): seconds since they were last read, so they
    #: are shown as that old (the minute before it hung), never as current; None for current figures and a job's
    age_s: float | None = None
    #: an ended job first read after its end: the window (``window_s``) is the whole time it served, its final
    #: counters counted from zero, not the last minute of this monitor's samples
    since_ready: bool = False

    def latency(self, family: LatencyFamily) -> Latency:
        """``family``'s figures, each typed: its fields (`ttft_p50_s` …) with what `below_first_bucket` and
        `prefill_added` say of them."""
        if family == "ttft":
            p50, p99, mean = self.ttft_p50_s, self.ttft_p99_s, self.ttft_mean_s
        elif family == "itl":
            p50, p99, mean = self.itl_p50_s, self.itl_p99_s, self.itl_mean_s
        else:
            p50, p99, mean = self.e2e_p50_s, self.e2e_p99_s, self.e2e_mean_s
        below = tuple((q, b) for q in QUANTILES if (b := self.bound_of(f"{family}_{q}_s")) is not None)
        return Latency(family, p50, p99, mean, below, family in self.prefill_added)

    def approximate(self, name: str) -> bool:
        """Whether the quantile ``name`` (`ttft_p50_s`) is approximate: the sum of a prefill's and a decode's."""
        return name.split("_", 1)[0] in self.prefill_added

    def bound_of(self, name: str) -> float | None:
        """The first bucket's bound when the quantile ``name`` (`ttft_p50_s`) is only known to be below it."""
        return dict(self.below_first_bucket).get(name)

    @property
    def empty(self) -> bool:
        """Nothing known (the engine exports no serving families, or none were read yet)."""
        return (
            all(
                v is None
                for v in (self.ttft_p50_s, self.itl_p50_s, self.e2e_p50_s, self.output_tok_per_s, self.running)
            )
            and self.kv_usage is None
            and not self.unread
        )


@dataclass(frozen=True)
class WorkerStatus:
    """One worker as observed: placement from the plan, health and counters from HTTP or the relay."""

    name: str
    role: str
    node_index: int
    gpus: tuple[int, ...]
    mask: str | None
    url: str | None
    health: str = "unknown"
    detail: str = ""
    last_error_line: str = ""
    log: str = ""
    requests_total: float | None = None
    requests_ok: float | None = None
    requests_failed: float | None = None
    rate_per_s: float | None = None
    #: requests running and waiting, one reading with the Serving panel's (its serving gauges, else its counters')
    running: float | None = None
    queued: float | None = None
    #: why `running` and `queued` are unknown now (its health: `hung`): its metrics could not be read, and its last
    #: reading's zero would read as idle; "" when read (or never readable)
    unread: str = ""
    port: int | None = None
    #: where health/counters came from: "direct" (HTTP from here), "relay" (the job's own files), "" (none)
    source: str = ""
    #: True when the values shown are older than this refresh (the probe failed or is still pending)
    stale: bool = False
    #: requests per second in each slot of the last minute (oldest first, as `Serving`'s sparklines), for the
    #: TREND sparkline; None where its metrics were not read (a gap, not a frozen line)
    spark: tuple[float | None, ...] = ()
    #: the router's view of this worker (is_healthy in /workers), None when unknown or no router
    router_healthy: bool | None = None
    #: last lines of the log when the worker is not healthy
    log_tail: tuple[str, ...] = ()
    #: its health changes seen by this monitor, oldest first (bounded; see monitor/health_log.py)
    health_history: tuple[HealthChange, ...] = ()
    #: how fast it serves (None when its plan declares no serving families or nothing was read)
    serving: Serving | None = None


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
    metrics_url: str | None = None
    registration: str = ""
    source: str = ""
    stale: bool = False
    last_error_line: str = ""
    log: str = ""
    #: the router's is_healthy per worker URL (from /workers)
    by_url: dict[str, bool] = field(default_factory=dict)
    #: its process name (`router`, `router_1`, … behind nginx) and node
    name: str = "router"
    node_index: int = 0
    #: it took the connection and sent no reply (stopped with `kill -STOP`, or overloaded) while the job answers from
    #: here: `up` is False (it serves nothing) and it reads `hung`, as a worker does, never `down`
    hung: bool = False

    @property
    def state(self) -> str:
        """`up`, `hung`, `down` or `unknown`: what the router panel and the problems call it."""
        return front_state(self.up, self.hung)

    @property
    def all_registered(self) -> bool:
        """Every expected role has at least its expected count registered."""
        return bool(self.expected) and all(self.registered.get(k, 0) >= v for k, v in self.expected.items())


@dataclass(frozen=True)
class ProxyStatus:
    """nginx in front of several routers (srtctl's multi-frontend layout), watched as a process."""

    name: str
    url: str | None
    node_index: int = 0
    up: bool | None = None
    detail: str = ""
    stale: bool = False
    upstreams: tuple[str, ...] = ()
    log: str = ""
    last_error_line: str = ""
    #: it took the connection and sent no reply (as `RouterStatus.hung`)
    hung: bool = False

    @property
    def state(self) -> str:
        """`up`, `hung`, `down` or `unknown`."""
        return front_state(self.up, self.hung)


def front_state(up: bool | None, hung: bool) -> str:
    """A router's or nginx's state in a word: one that takes connections and sends no reply is `hung`, not `down`
    (s36 new-operator pass: a router stopped with `kill -STOP` read `down` beside `connected, no reply`)."""
    if up is True:
        return "up"
    if up is False:
        return "hung" if hung else "down"
    return "unknown"


@dataclass(frozen=True)
class GpuReading:
    """One GPU as its node's exporter reported it: utilisation (%), power (W), temperature (°C).

    A value is None when the exporter does not report that metric; ``stale`` when the node's exporter
    did not answer this refresh (the values, if any, are the last ones it gave).
    """

    node_index: int
    gpu: int
    util: float | None
    power_w: float | None
    temp_c: float | None
    stale: bool = False


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
    #: the stage every face shows: the further of the job's own word and what the Monitor's probes see (`stage_by`,
    #: which `srt-tui wait` reads for the job's own), with its time and detail
    stage: str
    stage_time: str
    stage_detail: str
    workers: tuple[WorkerStatus, ...] = ()
    router: RouterStatus | None = None
    sources: tuple[SourceState, ...] = ()
    submitted_at: str = ""
    relayed: bool = False
    failure_log: str = ""
    #: the failing log's one line that says why (its last line that explains a failure: error, traceback or exit
    #: text; never a ready or info line)
    failure_line: str = ""
    #: that log's last lines (`failure_line` among them when it is there): a router's or an infra's, shown under it as
    #: a worker's own `log_tail` is
    failure_tail: tuple[str, ...] = ()
    #: when that log has no such line: what the job knows instead (`no error in its log; it was killed by signal 9
    #: (SIGKILL: out of memory? scancel? kill -9?)`), said where the line would be
    failure_note: str = ""
    #: the failing log was never written: srun did not start that step (its words are in `failure_srun`)
    failure_log_missing: bool = False
    #: srun's own lines about that step, quoted from the job's Slurm output, each naming the step (`router: srun:
    #: error: Unable to create step for job 12: Requested node configuration is not available`)
    failure_srun: tuple[str, ...] = ()
    #: the scheduler's time limit of the job in seconds (None: unlimited or not known, e.g. local jobs)
    time_limit_s: float | None = None
    engine: str = ""
    frontend: str = ""
    nodes: int = 0
    gpus_per_node: int = 0
    visible_devices_env: str = ""
    #: ISO-8601 UTC time the job started running (Slurm start time, else its first `starting` event)
    started_at: str = ""
    #: a queued job's expected start (ISO-8601 UTC), Slurm's estimate (`squeue --start`); "" without one
    expected_start_at: str = ""
    #: ISO-8601 UTC time it ended (Slurm end time, else its final event), empty while it runs
    ended_at: str = ""
    placements: tuple[Placement, ...] = ()
    logs: tuple[LogRef, ...] = ()
    #: job totals as the client sees them: the router's counters when it has them, else the serving workers'
    #: (after the end: the benchmark's measured requests and failures when it wrote results, else the last seen)
    requests: float | None = None
    #: whose the ended job's `requests` are: "benchmark" (its results), "last seen" (live counters), or ""
    requests_from: str = ""
    #: the requests the deployment served and failed, by its own counters: the routers', else its serving workers'
    #: (live, or the last seen once it ended), never the benchmark's (`requests` after the end): what `status`'s REQ
    #: and both faces' ERR count, one thing in every row (they read a benchmark's 30 in one row, a router's 43 in the
    #: next); the benchmark's figures are its own line (`benchmark 30/30 completed`) and Results'
    served: float | None = None
    served_errors: float | None = None
    errors: float | None = None
    rate_per_s: float | None = None
    #: per-GPU readings of the job's GPU exporter (empty when it launched none, or the job ended)
    gpus: tuple[GpuReading, ...] = ()
    #: behind nginx: every router (`router` is the first), and nginx itself; otherwise () and None
    routers: tuple[RouterStatus, ...] = ()
    nginx: ProxyStatus | None = None
    #: while the benchmark runs: its concurrency step, requests done of total and ETA (sa-bench writes it)
    bench: BenchProgress | None = None
    #: a sweep member: the sweep's group id and the member's selector (`sweep[1]`), from job.json
    group: str = ""
    group_member: str = ""
    #: how fast the deployment serves, over its serving workers (None when none reports serving families)
    serving: Serving | None = None
    #: Slurm's host name of each node, in node-index order (from endpoints.json, else Slurm's node list)
    hostnames: tuple[str, ...] = ()
    #: the job's own stage (its events reconciled with Slurm's state) when `stage` is one the Monitor's probes saw a
    #: poll ahead of it (`router ready` before the job's wait wrote it: `statuses.stage.seen_ready`); "" when `stage`
    #: is the job's own. Read through `stage_by`
    own_stage: str = ""

    def stage_by(self, seen_by_monitor: bool) -> str:
        """The job's stage, the one choice between its two derivations. ``seen_by_monitor``: as every face shows it
        (`stage`), the further of the job's own word and what this Monitor's probes see (a router answering with
        every worker registered is `router ready` a poll before the job's wait says so); otherwise the job's own word
        alone, which `srt-tui wait` waits for, so that what runs after it finds that stage in the job's events and
        log."""
        return self.stage if seen_by_monitor or not self.own_stage else self.own_stage

    @property
    def stage_seen(self) -> bool:
        """`stage` is what the Monitor's probes saw ahead of the job's own word (`status --json` says so)."""
        return self.stage_by(seen_by_monitor=False) != self.stage

    @property
    def is_ready(self) -> bool:
        """The router has registered every worker (or the single worker serves), as the stage shown says (`stage`:
        for the job's own word, `stage_by(seen_by_monitor=False)`)."""
        return self.stage in READY_STAGES

    @property
    def is_final(self) -> bool:
        """The job has ended."""
        return self.stage in FINAL_STAGES

    @property
    def serving_url(self) -> str | None:
        """Where clients reach a job that serves now: nginx, else the router, else its single worker."""
        if not self.is_ready or self.is_final:
            return None
        front = self.nginx or self.router
        if front is not None:
            return front.url
        return self.workers[0].url if len(self.workers) == 1 else None

    def host(self, node_index: int) -> str:
        """Slurm's host name of node ``node_index``, or "" while it is not known."""
        return self.hostnames[node_index] if 0 <= node_index < len(self.hostnames) else ""

    @property
    def placed(self) -> bool:
        """The job has nodes: their names are known, or it started. A queued job (or one cancelled in the queue)
        has none yet: its plan's `node0` names no node."""
        return bool(self.hostnames) or bool(self.started_at)

    @property
    def failing_worker(self) -> str | None:
        """The worker whose log says why the job failed (`failure_log`), if one does."""
        return next((w.name for w in self.workers if self.failure_log and w.log == self.failure_log), None)

    def stopped_with_job(self, worker: str) -> bool:
        """The job has ended and `worker` merely stopped with it: its `down` is not a fault (the one that failed
        the job is)."""
        return self.is_final and worker != self.failing_worker

    @property
    def degraded(self) -> bool:
        """Running and ready-ish, but some worker, the router or a source is not well."""
        if self.is_final:
            return False
        if any(not s.ok and not (s.name == "http" and self.relayed) for s in self.sources):
            return True  # a relayed view is not degraded for being relayed (it says `relayed` instead)
        if any(r.up is False for r in (self.router, *self.routers, self.nginx) if r is not None):
            return True
        return self.stage in READY_STAGES and any(w.health != "healthy" for w in self.workers)

    def healthy_counts(self) -> dict[str, tuple[int, int]]:
        """(healthy, total) workers per role, in plan order."""
        out: dict[str, tuple[int, int]] = {}
        for w in self.workers:
            h, t = out.get(w.role, (0, 0))
            out[w.role] = (h + (w.health == "healthy"), t + 1)
        return out

    def source(self, name: str) -> SourceState | None:
        """The state of one named source, if this snapshot used it."""
        return next((s for s in self.sources if s.name == name), None)

    def elapsed_s(self, now: datetime) -> float | None:
        """Seconds the job has run (until it ended), measured against ``now`` (naive means local time); None
        before it started (a queued job has run for no time: squeue's TIME says the same)."""
        start = parse_time(self.started_at)
        if start is None:
            return None
        end = parse_time(self.ended_at) if self.is_final else None
        ref = end or (now if now.tzinfo else now.astimezone())
        return max(0.0, (ref - start).total_seconds())

    def queued_s(self, now: datetime) -> float | None:
        """Seconds a job that has not started has waited since it was submitted (None once it started or ended)."""
        submitted = parse_time(self.submitted_at)
        if submitted is None or self.started_at or self.is_final:
            return None
        return max(0.0, ((now if now.tzinfo else now.astimezone()) - submitted).total_seconds())


def starts_in_s(snap: JobSnapshot, now: datetime) -> float | None:
    """Seconds until a queued job's expected start (Slurm's estimate); None without one, or once it is past (a
    stale estimate says nothing) or the job left the queue."""
    expected = parse_time(snap.expected_start_at)
    if expected is None or snap.stage != "pending":
        return None
    left = (expected - (now if now.tzinfo else now.astimezone())).total_seconds()
    return left if left > 0 else None


def time_left_s(snap: JobSnapshot, now: datetime) -> float | None:
    """Seconds before the scheduler ends a running job at its time limit (None: no limit, not started, ended)."""
    start = parse_time(snap.started_at)
    if snap.time_limit_s is None or start is None or snap.is_final:
        return None
    ref = now if now.tzinfo else now.astimezone()
    return snap.time_limit_s - max(0.0, (ref - start).total_seconds())


def iso_utc(epoch: float) -> str:
    """ISO-8601 UTC text of a Unix time."""
    return datetime.fromtimestamp(epoch, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
