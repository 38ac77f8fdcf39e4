"""Each worker's status for a snapshot: health from its own /health (or the relay), counters from its
/metrics, rate and sparkline from the counter history, last log lines when it is not healthy."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from srt_tui.core.isotime import parse_time
from srt_tui.core.plan.document import PlanProcess
from srt_tui.monitor.files.jobfiles import error_line
from srt_tui.monitor.model import END_UNTIMED, JOB_ENDED, READY_STAGES, WorkerStatus
from srt_tui.monitor.probes import selectors
from srt_tui.monitor.probes.prom import WORKER_SAMPLES, WorkerCounters, worker_counters
from srt_tui.monitor.probes.sources import Source
from srt_tui.monitor.statuses.context import JobFiles, Refresh, worker_key
from srt_tui.monitor.statuses.relay import Relay, final_http, relayed_http
from srt_tui.monitor.statuses.serving import Parts, figures, read_worker, wanted_names
from srt_tui.monitor.statuses.stage import step_exit

LOG_TAIL_LINES = 5
#: healths of a running job's worker whose metrics were not read this refresh: its requests running and waiting are
#: unknown (`?`, with the reason), not its last reading's (a hung worker's stalled requests read `running 0`)
UNREAD_HEALTH = ("hung", "down", "unreachable")
_DEFINITIVE = ("refused", "closed", "protocol")
#: why a worker's health is unknown while the job has written no addresses (a Slurm job writes endpoints.json on its
#: node as it starts; till then, pending or starting, there is nothing to probe): what the Events view's DETAIL says
NO_ADDRESS = "no address yet: the job writes endpoints.json as it starts"
#: why, when endpoints.json names the worker without a health URL (hand-edited, or another tool's)
NO_HEALTH_URL = "endpoints.json gives it no health URL to probe"


@dataclass(frozen=True)
class WorkerProbe:
    """What one worker endpoint answered: /health's status and, when it has one, the /metrics text."""

    health: int
    metrics: str | None


@dataclass
class _Seen:
    health: str = "unknown"
    detail: str = ""
    source: str = ""
    stale: bool = False
    probe: WorkerProbe | None = None
    observed: float | None = None  # clock time of fresh counters (history sample)
    problem: str = ""
    #: wall time of what the job recorded of this worker's end (its health history stamps it then), None otherwise
    ended_at: float | None = None
    #: its end (the job's) is recorded with no time: none is known (`END_UNTIMED`)
    untimed: bool = False


def _direct(ctx: Refresh, src: Source, name: str, relay: Relay | None, starting: bool, neighbour: str = "") -> _Seen:
    """Interpret a worker's source: its answer, else the relay, else why there is nothing.

    While the job is still starting, a worker that does not listen or reply yet is not a problem (it loads).
    A worker that took our connection and sent no reply (`silent`), or that does not answer while
    ``neighbour`` (another process of the job) answers from here, is `hung`: the network reaches the job, this
    process does not reply. The relay speaks for it only when the job saw it answer after our last ask went
    unanswered (its node, alone, does not answer from here); the job is shown relayed only when none of it answers
    (issue 21 defect 6: one stopped worker had switched the whole job to "relayed", and kept it after CONT).
    """
    last = src.value if isinstance(src.value, WorkerProbe) else None
    if src.ok and last is not None:
        fresh = ctx.fresh(src)
        code = last.health
        return _Seen(
            "healthy" if code == 200 else "unhealthy",
            "HTTP 200" if code == 200 else f"/health answered HTTP {code}",
            "direct",
            not fresh,
            last,
            src.ok_at if fresh else None,
        )
    silent = src.kind == "silent"
    if silent and starting:  # an engine may take connections before it serves: loading, not hung
        return _Seen("unknown", "connected, no reply yet (loading?)", "", True, last)
    if not (ctx.unanswered(src) or silent):
        return _not_answered(ctx, src, name, starting, last)
    # what the job saw of it after our last ask went unanswered: a relay read before that ask (an answer the job got
    # just before the process stopped) says nothing about now (issue 21, op11: a stopped worker read `healthy*` for
    # 10-15 s, relayed, on a local job whose other workers answered); one read since its last answer to us that
    # got none either confirms it
    job_code = relay.health.get(name) if relay is not None else None
    saw = job_code if relay is not None and relay.read_age_s < _since_ask(ctx, src) else None
    if not starting and (silent or (neighbour and saw != 200)):
        why = src.error or f"no answer for {src.pending_for(ctx.now):.0f} s"
        said = [why] + ([f"{neighbour} answers from here"] if neighbour else [])
        if job_code == 0 and relay is not None and relay.read_age_s < _since(ctx, src):
            said.append("the job's own probe got no answer either")
        return _Seen("hung", "not answering (stopped or overloaded?): " + "; ".join(said), "", True, last)
    if relay is not None and name in relay.health:
        code = relay.health[name]
        got = relayed_http(ctx.files, relay, f"{name}.metrics", ctx.wall(), ctx.relay_fresh_s)
        text = got[1].decode("utf-8", "replace") if got and got[0] == 200 else None
        problem = (
            f"{name}: no answer from here ({src.error or 'no answer'}); shown from the job's relay" if neighbour else ""
        )
        return _Seen(
            "healthy" if code == 200 else ("down" if code == 0 else "unhealthy"),  # the job itself got no answer
            f"relayed {relay.age_s:.0f} s ago: " + ("no answer" if code == 0 else f"HTTP {code}"),
            "relay",
            False,
            WorkerProbe(code, text),
            ctx.now - relay.age_s,
            problem,
        )
    return _not_answered(ctx, src, name, starting, last)


