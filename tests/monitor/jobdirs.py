"""Job directories built by hand around real processes (mock workers, the real sglang-router), so the
monitor can be tested without Slurm: plan.json, endpoints.json, job.json and status.jsonl as the
launch script would write them, and logs where the processes really write."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from srt_tui.monitor.model import JobSnapshot
from tests.mock.mockprocs import HOST, Launcher, Proc, Router, Worker, wait_until


def _proc_entry(w: Worker, node: int, gpus: list[int]) -> dict[str, Any]:
    return {
        "name": w.name, "role": w.role if w.role != "regular" else "agg", "kind": "worker", "node_index": node,
        "gpus": gpus, "visible_devices": ",".join(map(str, gpus)) if len(gpus) < 8 else None, "port": w.port,
        "url": w.url, "log": f"logs/{w.name}.log", "node_rank": 0, "nnodes": 1, "worker": w.name,
    }  # fmt: skip


@dataclass
class PdJob:
    """A 1P2D job of real processes: prefill_0, decode_0, decode_1 behind sglang-router."""

    dir: Path
    launcher: Launcher
    workers: dict[str, Worker]
    router: Router
    router_argv: list[str] = field(default_factory=list)

    def kill_router(self) -> None:
        """Stop the router process."""
        self.router.proc.stop()

    def restart_router(self) -> None:
        """Start the router again on the same ports (with the same arguments) and wait until it listens."""
        log = self.dir / "logs" / "router.log"
        with open(log, "ab") as fh:
            popen = subprocess.Popen(self.router_argv, stdout=fh, stderr=subprocess.STDOUT, env=_env())
        self.router.proc = Proc("router", popen, log)
        self.launcher.procs.append(self.router.proc)
        wait_until(lambda: _answers(self.router.url + "/workers"), 20, "the router to listen again")

    def kill_worker(self, name: str) -> None:
        """Stop a worker process (SIGTERM, like a crash the job notices)."""
        self.workers[name].proc.stop()

    def restart_worker(self, name: str) -> None:
        """Start a stopped worker again on its port, logging to the same file."""
        old = self.workers[name]
        w = self.launcher.start_worker(old.role, flavor="sglang", name=name, port=old.port)
        self.workers[name] = self.launcher.wait_worker(w)

    def post(self, name: str, path: str, **params: str) -> None:
        """A control request to a worker (e.g. /mock/health ok=0)."""
        self.workers[name].post(path, **params).raise_for_status()


def _env() -> dict[str, str]:
    from tests.mock.mockprocs import child_env

    return child_env()


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=1, trust_env=False).status_code == 200
    except httpx.HTTPError:
        return False


def start_pd_job(job_dir: Path, job_id: str, kind: str = "sglang") -> PdJob:
    """Start prefill_0, decode_0, decode_1 and sglang-router or vllm-router (`kind`, PD, round robin) and
    write their job directory."""
    logs = job_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    launcher = Launcher(logs)
    specs = [("prefill", "prefill_0"), ("decode", "decode_0"), ("decode", "decode_1")]
    workers = {w.name: w for w in launcher.workers(*specs)}
    router = launcher.router(kind, list(workers.values()))
    router.proc.log.rename(logs / "router.log")
    router.proc.log = logs / "router.log"
    argv = [str(a) for a in router.proc.popen.args]  # type: ignore[union-attr]
    nodes = {"prefill_0": (0, list(range(8))), "decode_0": (1, list(range(8))), "decode_1": (2, list(range(8)))}
    processes = [_proc_entry(workers[n], *nodes[n]) for n in ("prefill_0", "decode_0", "decode_1")]
    plan = {
        "version": 1, "name": "mock-1p2d", "profile": "local", "topology": "1P2D", "engine": "mocker",
        "frontend": f"{kind}-router", "nodes": 3, "gpus_per_node": 8, "visible_devices_env": "CUDA_VISIBLE_DEVICES",
        "processes": processes, "infra": [],
        "router": {
            "type": f"{kind}-router", "name": "router", "role": "router", "kind": "router", "node_index": 0,
            "port": router.port, "url": router.url, "log": "logs/router.log", "registration": "router-workers",
            "expected": {"prefill": 1, "decode": 2}, "workers_url": router.url + "/workers",
            "metrics_url": router.metrics_url,
        },
        "benchmark": None, "public_url": router.url,
    }  # fmt: skip
    endpoints = {
        "job_id": job_id,
        "nodes": [{"index": i, "hostname": f"local{i}", "ip": HOST} for i in range(3)],
        "workers": [
            {"name": p["name"], "role": p["role"], "node_index": p["node_index"], "url": p["url"],
             "health_url": p["url"] + "/health", "metrics_url": p["url"] + "/metrics"}
            for p in processes
        ],
        "router": {"type": f"{kind}-router", "url": router.url, "workers_url": router.url + "/workers",
                   "metrics_url": router.metrics_url},
        "public_url": router.url,
    }  # fmt: skip
    meta = {"job_id": job_id, "name": "mock-1p2d", "profile": "local", "topology": "1P2D", "launcher": "slurm",
            "submitted_at": "2026-03-01T11:00:00Z"}  # fmt: skip
    (job_dir / "plan.json").write_text(json.dumps(plan, indent=1))
    (job_dir / "endpoints.json").write_text(json.dumps(endpoints, indent=1))
    (job_dir / "job.json").write_text(json.dumps(meta))
    events = [("submitted", ""), ("starting", ""), ("router ready", "P 1/1 D 2/2 A 0/0"), ("serving", router.url)]
    with open(job_dir / "status.jsonl", "w") as fh:
        for stage, detail in events:
            fh.write(json.dumps({"stage": stage, "time": "2026-03-01T11:00:01Z", "detail": detail}) + "\n")
    return PdJob(job_dir, launcher, workers, router, argv)


def write_agg_job(
    job_dir: Path,
    job_id: str,
    workers: list[tuple[Worker, int]],
    *,
    nodes: int,
    gpu_exporter: dict[str, Any] | None = None,
    exporter_urls: list[str] | None = None,
    stages: tuple[str, ...] = ("submitted", "starting", "serving"),
) -> Path:
    """A routerless job of (worker, node) aggregated workers on 8-GPU nodes, with plan.json's
    `gpu_exporter` block and endpoints.json's `gpu_exporter_urls` as the launch side writes them."""
    (job_dir / "logs").mkdir(parents=True, exist_ok=True)
    processes = [_proc_entry(w, node, list(range(8))) for w, node in workers]
    plan = {"version": 1, "name": job_id, "profile": "local", "topology": f"agg{len(workers)}", "engine": "mocker",
            "frontend": "none", "nodes": nodes, "gpus_per_node": 8, "visible_devices_env": "CUDA_VISIBLE_DEVICES",
            "processes": processes, "infra": [], "router": None, "benchmark": None,
            "gpu_exporter": gpu_exporter}  # fmt: skip
    endpoints: dict[str, Any] = {
        "job_id": job_id,
        "nodes": [{"index": i, "hostname": f"local{i}", "ip": HOST} for i in range(nodes)],
        "workers": [{"name": p["name"], "role": p["role"], "node_index": p["node_index"], "url": p["url"],
                     "health_url": p["url"] + "/health", "metrics_url": p["url"] + "/metrics"} for p in processes],
        "router": None,
    }  # fmt: skip
    if exporter_urls is not None:
        endpoints["gpu_exporter_urls"] = exporter_urls
    (job_dir / "plan.json").write_text(json.dumps(plan, indent=1))
    (job_dir / "endpoints.json").write_text(json.dumps(endpoints, indent=1))
    (job_dir / "job.json").write_text(json.dumps({"job_id": job_id, "name": job_id, "launcher": "local"}))
    with open(job_dir / "status.jsonl", "w") as fh:
        for stage in stages:
            fh.write(json.dumps({"stage": stage, "time": "2026-03-01T11:00:01Z", "detail": ""}) + "\n")
    return job_dir


