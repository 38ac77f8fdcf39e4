"""One monitor refresh: one batched Slurm query, the job directories, and async HTTP probes.

Each source is independent: a failing one is reported as stale with its error and never stops the
others. When the login node cannot reach the nodes, what the job relays into its directory is used.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx

from ..slurm.client import JobState, SlurmClient
from ..slurm.local import LocalLauncher, is_local_job
from .jobfiles import Event, last_error_line, read_events, read_json
from .model import FINAL_STAGES, JobSnapshot, RouterStatus, SourceState, WorkerStatus

_SLURM_FINAL = {
    "COMPLETED": "completed",
    "CANCELLED": "cancelled",
    "TIMEOUT": "timed out",
    "FAILED": "failed",
    "NODE_FAIL": "failed",
    "OUT_OF_MEMORY": "failed",
    "BOOT_FAIL": "failed",
    "DEADLINE": "timed out",
    "PREEMPTED": "cancelled",
}
RELAY_FRESH_S = 30.0


def derive_stage(events: list[Event], state: JobState | None) -> tuple[str, str, str]:
    """(stage, time, detail) from the job's own events reconciled with Slurm's state."""
    last = events[-1] if events else Event("submitted", "", "")
    slurm = state.state if state is not None else "UNKNOWN"
    if slurm == "PENDING" and last.stage in ("submitted", ""):
        return "pending", last.time, state.reason if state else ""
    final = _SLURM_FINAL.get(slurm)
    if final is not None:
        if last.stage in FINAL_STAGES:
            if final == "timed out" and last.stage == "cancelled":
                return "timed out", last.time, "time limit reached"
            return last.stage, last.time, last.detail
        detail = f"Slurm: {slurm}" + (f" ({state.reason})" if state and state.reason else "")
        if final == "completed":
            final, detail = "failed", f"the job ended at stage `{last.stage}` ({detail})"
        return final, last.time, detail
    return last.stage, last.time, last.detail


def parse_router_workers(body: Any) -> tuple[dict[str, int], dict[str, int]]:
    """(registered, healthy) per role from sglang-router / vllm-router `GET /workers`."""
    registered: dict[str, int] = {}
    healthy: dict[str, int] = {}
    if not isinstance(body, dict):
        return registered, healthy
    role_of = {"prefill": "prefill", "decode": "decode", "regular": "agg"}
    for w in body.get("workers") or []:
        if not isinstance(w, dict):
            continue
        role = role_of.get(str(w.get("worker_type", "regular")).lower(), "agg")
        registered[role] = registered.get(role, 0) + 1
        if w.get("is_healthy"):
            healthy[role] = healthy.get(role, 0) + 1
    return registered, healthy


class Monitor:
    """Builds JobSnapshots; reuse one instance so HTTP connections are pooled across refreshes."""

    def __init__(self, slurm: SlurmClient | None, http_timeout: float = 2.0) -> None:
        self.slurm = slurm
        self.local = LocalLauncher()
        self._http = httpx.AsyncClient(timeout=http_timeout, limits=httpx.Limits(max_connections=256))
        self.slurm_queries = 0

    async def aclose(self) -> None:
        """Close pooled connections."""
        await self._http.aclose()

    async def _slurm_states(self, ids: list[str]) -> tuple[dict[str, JobState], SourceState]:
        if not ids:
            return {}, SourceState("slurm", True)
        if self.slurm is None:
            return {}, SourceState("slurm", False, "no Slurm transport available")
        self.slurm_queries += 1
        try:
            states = await asyncio.to_thread(self.slurm.query, ids)
        except Exception as exc:  # any transport failure is shown, never raised
            return {}, SourceState("slurm", False, str(exc).strip().splitlines()[0] if str(exc) else repr(exc))
        return states, SourceState("slurm", True)

    async def _get(self, url: str) -> tuple[int, Any]:
        resp = await self._http.get(url)
        try:
            body: Any = resp.json()
        except ValueError:
            body = resp.text
        return resp.status_code, body

    async def _probe_worker(self, w: Mapping[str, Any]) -> tuple[str, str]:
        url = w.get("health_url")
        if not url:
            return "unknown", "no health URL"
        try:
            code, _ = await self._get(str(url))
        except httpx.HTTPError as exc:
            return "down", type(exc).__name__
        return ("healthy", "200") if code == 200 else ("unhealthy", f"HTTP {code}")

    async def snapshot(self, job_id: str, job_dir: Path, state: JobState | None, slurm_src: SourceState) -> JobSnapshot:
        """Snapshot of one job from its files and HTTP."""
        meta = read_json(job_dir / "job.json") or {}
        plan = read_json(job_dir / "plan.json") or {}
        endpoints = read_json(job_dir / "endpoints.json")
        events = read_events(job_dir)
        stage, stage_time, detail = derive_stage(events, state)
        sources = [slurm_src, SourceState("job dir", bool(plan), "" if plan else "plan.json missing")]
        by_name = {p["name"]: p for p in plan.get("processes", []) if isinstance(p, dict)}
        live = endpoints is not None and stage not in FINAL_STAGES
        ep_workers = {w["name"]: w for w in (endpoints or {}).get("workers", []) if isinstance(w, dict)}
        probes: dict[str, tuple[str, str]] = {}
        relayed = False
        if live:
            names = list(ep_workers)
            results = await asyncio.gather(*(self._probe_worker(ep_workers[n]) for n in names))
            probes = dict(zip(names, results))
            reachable = any(h != "down" for h, _ in results)
            sources.append(SourceState("http", reachable or not names, "" if reachable else "nodes unreachable"))
            if names and not reachable:
                relay = self._relay(job_dir)
                if relay is not None:
                    probes, relayed = relay, True
                    sources.append(SourceState("relay", True))
        workers = []
        for name, proc in by_name.items():
            if proc.get("node_rank", 0) != 0:
                continue
            health, why = probes.get(name, ("unknown", ""))
            if stage in FINAL_STAGES:
                health = "down"
            log = job_dir / str(proc.get("log", f"logs/{name}.log"))
            workers.append(
                WorkerStatus(
                    name=name,
                    role=str(proc.get("role")),
                    node_index=int(proc.get("node_index", 0)),
                    gpus=tuple(proc.get("gpus", ())),
                    mask=proc.get("visible_devices"),
                    url=ep_workers.get(name, {}).get("url") or proc.get("url"),
                    health=health,
                    detail=why,
                    last_error_line=last_error_line(log) if health != "healthy" else "",
                    log=str(log),
                )
            )
        router = await self._router(plan, endpoints, live)
        failure_log = ""
        if stage == "failed" and "log:" in detail:
            failure_log = detail.rsplit("log:", 1)[1].strip()
        return JobSnapshot(
            job_id=job_id,
            job_dir=str(job_dir),
            name=str(meta.get("name", plan.get("name", ""))),
            profile=str(meta.get("profile", plan.get("profile", ""))),
            topology=str(plan.get("topology", "")),
            launcher=str(meta.get("launcher", "")),
            slurm_state=state.state if state else "UNKNOWN",
            slurm_reason=state.reason if state else "",
            stage=stage,
            stage_time=stage_time,
            stage_detail=detail,
            workers=tuple(workers),
            router=router,
            sources=tuple(sources),
            submitted_at=str(meta.get("submitted_at", "")),
            relayed=relayed,
            failure_log=failure_log,
        )

    def _relay(self, job_dir: Path) -> dict[str, tuple[str, str]] | None:
        path = job_dir / "relay" / "health.json"
        try:
            age = time.time() - path.stat().st_mtime
        except OSError:
            return None
        doc = read_json(path)
        if not isinstance(doc, dict) or age > RELAY_FRESH_S:
            return None
        out = {}
        for name, code in (doc.get("workers") or {}).items():
            out[str(name)] = ("healthy", "200 (relayed)") if code == 200 else ("unhealthy", f"{code} (relayed)")
        return out

    async def _router(self, plan: dict[str, Any], endpoints: Any, live: bool) -> RouterStatus | None:
        rplan = plan.get("router")
        if not isinstance(rplan, dict):
            return None
        expected = {k: int(v) for k, v in (rplan.get("expected") or {}).items()}
        ep_router = (endpoints or {}).get("router") or {}
        status = RouterStatus(type=str(rplan.get("type")), url=ep_router.get("url"), expected=expected)
        workers_url = ep_router.get("workers_url")
        if not live or not workers_url:
            return status
        try:
            code, body = await self._get(str(workers_url))
        except httpx.HTTPError as exc:
            return RouterStatus(status.type, status.url, False, expected, detail=type(exc).__name__)
        registered, healthy = parse_router_workers(body)
        return RouterStatus(
            status.type,
            status.url,
            code == 200,
            expected,
            registered,
            healthy,
            detail="" if code == 200 else f"HTTP {code}",
        )

    async def refresh(self, jobs: Mapping[str, Path]) -> list[JobSnapshot]:
        """Snapshots of all tracked jobs: exactly one Slurm query, then files and HTTP concurrently."""
        slurm_ids = [j for j in jobs if not is_local_job(j)]
        states, slurm_src = await self._slurm_states(slurm_ids)
        for j, d in jobs.items():
            if is_local_job(j):
                states[j] = self.local.state(j, d)
        return list(
            await asyncio.gather(
                *(
                    self.snapshot(j, d, states.get(j), slurm_src if not is_local_job(j) else SourceState("local", True))
                    for j, d in jobs.items()
                )
            )
        )
