"""The router's status for a snapshot: up/down from its registration endpoint, registrations per role
(sglang/vllm-router `/workers`, Dynamo `/health`), and its own counters from its Prometheus port."""

from __future__ import annotations

import json
from dataclasses import replace

from srt_tui.monitor.files.jobfiles import error_line
from srt_tui.monitor.model import ProxyStatus, RouterStatus, WorkerStatus
from srt_tui.monitor.probes import selectors
from srt_tui.monitor.probes.http import Response
from srt_tui.monitor.probes.prom import ROUTER_SAMPLES, router_counters
from srt_tui.monitor.probes.registrations import Registrations, parse_dynamo_health, parse_router_workers
from srt_tui.monitor.probes.sources import Source
from srt_tui.monitor.statuses.context import JobFiles, Refresh, RouterView, nginx_key, router_key, router_metrics_key
from srt_tui.monitor.statuses.relay import Relay, final_http, relayed_http
from srt_tui.monitor.statuses.serving import read_worker, router_parts_key, wanted_names
from srt_tui.monitor.statuses.workers import answering_worker

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
    ctx: Refresh,
    job: JobFiles,
    live: bool,
    relay: Relay | None,
    starting: bool = False,
    view: RouterView | None = None,
    final: bool = False,
) -> tuple[RouterStatus | None, bool, str]:
    """(status, whether it came from the relay, a problem to report) — None without a router.
    While the job is starting, a router that does not listen yet is not down, just not up yet.
    ``view`` picks one router of a multi-frontend job (default: the first, the one the job relays);
    ``final``: the job has ended, its first router shows what the job relayed last."""
    views = job.router_views()
    if view is None:
        if not views:
            return None, False, ""
        view = views[0]
    if view is not views[0]:
        relay = None  # the job relays its first router only
    rplan, ep = view.plan, view.endpoints
    expected = {k: n for k, n in rplan.expected.items() if n}
    registration = rplan.registration
    log = job.dir / (rplan.process.log or "logs/router.log")
    name = rplan.process.name or "router"
    base = RouterStatus(
        type=rplan.type,
        url=ep.get("url") or None,
        expected=expected,
        metrics_url=ep.get("metrics_url") or None,
        registration=registration,
        log=str(log),
        name=name,
        node_index=rplan.process.node_index,
    )
    reg_url = view.registration_url()
    disagg = bool(expected.get("prefill") or expected.get("decode"))
    if final and view is views[0]:
        return _ended(ctx, job, view, base, registration, disagg)
    if not live or not reg_url:
        return base, False, ""
    src = ctx.sources.get(router_key(reg_url))
    regs: Registrations | None = None
    up: bool | None = None
    detail, source, stale, relayed, problem, hung = "", "", False, False, "", False
    # an answer from before this refresh (a steady router's registrations are read every 15 s: `Monitor._steady`;
    # or a read still running) stands while its metrics port answers this refresh; when it does not (the login
    # node cut off, the router gone), the relay speaks for it, or it shows as stale
    metrics = ctx.sources.get(router_metrics_key(view.metrics_url)) if view.metrics_url else None
    held = src.ok and not ctx.answered_now(src) and not (metrics is not None and ctx.answered_now(metrics))
    # a router that does not answer while a worker of its job does is stopped or overloaded, not cut off: its
    # relayed registrations (from before it stopped, maybe) would show it up (issue 21 defect 6)
    failed = src if src.kind else metrics if metrics is not None and metrics.kind else src
    silent = failed.kind == "silent"
    quiet = not starting and failed.kind not in _DEFINITIVE and (held or silent or ctx.unanswered(src))
    neighbour = answering_worker(ctx, job) if quiet else ""
    if src.ok and isinstance(src.value, Response) and not held:
        up, source, stale = True, "direct", not ctx.fresh(src)
        regs, detail = registrations(registration, src.value.status, src.value.body, disagg)
    elif quiet and (neighbour or silent):
        why = failed.error or f"no answer for {max(src.pending_for(ctx.now), _pending(ctx, metrics)):.0f} s"
        said = f"{why}; {neighbour} answers from here" if neighbour else why
        up, stale, hung, detail = False, True, True, f"not answering (stopped or overloaded?): {said}"
        if isinstance(src.value, Response):  # the registrations it answered last, kept (stale), never `0/2`
            regs, _ = registrations(registration, src.value.status, src.value.body, disagg)
    elif held and relay is None and isinstance(src.value, Response):  # its last answer, shown as stale
        up, source, stale = True, "direct", True
        regs, detail = registrations(registration, src.value.status, src.value.body, disagg)
    elif (ctx.unanswered(src) or held) and relay is not None and registration in ("router-workers", "dynamo-health"):
        got = relayed_http(ctx.files, relay, "router_workers.http", ctx.wall(), ctx.relay_fresh_s)
        if got is not None:
            up, source, relayed = (True if got[0] == 200 else None), "relay", True
            regs, note = registrations(registration, got[0], got[1], disagg)
            detail = f"relayed {relay.age_s:.0f} s ago" + (f"; {note}" if note else "")
        else:
            detail = f"unreachable ({src.error or 'no answer'}), nothing relayed"
            problem, stale = f"{name}: {src.error or 'no answer'}", True
    elif src.kind == "refused" and starting:
        detail = "not listening yet"
    elif src.kind:
        up = False if src.kind in _DEFINITIVE else None
        detail = _failed_as(src.kind) + src.error + ctx.retry_note(src)
        problem, stale = f"{name}: {src.error}", True
    elif ctx.hanging(src):
        detail, stale = f"no answer for {src.pending_for(ctx.now):.0f} s", True
        problem = f"{name}: {detail}"
    text, observed = _metrics_text(ctx, view, relay if relayed else None)
    counters = _parse_counters(ctx, view, text) if text is not None else None
    if text is not None:
        _read_serving(ctx, job, view, name, text, observed)
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
        hung=hung,
    )
    return status, relayed, problem