def _since(ctx: Refresh, src: Source) -> float:
    """Seconds since the source last answered (infinite: never)."""
    return float("inf") if src.ok_at is None else ctx.now - src.ok_at


def _since_ask(ctx: Refresh, src: Source) -> float:
    """Seconds since the newest ask of the source that went unanswered (else since it last answered; infinite:
    neither)."""
    asked = ctx.unanswered_since(src)
    return _since(ctx, src) if asked is None else ctx.now - asked


def _not_answered(ctx: Refresh, src: Source, name: str, starting: bool, last: WorkerProbe | None) -> _Seen:
    """A worker with no answer and nothing relayed for it: loading, down, unreachable, or not asked yet."""
    if src.kind and starting and src.kind == "refused":
        return _Seen("unknown", "not listening yet (loading?)", "", True, last)
    if src.kind:
        health = "down" if src.kind in _DEFINITIVE else "unreachable"
        return _Seen(health, src.error + ctx.retry_note(src), "", True, last, None, f"{name}: {src.error}")
    if ctx.hanging(src):
        why = f"no answer for {src.pending_for(ctx.now):.0f} s"
        return _Seen("unreachable", why, "", True, last, None, f"{name}: {why}")
    return _Seen("unknown", "waiting for the first answer")


def _ended(ctx: Refresh, job: JobFiles, name: str, job_end: str) -> _Seen:
    """An ended job's worker: down, with the counters the job relayed last (its final scrape), if any, stamped
    when the job ended (``job_end``: Slurm's end time, else the job's final event; with no time, saying so, when
    neither is known), not when this Monitor first looked. The worker whose end failed the job is down for the
    cause the job recorded (`killed (signal 9)`, when it saw it), not for the job's end, which it caused."""
    got = final_http(ctx.files, job.dir, f"{name}.metrics")
    text = got[1].decode("utf-8", "replace") if got and got[0] == 200 else None
    probe = WorkerProbe(0, text) if text else None
    # its final counters are a sample of their own, at the time the job scraped them: a benchmark that ran between
    # two refreshes is in the window then (its figures read 0, `-`, over the refreshes before it)
    mtime = ctx.files.mtime(job.dir / "relay" / f"{name}.metrics") if probe is not None else None
    observed = ctx.mono(mtime) if mtime is not None else None
    seen = _Seen("down", JOB_ENDED, "relay" if probe else "", False, probe, observed)
    end = parse_time(job_end)
    if end is None:
        seen.detail, seen.untimed = JOB_ENDED + END_UNTIMED, True
    else:
        seen.ended_at = end.timestamp()
    ended = step_exit(job.events)
    if ended is not None and ended.kind == "worker" and ended.name == name:
        when = parse_time(ended.time)
        seen.detail, seen.ended_at = ended.health_words(), when.timestamp() if when else seen.ended_at
        seen.untimed = seen.ended_at is None
    return seen


