"""Router registration views: sglang-router / vllm-router `GET /workers`, Dynamo's `GET /health`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

_ROLE_OF = {"prefill": "prefill", "decode": "decode", "regular": "agg"}


@dataclass(frozen=True)
class Registrations:
    """Registered and healthy workers per role, and the router's health flag per worker URL."""

    registered: dict[str, int] = field(default_factory=dict)
    healthy: dict[str, int] = field(default_factory=dict)
    by_url: dict[str, bool] = field(default_factory=dict)


def parse_router_workers(body: Any) -> Registrations:
    """From sglang-router or vllm-router `GET /workers` JSON (both list `workers[]` with worker_type/is_healthy).

    `stats.{prefill,decode,regular}_count` is used when the list is absent (srtctl's contract).
    """
    registered: dict[str, int] = {}
    healthy: dict[str, int] = {}
    by_url: dict[str, bool] = {}
    if not isinstance(body, dict):
        return Registrations()
    workers = body.get("workers")
    if isinstance(workers, list):
        for w in workers:
            if not isinstance(w, dict):
                continue
            role = _ROLE_OF.get(str(w.get("worker_type", "regular")).lower(), "agg")
            registered[role] = registered.get(role, 0) + 1
            ok = bool(w.get("is_healthy"))
            if ok:
                healthy[role] = healthy.get(role, 0) + 1
            if w.get("url"):
                by_url[str(w["url"]).rstrip("/")] = ok
        return Registrations(registered, healthy, by_url)
    stats = body.get("stats")
    if isinstance(stats, dict):
        for key, role in (("prefill_count", "prefill"), ("decode_count", "decode"), ("regular_count", "agg")):
            n = stats.get(key)
            if isinstance(n, int) and n:
                registered[role] = n
    return Registrations(registered, {}, by_url)


def parse_dynamo_health(body: Any, disaggregated: bool = False) -> Registrations:
    """From Dynamo's frontend `GET /health`: `instances[]` with `endpoint == "generate"`, role by component.

    As srtctl counts them: component `prefill` is a prefill worker; any other (`decode`, `backend`,
    `tensorrt_llm`, ...) a decode worker when the job is disaggregated, else an aggregated one.
    """
    registered: dict[str, int] = {}
    if not isinstance(body, dict):
        return Registrations()
    other = "decode" if disaggregated else "agg"
    for inst in body.get("instances") or []:
        if not isinstance(inst, dict) or inst.get("endpoint") != "generate":
            continue
        role = "prefill" if str(inst.get("component", "")).lower() == "prefill" else other
        registered[role] = registered.get(role, 0) + 1
    return Registrations(registered, dict(registered), {})
