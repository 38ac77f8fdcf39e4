"""The monitor against real mock GPU exporters (DCGM- and AMD-shaped) and real mock workers, no Slurm:
readings match what the exporters serve, a dead exporter makes only its own node stale and clears
once it is back, and jobs that launched no exporter (or ended) are never scraped."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from srt_tui.monitor.model import GpuReading, JobSnapshot
from srt_tui.monitor.snapshot.collect import Monitor
from tests.mock.mockprocs import Exporter, Launcher, child_env
from tests.monitor.jobdirs import describe, refresh_until, write_agg_job

DCGM: dict[str, Any] = {
    "source": "profile", "image": "nvcr.io#nvidia/k8s/dcgm-exporter:3.3.9-3.6.1-ubuntu22.04", "port": 9401,
    "kind": "dcgm", "launched": True, "gpu_label": "gpu",
    "metrics": {"gpu_util": "DCGM_FI_DEV_GPU_UTIL", "power": "DCGM_FI_DEV_POWER_USAGE",
                "temperature": "DCGM_FI_DEV_GPU_TEMP"},
    "metrics_urls": ["http://<ip:node0>:9401/metrics", "http://<ip:node1>:9401/metrics"],
}  # fmt: skip
AMD: dict[str, Any] = {
    "source": "profile", "image": "docker://rocm/device-metrics-exporter:v1.5.2", "port": 5000, "kind": "custom",
    "launched": True, "gpu_label": "gpu_id",
    "metrics": {"gpu_util": "gpu_gfx_activity", "power": "gpu_power_usage", "temperature": "gpu_junction_temperature"},
    "metrics_urls": ["http://<ip:node0>:5000/metrics"],
}  # fmt: skip
A, B = "local-gpu-dcgm", "local-gpu-amd"
IDLE_JOBS = ("local-gpu-resolved", "local-gpu-old-dir", "local-gpu-ended")


@dataclass
class Fleet:
    """Job A (2 nodes, a DCGM exporter on each), job B (1 node, an AMD exporter), and three jobs that
    must not be scraped, all pointing at one more exporter, `idle`."""

    launcher: Launcher
    dirs: dict[str, Path]
    exporters: dict[str, Exporter]

    def jobs(self, *ids: str) -> dict[str, Path]:
        return {j: self.dirs[j] for j in ids}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    base = tmp_path_factory.mktemp("gpujobs")
    launcher = Launcher(base)
    try:
        started = {
            "a0": launcher.start_exporter("dcgm", node_name="h100-node0"),
            "a1": launcher.start_exporter("dcgm", node_name="h100-node1"),
            "b0": launcher.start_exporter("device-metrics", node_name="mi300x-node0"),
            "idle": launcher.start_exporter("dcgm", node_name="idle-node"),
        }
        workers = launcher.workers(("regular", "agg_0"), ("regular", "agg_1"), ("regular", "agg_2"))
        exporters = {k: launcher.wait_exporter(e) for k, e in started.items()}
        urls = {k: [e.metrics_url] for k, e in exporters.items()}
        a_urls = urls["a0"] + urls["a1"]
        dirs = {
            A: write_agg_job(base / A, A, [(workers[0], 0), (workers[1], 1)], nodes=2, gpu_exporter=DCGM,
                             exporter_urls=a_urls),
            B: write_agg_job(base / B, B, [(workers[2], 0)], nodes=1, gpu_exporter=AMD, exporter_urls=urls["b0"]),
            # resolved but not started, a job directory from before exporters, a job that has ended
            IDLE_JOBS[0]: write_agg_job(base / IDLE_JOBS[0], IDLE_JOBS[0], [(workers[2], 0)], nodes=1,
                                        gpu_exporter={**DCGM, "launched": False}, exporter_urls=urls["idle"]),
            IDLE_JOBS[1]: write_agg_job(base / IDLE_JOBS[1], IDLE_JOBS[1], [(workers[2], 0)], nodes=1,
                                        gpu_exporter={k: v for k, v in DCGM.items() if k != "launched"},
                                        exporter_urls=urls["idle"]),
            IDLE_JOBS[2]: write_agg_job(base / IDLE_JOBS[2], IDLE_JOBS[2], [(workers[2], 0)], nodes=1,
                                        gpu_exporter=DCGM, exporter_urls=urls["idle"],
                                        stages=("submitted", "starting", "serving", "completed")),
        }  # fmt: skip
        yield Fleet(launcher, dirs, exporters)
    finally:
        launcher.close()


def _node(snap: JobSnapshot, node: int) -> list[GpuReading]:
    return [r for r in snap.gpus if r.node_index == node]


def _matches(readings: list[GpuReading], served: list[dict[str, Any]]) -> bool:
    """The monitor's readings of one node are what its exporter says it serves, GPU by GPU."""
    got = [(r.gpu, r.util, r.power_w, r.temp_c) for r in readings]
    return got == [(i, g["util"], g["power"], g["temp"]) for i, g in enumerate(served)]