def worker_statuses(
    ctx: Refresh,
    job: JobFiles,
    live: bool,
    final: bool,
    relay: Relay | None,
    starting: bool = False,
    job_end: str = "",
) -> tuple[tuple[WorkerStatus, ...], bool, list[str]]:
    """Statuses of the plan's workers (leaders), whether any came from the relay, and the problems seen
    (``starting``: the job has not reached `router ready` yet; ``job_end``: when an ended job ended, "" unknown). A
    hung worker is no problem of the HTTP source (the monitor reaches the job): its own row and the Problems panel
    say it."""
    endpoints = {str(w.get("name")): w for w in job.endpoint_workers()}
    neighbours = _Answering(ctx, job, endpoints) if live and not final else None
    used_relay = False
    problems: list[str] = []
    seen_of: list[tuple[PlanProcess, Mapping[str, Any], _Seen]] = []
    for proc in job.plan.processes:
        if proc.node_rank != 0:
            continue
        name = proc.name
        ep = endpoints.get(name, {})
        if final:
            seen = _ended(ctx, job, name, job_end)
        elif live and ep.get("health_url"):
            src = ctx.sources.get(worker_key(str(ep["health_url"])))
            neighbour = neighbours.beside(proc.node_index) if neighbours is not None else ""
            seen = _direct(ctx, src, name, relay, starting, neighbour)
        else:  # nothing to probe: unknown, saying why (as `_direct` says a worker that does not listen yet)
            seen = _Seen(detail=NO_HEALTH_URL if live else NO_ADDRESS)
        used_relay |= seen.source == "relay" and not final  # an ended job's final scrape is no live relay
        if seen.problem:
            problems.append(seen.problem)
        seen_of.append((proc, ep, seen))
    end = spark_end(ctx, [seen.observed for _, _, seen in seen_of], final)
    return tuple(_status(ctx, job, proc, ep, seen, final, end) for proc, ep, seen in seen_of), used_relay, problems


def spark_end(ctx: Refresh, observed: list[float | None], final: bool) -> float | None:
    """Where the job's sparklines end, one time axis for all its rows: at its newest reading of this refresh (a
    relayed job's: when the job read them, so its slower cadence draws no sawtooth), else now (nothing read: a
    worker that stopped answering shows blanks, not its last line frozen); an ended job's at each series' last
    sample (None), its last minute as it served."""
    if final:
        return None
    read = [t for t in observed if t is not None]
    return max(read) if read else ctx.now


class _Answering:
    """Which processes of a job answered from here during this refresh: the proof that the network reaches the
    job, so that one of its workers that does not answer is hung, not cut off."""

    def __init__(self, ctx: Refresh, job: JobFiles, endpoints: Mapping[str, Mapping[str, Any]]) -> None:
        hosts = job.endpoints.hostnames() if job.endpoints is not None else ()
        self.by_node: dict[int, str] = {}  # node index -> the first worker there that answered, `decode_1 (node3)`
        for proc in job.plan.processes:
            url = endpoints.get(proc.name, {}).get("health_url")
            if proc.node_index in self.by_node or not url:
                continue
            if ctx.answered_now(ctx.sources.get(worker_key(str(url)))):
                host = hosts[proc.node_index] if proc.node_index < len(hosts) else ""
                self.by_node[proc.node_index] = f"{proc.name} ({host or f'node{proc.node_index}'})"
        others = [k for k in job.source_keys() if not k.startswith("worker ")]
        self.router = any(ctx.answered_now(ctx.sources.get(k)) for k in others)

    def beside(self, node_index: int) -> str:
        """A process that answered: one on the same node first, else any worker, else the router ("" if none)."""
        if node_index in self.by_node:
            return self.by_node[node_index]
        if self.by_node:
            return next(iter(self.by_node.values()))
        return "the router" if self.router else ""


def answering_worker(ctx: Refresh, job: JobFiles) -> str:
    """A worker of the job that answered from here during this refresh, as `decode_1 (node3)` ("" if none)."""
    endpoints = {str(w.get("name")): w for w in job.endpoint_workers()}
    return next(iter(_Answering(ctx, job, endpoints).by_node.values()), "")


