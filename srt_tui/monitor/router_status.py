"""The router's status for a snapshot: up/down from its registration endpoint, registrations per role
(sglang/vllm-router `/workers`, Dynamo `/health`), and its own counters from its Prometheus port."""

from __future__ import annotations

import json
from dataclasses import replace

from . import selectors
from .context import JobFiles, Refresh, router_key, router_metrics_key
from .http import Response
from .jobfiles import error_line
from .model import RouterStatus, WorkerStatus
from .prom import ROUTER_SAMPLES, router_counters
from .relay import Relay, relayed_http
from .routers import Registrations, parse_dynamo_health, parse_router_workers

_DEFINITIVE = ("refused", "closed", "protocol")


def registrations(
    registration: str, status: int, body: bytes, disaggregated: bool = False
) -> tuple[Registrations | None, str]:
    """Parsed registrations and a note (an HTTP error, or what a plain health check said)."""
    if status != 200:
        path = "/workers" if registration == "router-workers" else "/health"
        return None, f"{path} answered HTTP {status}"
    try:
        doc = json.loads(body)
    except ValueError:
        doc = None
    if registration == "router-workers":
        return parse_router_workers(doc), ""
    if registration == "dynamo-health":
        return parse_dynamo_health(doc, disaggregated), ""
    return None, "health 200"


def router_status(
    ctx: Refresh, job: JobFiles, live: bool, relay: Relay | None, starting: bool = False
) -> tuple[RouterStatus | None, bool, str]:
    """(status, whether it came from the relay, a problem to report) — None without a router.
    While the job is starting, a router that does not listen yet is not down, just not up yet."""
    rplan = job.router_plan
    if not rplan:
        return None, False, ""
    expected = {str(k): int(n) for k, n in rplan.get("expected", {}).items() if int(n)}
    ep = job.router_endpoints
    registration = str(rplan.get("registration", "router-workers"))
    log = job.dir / str(rplan.get("log") or "logs/router.log")
    base = RouterStatus(
        type=str(rplan.get("type", "")),
        url=ep.get("url") or None,
        expected=expected,
        metrics_url=ep.get("metrics_url") or None,
        registration=registration,
        log=str(log),
    )
    reg_url = job.registration_url()
    if not live or not reg_url:
        return base, False, ""
    src = ctx.sources.get(router_key(reg_url))
    regs: Registrations | None = None
    up: bool | None = None
    detail, source, stale, relayed, problem = "", "", False, False, ""
    disagg = bool(expected.get("prefill") or expected.get("decode"))
    if src.ok and isinstance(src.value, Response):
        up, source, stale = True, "direct", not ctx.fresh(src)
        regs, detail = registrations(registration, src.value.status, src.value.body, disagg)
    elif ctx.unanswered(src) and relay is not None and registration in ("router-workers", "dynamo-health"):
        got = relayed_http(ctx.files, relay, "router_workers.http", ctx.wall(), ctx.relay_fresh_s)
        if got is not None:
            up, source, relayed = (True if got[0] == 200 else None), "relay", True
            regs, note = registrations(registration, got[0], got[1], disagg)
            detail = f"relayed {relay.age_s:.0f} s ago" + (f"; {note}" if note else "")
        else:
            detail = f"unreachable ({src.error or 'no answer'}), nothing relayed"
            problem, stale = f"router: {src.error or 'no answer'}", True
    elif src.kind == "refused" and starting:
        detail = "not listening yet"
    elif src.kind:
        up = False if src.kind in _DEFINITIVE else None
        detail = ("down: " if up is False else "unreachable: ") + src.error + ctx.retry_note(src)
        problem, stale = f"router: {src.error}", True
    elif ctx.hanging(src):
        detail, stale = f"no answer for {src.pending_for(ctx.now):.0f} s", True
        problem = f"router: {detail}"
    counters = _counters(ctx, job, relay if relayed else None)
    tail = ctx.files.tail(log) if up is False else []
    status = replace(
        base,
        up=up,
        registered=regs.registered if regs else {},
        healthy=regs.healthy if regs else {},
        requests=counters[0] if counters else None,
        errors=counters[1] if counters else None,
        retries=counters[2] if counters else None,
        detail=detail,
        source=source,
        stale=stale,
        last_error_line=error_line(tail),
        by_url=regs.by_url if regs else {},
    )
    return status, relayed, problem


def _counters(
    ctx: Refresh, job: JobFiles, relay: Relay | None
) -> tuple[float | None, float | None, float | None] | None:
    url = job.router_endpoints.get("metrics_url")
    if not url:
        return None
    src = ctx.sources.get(router_metrics_key(str(url)))
    text: str | None = None
    if src.ok and isinstance(src.value, Response) and src.value.status == 200:
        text = src.value.text()
    elif relay is not None:
        got = relayed_http(ctx.files, relay, "router.metrics", ctx.wall(), ctx.relay_fresh_s)
        if got is not None and got[0] == 200:
            text = got[1].decode("utf-8", "replace")
    if text is None:
        return None
    contract = job.router_plan.get("metrics") if isinstance(job.router_plan.get("metrics"), dict) else None
    wanted = ROUTER_SAMPLES + selectors.names(contract) if contract else ROUTER_SAMPLES
    c = router_counters(ctx.samples.samples(text, wanted), contract)
    return c.requests, c.errors, c.retries


def with_router_view(workers: tuple[WorkerStatus, ...], router: RouterStatus | None) -> tuple[WorkerStatus, ...]:
    """Each worker's health as the router sees it (is_healthy of its URL in /workers)."""
    if router is None or not router.by_url:
        return workers
    return tuple(
        replace(w, router_healthy=router.by_url.get((w.url or "").rstrip("/"))) if w.url else w for w in workers
    )
