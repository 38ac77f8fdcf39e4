"""Router registration views: sglang-router / smg / vllm-router `GET /workers`, Dynamo's `GET /health`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_ROLE_OF = {"prefill": "prefill", "decode": "decode", "regular": "agg"}
_RANK_SUFFIX = re.compile(r"@\d+$")


@dataclass(frozen=True)
class Registrations:
    """Registered and healthy workers per role, and the router's health flag per worker URL."""

    registered: dict[str, int] = field(default_factory=dict)
    healthy: dict[str, int] = field(default_factory=dict)
    by_url: dict[str, bool] = field(default_factory=dict)


def _physical_url(entry: dict[str, Any]) -> str:
    """The worker process an entry stands for: under `--dp-aware` the routers list one entry per data-parallel
    rank, `http://host:port@rank`, and smg adds the process's own URL as `dp_base_url`."""
    base = entry.get("dp_base_url")
    url = str(base if base else entry.get("url", "")).rstrip("/")
    return _RANK_SUFFIX.sub("", url)


def parse_router_workers(body: Any) -> Registrations:
    """From sglang-router, smg or vllm-router `GET /workers` JSON (all list `workers[]` with worker_type/is_healthy).

    The data-parallel ranks of one worker count as that one worker, healthy when all its ranks are, so the
    counts compare with the plan's workers. `stats.{prefill,decode,regular}_count` is used when the list is
    absent (srtctl's contract).
    """
    if not isinstance(body, dict):
        return Registrations()
    workers = body.get("workers")
    if isinstance(workers, list):
        roles: dict[str, str] = {}
        ok_by_url: dict[str, bool] = {}
        for index, w in enumerate(workers):
            if not isinstance(w, dict):
                continue
            url = _physical_url(w) or f"#{index}"  # an entry without a URL is a worker of its own
            roles[url] = _ROLE_OF.get(str(w.get("worker_type", "regular")).lower(), "agg")
            ok_by_url[url] = ok_by_url.get(url, True) and bool(w.get("is_healthy"))
        registered: dict[str, int] = {}
        healthy: dict[str, int] = {}
        for url, role in roles.items():
            registered[role] = registered.get(role, 0) + 1
            if ok_by_url[url]:
                healthy[role] = healthy.get(role, 0) + 1
        return Registrations(registered, healthy, {url: ok for url, ok in ok_by_url.items() if url[:1] != "#"})
    counted: dict[str, int] = {}
    stats = body.get("stats")
    if isinstance(stats, dict):
        for key, role in (("prefill_count", "prefill"), ("decode_count", "decode"), ("regular_count", "agg")):
            n = stats.get(key)
            if isinstance(n, int) and n:
                counted[role] = n
    return Registrations(counted, {}, {})


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
