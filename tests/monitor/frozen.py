"""Frozen JobSnapshots for snapshot and Pilot tests, built from real plans of shipped recipes.

Placement (nodes, GPUs, masks, ports, logs) comes from the core's plan of an NVIDIA or AMD recipe, so
the grids are what those jobs really look like; health and counters are chosen per scenario.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from srt_tui.core.jobdir.contract import JobMeta, parse_plan
from srt_tui.monitor.model import GpuReading, JobSnapshot, RouterStatus, SourceState, WorkerStatus
from srt_tui.monitor.snapshot.build import job_totals, log_refs, placements
from srt_tui.monitor.statuses.context import JobFiles
from srt_tui.monitor.statuses.workers import NO_ADDRESS
from tests.conftest import REPO

NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=timezone.utc)


def fixed_clock() -> datetime:
    """The injected clock of every frozen test."""
    return NOW


def plan_json(recipe: str, profile: str, topology: str | None = None) -> dict[str, Any]:
    """plan.json of a shipped recipe under a shipped profile (node addresses made up)."""
    from srt_tui.core.api import prepare

    plan: dict[str, Any] = prepare(str(REPO / "recipes" / recipe), profile, topology).plan.to_json()
    return plan


def _url(url: str | None, node: int, net: str = "10.1.0") -> str | None:
    return url.replace(f"<ip:node{node}>", f"{net}.{11 + node}") if url else None


def gpu_readings(
    nodes: int, gpus_per_node: int, idle_w: float, stale_nodes: tuple[int, ...] = ()
) -> tuple[GpuReading, ...]:
    """Made-up exporter readings: every GPU busy but a few (one at 100 %, one idle), power rising with
    load; nodes in ``stale_nodes`` keep their last values, marked stale (their exporter stopped answering)."""
    out = []
    for node in range(nodes):
        for g in range(gpus_per_node):
            util = (100, 97, 88, 91, 37, 42, 0, 64)[(g + 3 * node) % 8]
            out.append(GpuReading(node, g, float(util), idle_w + 5.5 * util, 34.0 + util / 3 + g, node in stale_nodes))
    return tuple(out)


def frozen_job(
    job_id: str,
    recipe: str,
    profile: str,
    *,
    scenario: str = "healthy",
    started: str = "2026-03-01T11:15:23Z",
    submitted: str = "2026-03-01T11:15:20Z",
    topology: str | None = None,
    job_dir: Path | None = None,
    net: str = "10.1.0",
) -> JobSnapshot:
    """A job's snapshot: `healthy` (serving, all registered, GPU exporter readings), `degraded` (a dead
    decode worker), `exporter-down` (healthy, but the last node's GPU exporter stopped answering),
    `relayed` (healthy, seen through the job's relay), `pending`, or `failed`; its nodes' addresses in ``net``."""
    plan = plan_json(recipe, profile, topology)
    jdir = job_dir or Path(f"/scratch/srt/outputs/{job_id}")
    files = JobFiles(job_id, jdir, JobMeta(job_id), parse_plan(jdir / "plan.json", json.dumps(plan)), None, [])
    router_plan = plan.get("router") or {}
    workers = []
    for i, p in enumerate(x for x in plan["processes"] if x["node_rank"] == 0):
        total = 1200.0 + 37 * i if p["role"] != "prefill" else 2400.0 + 11 * i
        spark = tuple(2.0 + ((k * (i + 3)) % 7) for k in range(30))
        workers.append(
            WorkerStatus(
                name=p["name"], role=p["role"], node_index=p["node_index"], gpus=tuple(p["gpus"]),
                mask=p["visible_devices"], url=_url(p["url"], p["node_index"], net), health="healthy",
                detail="HTTP 200", log=str(jdir / p["log"]), requests_total=total, requests_ok=total - i,
                requests_failed=float(i), rate_per_s=3.5 + i, running=float(i % 3), queued=0.0,
                port=p["port"], source="direct", spark=spark, router_healthy=True if router_plan else None,
            )
        )  # fmt: skip
    expected = {k: v for k, v in (router_plan.get("expected") or {}).items() if v}
    router = (
        RouterStatus(
            type=router_plan["type"],
            url=_url(router_plan["url"], 0, net),
            up=True,
            expected=expected,
            registered=dict(expected),
            healthy=dict(expected),
            requests=3650.0,
            errors=4.0,
            retries=2.0,
            metrics_url=_url(router_plan["metrics_url"], 0, net),
            registration=router_plan["registration"],
            source="direct",
            log=str(jdir / "logs/router.log"),
        )  # fmt: skip
        if router_plan
        else None
    )
    sources = [SourceState("slurm", True), SourceState("job dir", True), SourceState("http", True)]
    stage, detail, slurm, relayed = "serving", f"serving at {_url(plan['public_url'], 0, net)}", "RUNNING", False
    gpus: tuple[GpuReading, ...] = ()
    idle_w = 140.0 if "ROCR" in str(plan["visible_devices_env"]) else 70.0
    if scenario == "healthy":
        gpus = gpu_readings(plan["nodes"], plan["gpus_per_node"], idle_w)
        sources.append(SourceState("gpu exporter", True))
    elif scenario == "exporter-down":
        last = plan["nodes"] - 1
        gpus = gpu_readings(plan["nodes"], plan["gpus_per_node"], idle_w, (last,))
        sources.append(SourceState("gpu exporter", False, f"node{last}: connection refused", 6.0, 4.0))
    elif scenario == "degraded":
        dead = next(w for w in reversed(workers) if w.role in ("decode", "agg"))
        error = (
            "RuntimeError: HIP error: an illegal memory access was encountered"
            if "ROCR" in str(plan["visible_devices_env"])
            else "RuntimeError: CUDA error: an illegal memory access was encountered"
        )
        workers = [
            replace(w, health="down", detail="connection refused (retry in 2.0 s)", stale=True, rate_per_s=None,
                    source="",
                    last_error_line=error, router_healthy=False if router else None,
                    log_tail=("[2026-03-01 11:59:40] Scheduler hit an exception", error))
            if w.name == dead.name else w
            for w in workers
        ]  # fmt: skip
        if router is not None:
            healthy = dict(router.healthy)
            healthy[dead.role] -= 1
            router = replace(router, healthy=healthy, errors=57.0, retries=31.0)
        sources[2] = SourceState("http", False, f"{dead.name}: connection refused", 4.0, 2.0)
    elif scenario == "relayed":
        workers = [replace(w, source="relay", detail="relayed 3 s ago: HTTP 200") for w in workers]
        if router is not None:
            router = replace(router, source="relay", detail="relayed 3 s ago")
        sources.append(SourceState("relay", True, "", 3.0))
        relayed = True
    elif scenario == "pending":
        workers = [replace(w, health="unknown", detail=NO_ADDRESS, requests_total=None, requests_ok=None,
                           requests_failed=None, rate_per_s=None, running=None, queued=None, spark=(),
                           source="", router_healthy=None) for w in workers]  # fmt: skip
        router = replace(router, up=None, registered={}, healthy={}, requests=None, errors=None, retries=None,
                         source="") if router else None  # fmt: skip
        stage, detail, slurm, started = "pending", "Resources", "PENDING", ""
        sources = sources[:2]
    elif scenario == "failed":
        workers = [replace(w, health="down", detail="the job has ended", rate_per_s=None) for w in workers]
        stage, slurm = "failed", "FAILED"
        detail = f"worker {workers[0].name} exited with code 3; log: {workers[0].log}"
        sources = sources[:2]
    ws = tuple(workers)
    requests, errors, rate = job_totals(ws, router)
    return JobSnapshot(
        job_id=job_id, job_dir=str(jdir), name=plan["name"], profile=plan["profile"], topology=plan["topology"],
        launcher="slurm", slurm_state=slurm, slurm_reason="Resources" if scenario == "pending" else "",
        stage=stage, stage_time="2026-03-01T11:16:02Z", stage_detail=detail, workers=ws, router=router,
        sources=tuple(sources), submitted_at=submitted, relayed=relayed, engine=plan["engine"],
        frontend=plan["frontend"], nodes=plan["nodes"], gpus_per_node=plan["gpus_per_node"],
        visible_devices_env=plan["visible_devices_env"], started_at=started,
        ended_at="2026-03-01T11:40:00Z" if scenario == "failed" else "", placements=placements(files.plan),
        logs=log_refs(files), requests=requests, errors=errors, served=requests, served_errors=errors,
        rate_per_s=rate, gpus=gpus,
        hostnames=() if scenario == "pending" else hostnames(profile, plan["nodes"]),
    )  # fmt: skip


def hostnames(profile: str, nodes: int) -> tuple[str, ...]:
    """Slurm host names as a cluster names its nodes (`h100-017`, `mi300x-017`, …)."""
    return tuple(f"{profile.rsplit('-', 1)[-1]}-{17 + i:03d}" for i in range(nodes))


def nvidia(scenario: str = "healthy", job_id: str = "81234") -> JobSnapshot:
    """H100 2P1D (prefills on GPU subsets with CUDA masks) behind sglang-router."""
    return frozen_job(job_id, "nvidia/h100-2p1d-sglang.yaml", "nvidia-h100", scenario=scenario)


def amd(scenario: str = "healthy", job_id: str = "81240") -> JobSnapshot:
    """MI300X 1P1D colocated on one node (ROCR masks 0-3 / 4-7) behind vllm-router."""
    return frozen_job(job_id, "amd/mi300x-vllm-moriio-colocated.yaml", "amd-mi300x", scenario=scenario,
                      started="2026-03-01T10:02:11Z", submitted="2026-03-01T10:01:40Z")  # fmt: skip


def fleet() -> list[JobSnapshot]:
    """A jobs table's worth: NVIDIA and AMD, healthy, degraded, relayed, pending (with Slurm's start estimate),
    failed."""
    return [
        nvidia("healthy", "81234"),
        amd("degraded", "81240"),
        frozen_job("81251", "nvidia/h100-1p2d-sglang.yaml", "nvidia-h100", scenario="relayed",
                   started="2026-03-01T11:50:00Z", submitted="2026-03-01T11:49:58Z"),
        replace(frozen_job("81262", "amd/mi300x-agg-sglang-direct.yaml", "amd-mi300x", scenario="pending",
                           submitted="2026-03-01T11:52:30Z"),
                expected_start_at="2026-03-01T12:09:51Z"),  # Slurm's estimate: `starts in ~9m51s` at NOW
        frozen_job("81199", "nvidia/h100-2p1d-vllm-router.yaml", "nvidia-h100", scenario="failed",
                   started="2026-03-01T09:00:00Z", submitted="2026-03-01T08:59:00Z"),
    ]  # fmt: skip


def with_serving(snap: JobSnapshot) -> JobSnapshot:
    """``snap`` under steady load: made-up serving figures per worker (decode workers slower to the first
    token than prefill ones) and the job's, with sparkline points that rise and settle."""
    from srt_tui.monitor.model import Serving

    points = (0.21, 0.24, 0.3, 0.33, 0.31, 0.3, 0.29, 0.3, 0.31, 0.3)
    workers = []
    for i, w in enumerate(snap.workers):
        prefill = w.role == "prefill"
        workers.append(
            replace(
                w,
                serving=Serving(
                    ttft_p50_s=0.18 if prefill else 0.3 + 0.01 * i,
                    ttft_p99_s=0.38 if prefill else 0.52,
                    itl_p50_s=None if prefill else 0.0041,
                    itl_p99_s=None if prefill else 0.0162,
                    e2e_p50_s=0.19 if prefill else 0.61,
                    e2e_p99_s=0.4 if prefill else 0.95,
                    input_tok_per_s=412.0 if prefill else 0.0,
                    output_tok_per_s=12.9 if prefill else 824.6,
                    running=4.0,
                    waiting=0.0 if prefill else 2.0,
                    kv_usage=0.12 if prefill else 0.37,
                    window_s=60.0,
                    spark_ttft_s=points,
                    spark_itl_s=tuple(p / 70 for p in points),
                    spark_output_tok=tuple(p * 2700 for p in points),
                ),
            )
        )
    job = Serving(
        ttft_p50_s=0.305, ttft_p99_s=0.52, itl_p50_s=0.0041, itl_p99_s=0.0162, e2e_p50_s=0.61, e2e_p99_s=0.95,
        input_tok_per_s=824.0, output_tok_per_s=1649.2, running=12.0, waiting=2.0, kv_usage=0.37, window_s=60.0,
        spark_ttft_s=points, spark_itl_s=tuple(p / 70 for p in points),
        spark_output_tok=tuple(p * 5400 for p in points),
    )  # fmt: skip
    return replace(snap, workers=tuple(workers), serving=job)


#: a degraded H100 2P1D job's story: its stages as the launch script writes them
DEGRADED_EVENTS = (
    ("submitted", "2026-03-01T11:15:20.114Z", "slurm job 81234 via sbatch"),
    ("starting", "2026-03-01T11:15:23.402Z", "job 81234 via slurm"),
    ("resolving nodes", "2026-03-01T11:15:23.551Z", "interface ib0"),
    ("workers starting", "2026-03-01T11:15:24.010Z", "3 process(es) on 2 node(s)"),
    ("workers healthy", "2026-03-01T11:15:24.630Z", "0/3"),
    ("workers healthy", "2026-03-01T11:21:02.917Z", "3/3"),
    ("router starting", "2026-03-01T11:21:03.120Z", "sglang-router router on node 0"),
    ("router ready", "2026-03-01T11:21:09.871Z", "P 2/2 D 1/1 A 0/0"),
    ("serving", "2026-03-01T11:21:09.902Z", "serving at http://10.1.0.11:8000"),
)


def degraded_with_events(job_dir: Path) -> JobSnapshot:
    """`nvidia("degraded")` with its job directory's status.jsonl written, and the health changes a Monitor
    saw of its dead decode (healthy at 11:22, down at 11:59:41)."""
    from srt_tui.monitor.model import HealthChange

    job_dir.mkdir(parents=True, exist_ok=True)
    lines = (json.dumps({"stage": s, "time": t, "detail": d}) for s, t, d in DEGRADED_EVENTS)
    (job_dir / "status.jsonl").write_text("".join(line + "\n" for line in lines))
    snap = replace(nvidia("degraded"), job_dir=str(job_dir))
    history = {
        w.name: (HealthChange("2026-03-01T11:22:00Z", "healthy", "HTTP 200"),)
        + ((HealthChange("2026-03-01T11:59:41Z", "down", w.detail),) if w.health == "down" else ())
        for w in snap.workers
    }
    return replace(snap, workers=tuple(replace(w, health_history=history[w.name]) for w in snap.workers))
