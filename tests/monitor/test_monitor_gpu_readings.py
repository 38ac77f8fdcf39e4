"""GPU exporter text → GpuReadings, read the way the plan says (label and metric names), for both real
exporters' shapes; which plans are scraped at all; and the grid's cells for readings."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

from srt_tui.core.jobdir.contract import EndpointsDoc, JobMeta, PlanDoc
from srt_tui.core.plan.document import PlanExporter
from srt_tui.monitor import cells
from srt_tui.monitor.model import GpuReading
from srt_tui.monitor.probes.prom import SampleCache
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.monitor.statuses.context import JobFiles
from srt_tui.monitor.statuses.gpus import ExporterSpec, parse_readings, scrape_targets

# as dcgm-exporter 3.3 prints it (trimmed to two GPUs), other fields included
DCGM_TEXT = """\
# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).
# TYPE DCGM_FI_DEV_SM_CLOCK gauge
DCGM_FI_DEV_SM_CLOCK{gpu="0",UUID="GPU-5fd4b4a5-7d4e-3c44-b5a5-0c6a3b8f1a11",pci_bus_id="00000000:18:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a-01",DCGM_FI_DRIVER_VERSION="535.129.03"} 1980
# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).
# TYPE DCGM_FI_DEV_GPU_TEMP gauge
DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-5fd4b4a5-7d4e-3c44-b5a5-0c6a3b8f1a11",pci_bus_id="00000000:18:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a-01",DCGM_FI_DRIVER_VERSION="535.129.03"} 61
DCGM_FI_DEV_GPU_TEMP{gpu="1",UUID="GPU-7a8b11c2-0d3e-4f55-a6b7-1d7b4c9e2b22",pci_bus_id="00000000:2A:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a-01",DCGM_FI_DRIVER_VERSION="535.129.03"} 48
# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-5fd4b4a5-7d4e-3c44-b5a5-0c6a3b8f1a11",pci_bus_id="00000000:18:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a-01",DCGM_FI_DRIVER_VERSION="535.129.03"} 612.345000
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-7a8b11c2-0d3e-4f55-a6b7-1d7b4c9e2b22",pci_bus_id="00000000:2A:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a-01",DCGM_FI_DRIVER_VERSION="535.129.03"} 88.125000
# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-5fd4b4a5-7d4e-3c44-b5a5-0c6a3b8f1a11",pci_bus_id="00000000:18:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a-01",DCGM_FI_DRIVER_VERSION="535.129.03"} 100
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-7a8b11c2-0d3e-4f55-a6b7-1d7b4c9e2b22",pci_bus_id="00000000:2A:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-a-01",DCGM_FI_DRIVER_VERSION="535.129.03"} 3
"""  # noqa: E501

# as AMD's device-metrics-exporter prints it (trimmed): the index is `gpu_id`, edge temperature too
AMD_TEXT = """\
# HELP gpu_edge_temperature Current edge temperature in Celsius
# TYPE gpu_edge_temperature gauge
gpu_edge_temperature{card_model="AMD Instinct MI300X OAM",gpu_id="0",hostname="mi-b-07",serial_number="692251001124"} 41
# HELP gpu_junction_temperature Current junction/hotspot temperature in Celsius
# TYPE gpu_junction_temperature gauge
gpu_junction_temperature{card_model="AMD Instinct MI300X OAM",gpu_id="0",hostname="mi-b-07",serial_number="692251001124"} 58
gpu_junction_temperature{card_model="AMD Instinct MI300X OAM",gpu_id="5",hostname="mi-b-07",serial_number="692251001129"} 72
# HELP gpu_power_usage Current power usage in Watts
# TYPE gpu_power_usage gauge
gpu_power_usage{card_model="AMD Instinct MI300X OAM",gpu_id="0",hostname="mi-b-07",serial_number="692251001124"} 402
gpu_power_usage{card_model="AMD Instinct MI300X OAM",gpu_id="5",hostname="mi-b-07",serial_number="692251001129"} 731
# HELP gpu_gfx_activity Graphics engine usage percentage
# TYPE gpu_gfx_activity gauge
gpu_gfx_activity{card_model="AMD Instinct MI300X OAM",gpu_id="0",hostname="mi-b-07",serial_number="692251001124"} 12
gpu_gfx_activity{card_model="AMD Instinct MI300X OAM",gpu_id="5",hostname="mi-b-07",serial_number="692251001129"} 97
"""  # noqa: E501

DCGM_BLOCK: dict[str, Any] = {
    "kind": "dcgm", "launched": True, "gpu_label": "gpu", "port": 9401,
    "metrics": {"gpu_util": "DCGM_FI_DEV_GPU_UTIL", "power": "DCGM_FI_DEV_POWER_USAGE",
                "temperature": "DCGM_FI_DEV_GPU_TEMP"},
}  # fmt: skip
AMD_BLOCK: dict[str, Any] = {
    "kind": "custom", "launched": True, "gpu_label": "gpu_id", "port": 5000,
    "metrics": {"gpu_util": "gpu_gfx_activity", "power": "gpu_power_usage", "temperature": "gpu_junction_temperature"},
}  # fmt: skip


def _read(text: str, block: dict[str, Any], node: int = 0) -> list[GpuReading]:
    """Read as the monitor does (series memoised, values read directly), checked against a full parse."""
    spec = ExporterSpec.from_plan(PlanExporter.parse(block))
    assert spec is not None
    fast = parse_readings(node, SampleCache().gauges(text, spec.names), spec)
    assert fast == parse_readings(node, SampleCache().samples(text, spec.names), spec)
    return fast


def test_dcgm_shape_as_the_plan_names_it() -> None:
    assert _read(DCGM_TEXT, DCGM_BLOCK, node=1) == [
        GpuReading(1, 0, 100.0, 612.345, 61.0),
        GpuReading(1, 1, 3.0, 88.125, 48.0),
    ]


def test_amd_shape_with_its_own_label_and_names() -> None:
    assert _read(AMD_TEXT, AMD_BLOCK) == [GpuReading(0, 0, 12.0, 402.0, 58.0), GpuReading(0, 5, 97.0, 731.0, 72.0)]
    # the plan, not the product, decides: the same text read with the edge sensor instead
    edge = {**AMD_BLOCK, "metrics": {**AMD_BLOCK["metrics"], "temperature": "gpu_edge_temperature"}}
    assert [r.temp_c for r in _read(AMD_TEXT, edge)] == [41.0, None]  # GPU 5 has no edge sample


def test_a_metric_the_plan_leaves_out_or_the_exporter_lacks_is_none() -> None:
    no_power = {**DCGM_BLOCK, "metrics": {k: v for k, v in DCGM_BLOCK["metrics"].items() if k != "power"}}
    read = _read(DCGM_TEXT, no_power)
    assert [(r.util, r.power_w, r.temp_c) for r in read] == [(100.0, None, 61.0), (3.0, None, 48.0)]
    missing = {**DCGM_BLOCK, "metrics": {**DCGM_BLOCK["metrics"], "gpu_util": "DCGM_FI_PROF_GR_ENGINE_ACTIVE"}}
    assert [r.util for r in _read(DCGM_TEXT, missing)] == [None, None]
    assert _read(DCGM_TEXT, AMD_BLOCK) == []  # DCGM text read with AMD's names finds nothing
    broken = 'DCGM_FI_DEV_GPU_UTIL{gpu="7" 12\n' + DCGM_TEXT
    assert [r.gpu for r in _read(broken, DCGM_BLOCK)] == [0, 1]  # a malformed line spoils nothing else


def test_series_are_parsed_once_and_values_follow_every_scrape() -> None:
    cache = SampleCache()
    names = ("gpu_gfx_activity", "gpu_power_usage")
    first = cache.gauges(AMD_TEXT, names)
    parsed = cache.parsed_lines
    for util in (55, 3, 100):
        cache.rotate()
        text = AMD_TEXT.replace('serial_number="692251001129"} 97', f'serial_number="692251001129"}} {util}')
        got = {(s.name, s.label("gpu_id")): s.value for s in cache.gauges(text, names)}
        assert got[("gpu_gfx_activity", "5")] == util and got[("gpu_power_usage", "0")] == 402.0
    assert cache.parsed_lines == parsed == len(first) == 4  # the parser saw each series once
    odd = 'gpu_gfx_activity{card_model="A}B",gpu_id="2"} 41.5 1712345678000\ngpu_gfx_activity{gpu_id="3"} NaN\n'
    readings = parse_readings(0, cache.gauges(odd, names), ExporterSpec("gpu_id", "gpu_gfx_activity"))
    assert readings == [GpuReading(0, 2, 41.5, None, None)]  # `}` in a label, a timestamp; NaN is no reading


def test_only_a_launched_exporter_with_a_label_and_metrics_is_scraped(tmp_path: Path) -> None:
    urls = {"gpu_exporter_urls": ["http://10.0.0.1:9401/metrics", None, "http://10.0.0.3:9401/metrics"]}

    def targets(block: Any, endpoints: dict[str, Any] | None = urls) -> list[tuple[int, str]]:
        eps = None
        if endpoints is not None:
            eps = EndpointsDoc(gpu_exporter_urls=tuple(endpoints["gpu_exporter_urls"]) if endpoints else None)
        plan = PlanDoc.parse({"processes": [], "gpu_exporter": block})
        return scrape_targets(JobFiles("1", tmp_path, JobMeta("1"), plan, eps, []))[1]

    assert targets(DCGM_BLOCK) == [(0, "http://10.0.0.1:9401/metrics"), (2, "http://10.0.0.3:9401/metrics")]
    assert targets({**DCGM_BLOCK, "launched": False}) == []
    assert targets({k: v for k, v in DCGM_BLOCK.items() if k != "launched"}) == []  # older job dirs
    assert targets(None) == []
    assert targets({**DCGM_BLOCK, "gpu_label": ""}) == [] and targets({**DCGM_BLOCK, "metrics": {}}) == []
    assert targets(DCGM_BLOCK, None) == [] and targets(DCGM_BLOCK, {}) == []  # endpoints not written yet
    assert targets(DCGM_BLOCK, {"gpu_exporter_urls": ["http://<ip:node0>:9401/metrics"]}) == []


def test_cells_for_readings() -> None:
    assert cells.util(GpuReading(0, 0, 36.6, None, None)) == "37"
    assert cells.util(GpuReading(0, 0, 100.0, None, None)) == "100"
    assert cells.util(GpuReading(0, 0, 36.6, None, None, stale=True)) == "?"
    assert cells.util(GpuReading(0, 0, None, 400.0, None)) == "-" and cells.util(None) == "-"
    node = [GpuReading(0, g, 50.0, 400.0 + g, 60.0 + g) for g in range(3)]
    assert cells.gpu_totals(node) == "1.2 kW · 62°C max"
    assert cells.gpu_totals([GpuReading(0, 0, 1.0, 90.4, None)]) == "90 W"
    assert cells.gpu_totals([GpuReading(0, 0, 1.0, 90.4, 80.0, stale=True)]) == ""  # stale values are not totals


async def test_an_exporter_not_listening_waits_while_starting_then_reads_unknown(tmp_path: Path) -> None:
    """Never answered: nothing to show while the job starts, then `?` for every GPU of the node once it
    serves (not zeros, and not silence)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    plan = {"topology": "agg0", "nodes": 1, "gpus_per_node": 4, "processes": [], "router": None,
            "gpu_exporter": DCGM_BLOCK}  # fmt: skip
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    (tmp_path / "endpoints.json").write_text(
        json.dumps({"workers": [], "gpu_exporter_urls": [f"http://127.0.0.1:{port}/metrics"]})
    )
    status = tmp_path / "status.jsonl"
    status.write_text(json.dumps({"stage": "workers starting", "time": "t", "detail": ""}) + "\n")
    m = Monitor(None, budget_s=0.5, backoff_base=0.01, backoff_cap=0.01)
    try:
        snap = (await m.refresh({"local-x": tmp_path}))[0]
        assert snap.gpus == () and snap.source("gpu exporter").ok  # type: ignore[union-attr]
        with open(status, "a") as fh:
            fh.write(json.dumps({"stage": "serving", "time": "t2", "detail": ""}) + "\n")
        await asyncio.sleep(0.05)
        snap = (await m.refresh({"local-x": tmp_path}))[0]
        assert snap.gpus == tuple(GpuReading(0, g, None, None, None, stale=True) for g in range(4))
        src = snap.source("gpu exporter")
        assert src is not None and not src.ok and src.error == "node0: connection refused" and snap.degraded
    finally:
        await m.aclose()
