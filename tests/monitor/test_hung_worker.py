"""One hung worker is not a network problem (issue 21, defect 6): `kill -STOP` of one agg worker switched the
whole view to "relayed: the nodes do not answer from here" although its neighbour on the same node answers.
Real HTTP on loopback: one worker answers, the other accepts connections and never replies (a stopped
process), and the job's relay is fresh."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

from srt_tui.monitor.snapshot.collect import Monitor
from tests.monitor.answering import answering_server


def _job(tmp_path: Path, ok_port: int, hung_port: int) -> Path:
    job = tmp_path / "local-5"
    (job / "logs").mkdir(parents=True)
    (job / "relay").mkdir()
    procs = [{"name": f"agg_{i}", "role": "agg", "kind": "worker", "node_index": 0, "gpus": [i], "port": port,
              "log": f"logs/agg_{i}.log"} for i, port in enumerate((ok_port, hung_port))]  # fmt: skip
    (job / "plan.json").write_text(json.dumps({"topology": "agg2", "nodes": 1, "gpus_per_node": 8,
                                               "processes": procs, "router": None}))  # fmt: skip
    urls = [f"http://127.0.0.1:{p}" for p in (ok_port, hung_port)]
    (job / "endpoints.json").write_text(json.dumps({"workers": [
        {"name": f"agg_{i}", "url": u, "health_url": u + "/health"} for i, u in enumerate(urls)]}))  # fmt: skip
    (job / "status.jsonl").write_text(json.dumps({"stage": "serving", "time": "t", "detail": ""}) + "\n")
    (job / "relay" / "health.json").write_text(json.dumps({"workers": {"agg_0": 200, "agg_1": 0}}))
    return job


async def test_a_hung_worker_beside_an_answering_one_is_not_relayed(tmp_path: Path) -> None:
    server, ok_port = await answering_server()
    hung = socket.socket()
    hung.bind(("127.0.0.1", 0))
    hung.listen(8)  # connections complete in the backlog; nothing ever answers
    job = _job(tmp_path, ok_port, hung.getsockname()[1])
    monitor = Monitor(None, http_timeout=0.3, connect_timeout=0.3, budget_s=0.5, backoff_base=0.05)
    try:
        snap = None
        for _ in range(12):
            snap = (await monitor.refresh({"local-5": job}))[0]
            if snap.workers[1].health != "unknown":
                break
            await asyncio.sleep(0.2)
        assert snap is not None
        ok, stopped = snap.workers
        assert ok.health == "healthy" and ok.source == "direct"
        assert stopped.health == "hung" and stopped.source != "relay", stopped
        assert (
            stopped.detail.startswith("not answering (stopped or overloaded?): ")
            and "agg_0 (node0) answers from here" in stopped.detail
        )
        assert not snap.relayed
        http = snap.source("http")  # the monitor reaches the job: its HTTP source is fine, the worker is not
        assert http is not None and http.ok, http
    finally:
        await monitor.aclose()
        hung.close()
        server.close()
