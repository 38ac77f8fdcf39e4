"""Each worker's status for a snapshot: health from its own /health (or the relay), counters from its
/metrics, rate and sparkline from the counter history, last log lines when it is not healthy."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from srt_tui.core.plan.document import PlanProcess
from srt_tui.monitor.files.jobfiles import error_line
from srt_tui.monitor.model import WorkerStatus
from srt_tui.monitor.probes import selectors
from srt_tui.monitor.probes.prom import WORKER_SAMPLES, worker_counters
from srt_tui.monitor.probes.sources import Source
from srt_tui.monitor.statuses.context import JobFiles, Refresh, worker_key
from srt_tui.monitor.statuses.relay import Relay, final_http, relayed_http
from srt_tui.monitor.statuses.serving import figures, read_worker, wanted_names

LOG_TAIL_LINES = 5
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


def _direct(ctx: Refresh, src: Source, name: str, relay: Relay | None, starting: bool, node_answers: str = "") -> _Seen:
    """Interpret a worker's source: its answer, else the relay, else why there is nothing.

    While the job is still starting, a worker that does not listen yet is not a problem (it loads).
    ``node_answers`` names a node where another process answered from here: a worker there that does
    not answer is hung or stopped, not out of the network's reach (no relay, issue 21 defect 6).
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
    if ctx.unanswered(src) and node_answers:
        why = f"no answer while {node_answers} answers from here: hung or stopped?"
        return _Seen("down", why + ctx.retry_note(src), "", True, last, None, f"{name}: {why}")
    if ctx.unanswered(src) and relay is not None and name in relay.health:
        code = relay.health[name]
        got = relayed_http(ctx.files, relay, f"{name}.metrics", ctx.wall(), ctx.relay_fresh_s)
        text = got[1].decode("utf-8", "replace") if got and got[0] == 200 else None
        return _Seen(
            "healthy" if code == 200 else ("down" if code == 0 else "unhealthy"),  # the job itself got no answer
            f"relayed {relay.age_s:.0f} s ago: " + ("no answer" if code == 0 else f"HTTP {code}"),
            "relay",
            False,
            WorkerProbe(code, text),
            ctx.now - relay.age_s,
        )
    if src.kind and starting and src.kind == "refused":
        return _Seen("unknown", "not listening yet (loading?)", "", True, last)
    if src.kind:
        health = "down" if src.kind in _DEFINITIVE else "unreachable"
        return _Seen(health, src.error + ctx.retry_note(src), "", True, last, None, f"{name}: {src.error}")
    if ctx.hanging(src):
        why = f"no answer for {src.pending_for(ctx.now):.0f} s"
        return _Seen("unreachable", why, "", True, last, None, f"{name}: {why}")
    return _Seen("unknown", "waiting for the first answer")


def _ended(ctx: Refresh, job: JobFiles, name: str) -> _Seen:
    """An ended job's worker: down, with the counters the job relayed last (its final scrape), if any."""
    got = final_http(ctx.files, job.dir, f"{name}.metrics")
    text = got[1].decode("utf-8", "replace") if got and got[0] == 200 else None
    probe = WorkerProbe(0, text) if text else None
    return _Seen("down", "the job has ended", "relay" if probe else "", False, probe)


def worker_statuses(
    ctx: Refresh, job: JobFiles, live: bool, final: bool, relay: Relay | None, starting: bool = False
) -> tuple[tuple[WorkerStatus, ...], bool, list[str]]:
    """Statuses of the plan's workers (leaders), whether any came from the relay, and the problems seen
    (``starting``: the job has not reached `router ready` yet)."""
    endpoints = {str(w.get("name")): w for w in job.endpoint_workers()}
    answering: set[int] = set()  # nodes where some worker answered directly this time
    for proc in job.plan.processes:
        ep = endpoints.get(proc.name, {})
        if live and ep.get("health_url") and ctx.sources.get(worker_key(str(ep["health_url"]))).ok:
            answering.add(proc.node_index)
    out: list[WorkerStatus] = []
    used_relay = False
    problems: list[str] = []
    for proc in job.plan.processes:
        if proc.node_rank != 0:
            continue
        name = proc.name
        ep = endpoints.get(name, {})
        if final:
            seen = _ended(ctx, job, name)
        elif live and ep.get("health_url"):
            node = proc.node_index
            here = f"node{node}" if node in answering else ""
            seen = _direct(ctx, ctx.sources.get(worker_key(str(ep["health_url"]))), name, relay, starting, here)
        else:  # nothing to probe: unknown, saying why (as `_direct` says a worker that does not listen yet)
            seen = _Seen(detail=NO_HEALTH_URL if live else NO_ADDRESS)
        used_relay |= seen.source == "relay" and not final  # an ended job's final scrape is no live relay
        if seen.problem:
            problems.append(seen.problem)
        out.append(_status(ctx, job, proc, ep, seen, final))
    return tuple(out), used_relay, problems


def _status(
    ctx: Refresh, job: JobFiles, proc: PlanProcess, ep: Mapping[str, Any], seen: _Seen, final: bool
) -> WorkerStatus:
    name = proc.name
    log = job.dir / (proc.log or f"logs/{name}.log")
    probe = seen.probe
    counters = None
    key = (job.run_key, name)
    serving = None
    if probe is not None and probe.metrics:
        contract = proc.metrics or None
        wanted = WORKER_SAMPLES + selectors.names(contract) if contract else WORKER_SAMPLES
        families: dict[str, object] = dict(proc.serving)
        counters = worker_counters(ctx.samples.samples(probe.metrics, wanted), contract)
        if families:
            # histogram buckets change on every scrape under load: series memoised, values read as floats
            served = ctx.samples.gauges(probe.metrics, wanted_names(families))
            parts = read_worker(ctx.history, key, proc.role, served, families, seen.observed)
            ctx.serving_parts.setdefault(job.job_id, []).append(parts)
            serving = figures(parts)
    ctx.health.note(key, ctx.wall(), seen.health, seen.detail)
    if counters is not None and counters.total is not None and seen.observed is not None:
        ctx.history.observe(key, seen.observed, counters.total)
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
        # after the end: the job's final scrape, or the last total this monitor saw, whichever is newer
        requests_total=_total(counters.total if counters else None, ctx.history.last(key, ctx.now) if final else None),
        requests_ok=counters.ok if counters else None,
        requests_failed=counters.failed if counters else None,
        rate_per_s=ctx.history.rate(key) if not seen.stale and not final else None,
        running=counters.running if counters else None,
        queued=counters.queued if counters else None,
        port=proc.port,
        source=seen.source,
        stale=seen.stale,
        spark=ctx.history.spark(key),
        log_tail=tuple(tail[-LOG_TAIL_LINES:]),
        health_history=ctx.health.changes(key),
        serving=serving,
    )


def _total(relayed: float | None, seen: float | None) -> float | None:
    """The larger of two readings of one monotonic counter (either may be missing)."""
    known = [v for v in (relayed, seen) if v is not None]
    return max(known) if known else None