def _status(
    ctx: Refresh,
    job: JobFiles,
    proc: PlanProcess,
    ep: Mapping[str, Any],
    seen: _Seen,
    final: bool,
    end: float | None,
) -> WorkerStatus:
    name = proc.name
    log = job.dir / (proc.log or f"logs/{name}.log")
    probe = seen.probe
    counters = None
    key = (job.run_key, name)
    serving = None
    # a running job's worker whose metrics cannot be read now: its last reading's `running 0` read as idle
    unread = seen.health if not final and seen.observed is None and seen.health in UNREAD_HEALTH else ""
    parts = Parts(proc.role, unread=(f"{name} {unread}",)) if unread else None
    families: dict[str, object] = dict(proc.serving)
    # after the end, a series the final scrape has and this monitor never saw was zero (not created yet) when it
    # first sampled the worker, or, never sampled (an ended job first seen now), when the job was ready to serve
    sampled = ctx.history.first(_sampled_key(key))
    zero_at = (sampled if sampled is not None else _served_from(ctx, job)) if final else None
    if probe is not None and probe.metrics:
        contract = proc.metrics or None
        wanted = WORKER_SAMPLES + selectors.names(contract) if contract else WORKER_SAMPLES
        counters = worker_counters(ctx.samples.samples(probe.metrics, wanted), contract, probe.metrics)
        if families:
            # histogram buckets change on every scrape under load: series memoised, values read as floats
            served = ctx.samples.gauges(probe.metrics, wanted_names(families))
            parts = read_worker(ctx.history, key, proc.role, served, families, seen.observed, end, zero_at)
            if sampled is None and zero_at is not None and parts.window_s is not None:
                parts = replace(parts, since_ready=True)  # the window is the whole time it served: said so
            if seen.observed is not None and not final:  # when this monitor sampled it (see `zero_at`)
                ctx.history.observe(_sampled_key(key), seen.observed, 0.0)
            # one reading of its queue for the RUN and Q columns and the Serving panel (Q said `-` beside the panel's
            # `waiting 0`: they read two contracts); no gauge at all while it cannot be read (its last reading's)
            gauges = {} if unread else {**parts.gauges, **_load(parts.gauges, counters)}
            parts = replace(parts, gauges=gauges, unread=(f"{name} {unread}",) if unread else ())
    if families and parts is not None:
        # the job's figures sum current readings only: a hung worker's last minute stayed in its TTFT, TPOT and tok/s
        # for up to 5 min (the history's span); it is named instead (`unread`: `1 worker not current`)
        ctx.serving_parts.setdefault(job.job_id, []).append(Parts(proc.role, unread=parts.unread) if unread else parts)
        serving = figures(parts)
        if serving is not None and unread and parts.read_at is not None:  # its last minute's, not this one's
            serving = replace(serving, age_s=max(0.0, ctx.now - parts.read_at))
    if unread:
        running = queued = None
    elif families and parts is not None:
        running, queued = parts.gauges.get("running"), parts.gauges.get("waiting")
    else:
        running, queued = (counters.running, counters.queued) if counters is not None else (None, None)
    ctx.health.note(key, ctx.wall(), seen.health, seen.detail, seen.ended_at, seen.untimed)
    if counters is not None and counters.total is not None and seen.observed is not None:
        for k, value in ((key, counters.total), (_ok_key(key), counters.ok), (_failed_key(key), counters.failed)):
            if value is not None:
                ctx.history.observe(k, seen.observed, value)
    # after the end, the newest sample of the three together (the job's final scrape, or this monitor's last one,
    # whichever came later): REQ from one and OK from the other read `1.5k` beside `-`
    total, ok, failed = (
        tuple(ctx.history.last(k, ctx.now) for k in (key, _ok_key(key), _failed_key(key)))
        if final
        else (counters.total, counters.ok, counters.failed)
        if counters
        else (None, None, None)
    )
    tail = ctx.files.tail(log) if seen.health not in ("healthy", "unknown") else []
    return WorkerStatus(
        name=name,
        role=proc.role,
        node_index=proc.node_index,
        gpus=proc.gpus,
        mask=proc.visible_devices,
        url=ep.get("url") or proc.url,
        health=seen.health,
        detail=seen.detail,
        last_error_line=error_line(tail),
        log=str(log),
        requests_total=total,
        requests_ok=ok,
        requests_failed=failed,
        rate_per_s=ctx.history.rate(key) if not seen.stale and not final else None,
        running=running,
        queued=queued,
        unread=unread,
        port=proc.port,
        source=seen.source,
        stale=seen.stale,
        spark=ctx.history.spark(key, end),
        log_tail=tuple(tail[-LOG_TAIL_LINES:]),
        health_history=ctx.health.changes(key),
        serving=serving,
    )


def _load(gauges: Mapping[str, float], counters: WorkerCounters | None) -> dict[str, float]:
    """Requests running and waiting: the serving gauges (what the Serving panel sums), else the request counters'
    contract (an engine that declares a queue gauge in only one of them)."""
    running = gauges.get("running", counters.running if counters is not None else None)
    waiting = gauges.get("waiting", counters.queued if counters is not None else None)
    return {k: v for k, v in (("running", running), ("waiting", waiting)) if v is not None}


def _sampled_key(key: tuple[str, str]) -> tuple[str, str]:
    """The history's series of when this monitor sampled a worker's serving figures (its values mean nothing)."""
    return key[0], f"{key[1]}\tsampled"


def _ok_key(key: tuple[str, str]) -> tuple[str, str]:
    """The history's series of a worker's ok requests (its total's key is the worker's own)."""
    return key[0], f"{key[1]}\tok"


def _failed_key(key: tuple[str, str]) -> tuple[str, str]:
    """The history's series of a worker's failed requests."""
    return key[0], f"{key[1]}\tfailed"


def _served_from(ctx: Refresh, job: JobFiles) -> float | None:
    """When the job was first ready to serve (its first `router ready`/`serving`/`benchmark` event), on this
    monitor's clock; None when it never was."""
    ready = next((e for e in job.events if e.stage in READY_STAGES), None)
    when = parse_time(ready.time) if ready is not None else None
    return ctx.mono(when.timestamp()) if when is not None else None