def _ended(
    ctx: Refresh, job: JobFiles, view: RouterView, base: RouterStatus, registration: str, disagg: bool
) -> tuple[RouterStatus, bool, str]:
    """An ended job's router: the registrations and counters of the job's final scrape (not up any more)."""
    regs: Registrations | None = None
    got = final_http(ctx.files, job.dir, "router_workers.http")
    if got is not None and registration in ("router-workers", "dynamo-health"):
        regs, _ = registrations(registration, got[0], got[1], disagg)
    counters = None
    metrics = final_http(ctx.files, job.dir, "router.metrics") if view.metrics_url else None
    if metrics is not None and metrics[0] == 200:
        counters = _parse_counters(ctx, view, metrics[1].decode("utf-8", "replace"))
    if regs is None and counters is None:
        return base, False, ""
    status = replace(
        base,
        registered=regs.registered if regs else {},
        requests=counters[0] if counters else None,
        errors=counters[1] if counters else None,
        retries=counters[2] if counters else None,
        detail="as the job saw it last, before it stopped",
        source="relay",
    )
    return status, False, ""


def _metrics_text(ctx: Refresh, view: RouterView, relay: Relay | None) -> tuple[str | None, float | None]:
    """The router's Prometheus text (its own answer, else the relayed one) and when it was fresh (None:
    not during this refresh, so no new history sample)."""
    url = view.metrics_url
    if not url:
        return None, None
    src = ctx.sources.get(router_metrics_key(url))
    if src.ok and isinstance(src.value, Response) and src.value.status == 200:
        return src.value.text(), src.ok_at if ctx.fresh(src) else None
    if relay is not None:
        got = relayed_http(ctx.files, relay, "router.metrics", ctx.wall(), ctx.relay_fresh_s)
        if got is not None and got[0] == 200:
            return got[1].decode("utf-8", "replace"), ctx.now - relay.age_s
    return None, None


