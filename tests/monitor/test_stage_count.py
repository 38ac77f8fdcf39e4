"""The stage's `workers healthy n/N` and the worker table come from the same snapshot (issue 21, pass 7): the job's
health gate writes its count at its own interval, and the stage showed `0/2` a refresh or more after the table
showed both workers healthy. Real HTTP on loopback."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

from srt_tui.monitor import cells
from srt_tui.monitor.model import JobSnapshot
from srt_tui.monitor.snapshot.collect import Monitor
from tests.monitor.answering import answering_server


def _job(tmp_path: Path, ports: tuple[int, int], said: str) -> Path:
    """A 2-worker job whose health gate last wrote `workers healthy {said}`."""
    job = tmp_path / "local-7"
    (job / "logs").mkdir(parents=True)
    procs = [{"name": f"agg_{i}", "role": "agg", "kind": "worker", "node_index": 0, "gpus": [i], "port": port,
              "log": f"logs/agg_{i}.log"} for i, port in enumerate(ports)]  # fmt: skip
    (job / "plan.json").write_text(json.dumps({"topology": "agg2", "nodes": 1, "gpus_per_node": 8,
                                               "processes": procs, "router": None}))  # fmt: skip
    urls = [f"http://127.0.0.1:{p}" for p in ports]
    (job / "endpoints.json").write_text(json.dumps({"workers": [
        {"name": f"agg_{i}", "url": u, "health_url": u + "/health"} for i, u in enumerate(urls)]}))  # fmt: skip
    events = [("starting", ""), ("workers starting", ""), ("workers healthy", said)]
    (job / "status.jsonl").write_text("".join(json.dumps({"stage": s, "time": "t", "detail": d}) + "\n"
                                              for s, d in events))  # fmt: skip
    return job


async def _probed(monitor: Monitor, job: Path) -> JobSnapshot:
    """The first snapshot in which the first worker (the one that answers) was probed."""
    snap = None
    for _ in range(20):
        snap = (await monitor.refresh({job.name: job}))[0]
        if snap.workers[0].health == "healthy":
            return snap
        await asyncio.sleep(0.1)
    raise AssertionError(f"workers never probed: {snap}")


async def test_the_stage_counts_the_workers_the_table_shows_healthy(tmp_path: Path) -> None:
    one, port_one = await answering_server()
    two, port_two = await answering_server()
    job = _job(tmp_path, (port_one, port_two), "0/2")  # the gate has not looked again yet
    monitor = Monitor(None, http_timeout=0.5, connect_timeout=0.5, budget_s=1.0, backoff_base=0.05)
    try:
        snap = await _probed(monitor, job)
        assert [w.health for w in snap.workers] == ["healthy", "healthy"]
        assert snap.stage == "workers healthy"
        assert cells.stage_cell(snap) == "workers healthy 2/2"
    finally:
        await monitor.aclose()
        one.close()
        two.close()


async def test_a_worker_not_answering_is_not_counted(tmp_path: Path) -> None:
    server, port = await answering_server()
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))  # bound, not listening: connection refused
    job = _job(tmp_path, (port, closed.getsockname()[1]), "2/2")  # whatever the gate last wrote
    monitor = Monitor(None, http_timeout=0.5, connect_timeout=0.5, budget_s=1.0, backoff_base=0.05)
    try:
        snap = await _probed(monitor, job)
        assert snap.workers[0].health == "healthy" and snap.workers[1].health != "healthy"  # not listening (yet)
        assert cells.stage_cell(snap) == "workers healthy 1/2"
    finally:
        await monitor.aclose()
        server.close()
        closed.close()