async def test_readings_match_both_exporters(fleet: Fleet, monitor: Monitor) -> None:
    ex = fleet.exporters
    ex["a0"].set(util=0)
    ex["a0"].set(3, util=37, power=412.5, temp=61)
    ex["a1"].set(util=91, power=655.25)  # every GPU of node1
    ex["a1"].set(5, temp="none")  # an exporter that does not report one series
    ex["b0"].set(2, util=55, power=731, temp=72)
    a, b = await monitor.refresh(fleet.jobs(A, B))
    assert _matches(_node(a, 0), ex["a0"].readings()), describe(a)
    assert _matches(_node(a, 1), ex["a1"].readings()), describe(a)
    assert _node(a, 0)[3] == GpuReading(0, 3, 37.0, 412.5, 61.0)
    assert {r.util for r in _node(a, 1)} == {91.0} and _node(a, 1)[5].temp_c is None
    assert _matches(_node(b, 0), ex["b0"].readings()) and _node(b, 0)[2] == GpuReading(0, 2, 55.0, 731.0, 72.0)
    for snap in (a, b):
        assert not any(r.stale for r in snap.gpus) and len(snap.gpus) == 8 * snap.nodes
        assert snap.source("gpu exporter") is not None and snap.source("gpu exporter").ok, describe(snap)  # type: ignore[union-attr]
        assert all(w.health == "healthy" for w in snap.workers) and not snap.degraded
    ex["a0"].set(3, util=100)  # the next refresh follows
    a = (await monitor.refresh(fleet.jobs(A)))[0]
    assert _node(a, 0)[3].util == 100.0 and _matches(_node(a, 0), ex["a0"].readings())


def test_status_json_carries_the_readings(fleet: Fleet) -> None:
    fleet.exporters["b0"].set(6, util=12)
    proc = subprocess.run(
        [sys.executable, "-m", "srt_tui.cli", "status", str(fleet.dirs[B]), "--json"],
        capture_output=True, text=True, timeout=60, check=True, env=child_env(),
    )  # fmt: skip
    (snap,) = json.loads(proc.stdout)
    served = fleet.exporters["b0"].readings()
    assert [(g["node_index"], g["gpu"], g["util"], g["power_w"], g["temp_c"], g["stale"]) for g in snap["gpus"]] == [
        (0, i, s["util"], s["power"], s["temp"], False) for i, s in enumerate(served)
    ]
    assert served[6]["util"] == 12.0
    assert {"name": "gpu exporter", "ok": True, "error": "", "age_s": 0.0, "retry_in_s": None} in snap["sources"]


async def test_a_dead_exporter_goes_stale_alone_and_clears_when_back(fleet: Fleet, monitor: Monitor) -> None:
    jobs = fleet.jobs(A)
    ex = fleet.exporters
    ex["a1"].set(util=64)
    before = await refresh_until(lambda: monitor.refresh(jobs), lambda s: _matches(_node(s, 1), ex["a1"].readings()), 2)
    old = ex["a1"]
    old.proc.stop()
    snap, _ = await refresh_until(lambda: monitor.refresh(jobs), lambda s: all(r.stale for r in _node(s, 1)), 2)
    assert [r.util for r in _node(snap, 1)] == [r.util for r in _node(before[0], 1)]  # last values, marked stale
    assert not any(r.stale for r in _node(snap, 0)) and _matches(_node(snap, 0), ex["a0"].readings())
    src = snap.source("gpu exporter")
    assert src is not None and not src.ok and "node1" in src.error and "refused" in src.error, describe(snap)
    assert "node0" not in src.error
    assert all(w.health == "healthy" for w in snap.workers) and snap.source("http").ok  # type: ignore[union-attr]
    restarted = fleet.launcher.start_exporter("dcgm", node_name=old.node_name, port=old.port)
    ex["a1"] = fleet.launcher.wait_exporter(restarted)
    snap, _ = await refresh_until(
        lambda: monitor.refresh(jobs), lambda s: not any(r.stale for r in s.gpus) and bool(s.gpus), 8
    )
    assert _matches(_node(snap, 1), ex["a1"].readings()) and {r.util for r in _node(snap, 1)} == {0.0}  # a new process
    assert snap.source("gpu exporter").ok  # type: ignore[union-attr]


async def test_jobs_without_a_running_exporter_are_never_scraped(fleet: Fleet, monitor: Monitor) -> None:
    idle = fleet.exporters["idle"]
    before = idle.scrapes()
    for _ in range(3):
        snaps = await monitor.refresh(fleet.jobs(A, *IDLE_JOBS))
    assert snaps[0].gpus and snaps[0].source("gpu exporter") is not None  # the same refreshes do scrape job A
    for snap in snaps[1:]:
        assert snap.gpus == () and snap.source("gpu exporter") is None, describe(snap)
    assert snaps[-1].is_final
    assert idle.scrapes() == before == 0  # it was there to answer: nobody asked