def send(url: str, n: int) -> list[str]:
    """``n`` completions through ``url``; who answered each."""
    out = []
    with httpx.Client(timeout=20, trust_env=False) as client:
        for i in range(n):
            r = client.post(url + "/v1/completions", json={"model": "mock-model", "prompt": f"hi {i}", "max_tokens": 2})
            assert r.status_code == 200, r.text
            out.append(r.json()["choices"][0]["text"].split()[0])
    return out


async def refresh_until(
    refresh: Callable[[], Any], predicate: Callable[[JobSnapshot], bool], limit: int, pause: float = 0.3
) -> tuple[JobSnapshot, int]:
    """Refresh up to ``limit`` times until ``predicate`` holds; (last snapshot, refreshes used)."""
    import asyncio

    snap: JobSnapshot | None = None
    for i in range(1, limit + 1):
        snap = (await refresh())[0]
        if predicate(snap):
            return snap, i
        await asyncio.sleep(pause)
    assert snap is not None
    raise AssertionError(f"not within {limit} refreshes; last snapshot:\n{describe(snap)}")


def describe(snap: JobSnapshot) -> str:
    """A readable dump for assertion messages."""
    lines = [f"{snap.job_id} {snap.stage} slurm={snap.slurm_state}"]
    lines += [f"  source {s.name} ok={s.ok} {s.error}" for s in snap.sources]
    for w in snap.workers:
        lines.append(f"  {w.name} {w.health} {w.detail} total={w.requests_total} src={w.source} stale={w.stale}")
    for g in snap.gpus:
        lines.append(f"  gpu {g.node_index}/{g.gpu} util={g.util} power={g.power_w} temp={g.temp_c} stale={g.stale}")
    if snap.router:
        r = snap.router
        lines.append(f"  router up={r.up} reg={r.registered} healthy={r.healthy} req={r.requests} {r.detail}")
    return "\n".join(lines)