def _read_serving(ctx: Refresh, job: JobFiles, view: RouterView, name: str, text: str, observed: float | None) -> None:
    """The router's own serving families (plan.json `router.serving`), for the job's figures where its
    workers export none."""
    families: dict[str, object] = dict(view.plan.process.serving)
    if not families:
        return
    samples = ctx.samples.gauges(text, wanted_names(families))  # values change each scrape under load
    # its sparklines end at this reading, or now when it was not read (blanks, as a worker's that stopped answering)
    end = observed if observed is not None else ctx.now
    parts = read_worker(ctx.history, (job.run_key, f"{name} (router)"), "router", samples, families, observed, end)
    ctx.serving_parts.setdefault(router_parts_key(job.job_id), []).append(parts)


def _parse_counters(ctx: Refresh, view: RouterView, text: str) -> tuple[float | None, float | None, float | None]:
    """(requests, errors, retries) from the router's Prometheus text, per its metrics contract."""
    contract = view.plan.process.metrics or None
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


def nginx_status(ctx: Refresh, job: JobFiles, live: bool, starting: bool) -> tuple[ProxyStatus | None, str]:
    """nginx in front of the routers, as a process: up when its public port answers /health (which a
    router behind it answers), down when nothing listens; None when the job runs no nginx."""
    plan = job.nginx_plan
    if plan is None:
        return None, ""
    url = job.nginx_health_url()
    log = job.dir / (plan.process.log or "logs/nginx.log")
    base = ProxyStatus(
        name=plan.process.name or "nginx",
        url=url.removesuffix("/health") if url else None,
        node_index=plan.process.node_index,
        upstreams=tuple(str(u) for u in plan.upstreams),
        log=str(log),
    )
    if not live or not url:
        return base, ""
    src = ctx.sources.get(nginx_key(url))
    if src.ok and isinstance(src.value, Response):
        ok = src.value.status == 200
        detail = "" if ok else f"/health through nginx answered HTTP {src.value.status}"
        return replace(base, up=True, detail=detail, stale=not ctx.fresh(src)), ""
    if src.kind == "refused" and starting:
        return replace(base, detail="not listening yet"), ""
    if src.kind:
        silent = src.kind == "silent" and not starting  # it took the connection, sent no reply: hung (or behind it)
        up = False if src.kind in _DEFINITIVE or silent else None
        tail = ctx.files.tail(log) if up is False else []
        detail = _failed_as(src.kind) + src.error + ctx.retry_note(src)
        status = replace(base, up=up, detail=detail, stale=True, last_error_line=error_line(tail), hung=silent)
        return status, f"nginx: {src.error}"
    return base, ""


def nginx_behind(nginx: ProxyStatus, problem: str, routers: tuple[RouterStatus, ...]) -> tuple[ProxyStatus, str]:
    """nginx as its routers explain it: its /health is a router's, so when it got no answer (no reply, a timeout)
    while a router behind it does not serve, that router is why, not nginx (s36 new-operator pass: with router_1
    stopped the panel said nginx `unreachable`). nginx then reads unknown, naming the router; its own problem is
    dropped (the router's is said). Refused or closed (nothing listens) stays nginx's own."""
    if nginx.up is True or nginx.state == "down" or not nginx.stale:  # answered, nothing listens, or not asked yet
        return nginx, problem
    behind = [r for r in routers if r.up is False]
    if not behind:
        return nginx, problem
    names = ", ".join(f"{r.name} {r.state}" for r in behind)
    return replace(nginx, up=None, hung=False, detail=f"no reply through nginx: {names} behind it"), ""


def _pending(ctx: Refresh, src: Source | None) -> float:
    """Seconds a source's running attempt has waited (0: none, or no source)."""
    return src.pending_for(ctx.now) if src is not None else 0.0


def _failed_as(kind: str) -> str:
    """How a failed probe of a router or nginx reads: `down: ` (nothing listens), `not answering: ` (it took the
    connection and sent no reply: stopped or overloaded, its node answers), else `unreachable: `."""
    if kind in _DEFINITIVE:
        return "down: "
    return "not answering (stopped or overloaded?): " if kind == "silent" else "unreachable: "
