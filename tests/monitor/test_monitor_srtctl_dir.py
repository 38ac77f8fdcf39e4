"""An srtctl output directory (`outputs/<id>/`, no job.json or plan.json) read by the monitor: named as
srtctl named it, staged from its orchestrator log, its logs offered, and no "plan.json missing" problem
(srtctl never writes one)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from srt_tui.monitor.model import JobSnapshot
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.monitor.statuses.srtctl_dir import sweep_events

#: what srtctl's orchestrator prints into logs/sweep_<id>.log (banner, then timestamped lines)
ORCHESTRATOR = """==========================================
🚀 srtctl Sweep Orchestrator
==========================================
2026-03-01 12:00:01 [INFO] Starting infrastructure services
2026-03-01 12:00:05 [INFO] NATS is ready
2026-03-01 12:00:06 [INFO] Starting backend workers
2026-03-01 12:00:30 [INFO] Waiting for server health: Polling http://10.0.0.1:8000/health
2026-03-01 12:03:00 [INFO] Starting frontend
2026-03-01 12:03:10 [INFO] Server is healthy - starting benchmark
"""


def test_srtctl_dir_snapshot(tmp_path: Path) -> None:
    job = tmp_path / "outputs" / "31"
    (job / "logs").mkdir(parents=True)
    (job / "31.json").write_text(json.dumps({"version": "2.0", "job_id": "31", "job_name": "dsr1-1p1d"}))
    (job / "sbatch_script.sh").write_text("#!/bin/bash\n")
    (job / "logs" / "sweep_31.log").write_text(ORCHESTRATOR)
    (job / "logs" / "node1_prefill_w0.out").write_text("prefill up\n")

    async def run() -> list[JobSnapshot]:
        monitor = Monitor(None)
        try:
            return list(await monitor.refresh({"31": job}))
        finally:
            await monitor.aclose()

    (snap,) = asyncio.run(run())
    assert (snap.job_id, snap.name, snap.launcher) == ("31", "dsr1-1p1d", "slurm")
    assert snap.stage == "benchmark"  # from the orchestrator log (no status.jsonl in srtctl's layout)
    assert [(ref.name, Path(ref.path).name) for ref in snap.logs] == [
        ("node1_prefill_w0", "node1_prefill_w0.out"),
        ("launch", "sweep_31.log"),
    ]
    files = snap.source("job dir")
    assert files is not None and files.ok, files


@pytest.mark.parametrize(
    ("upto", "tail", "stage"),
    [
        (2, "", "starting"),
        (5, "", "infra starting"),
        (7, "", "workers starting"),
        (8, "", "router starting"),
        (9, "", "benchmark"),
        (9, "2026-03-01 12:09:00 [INFO] Cleanup\n✓ Sweep completed successfully\n", "completed"),
        (9, "2026-03-01 12:09:00 [ERROR] Benchmark failed with exit code 3\n✗ Sweep failed (exit code: 3)\n", "failed"),
    ],
)
def test_stage_from_the_orchestrator_log(upto: int, tail: str, stage: str) -> None:
    """As `srtctl monitor` reads it: a line that ends the run wins, else the latest line saying where it is."""
    lines = (ORCHESTRATOR.splitlines()[:upto] + tail.splitlines()) if upto else []
    events = sweep_events(lines)
    assert [e.stage for e in events] == [stage]
    if stage == "failed":
        assert "exit code" in events[0].detail


def test_no_orchestrator_line_yet_means_no_stage() -> None:
    assert sweep_events(["slurmstepd: error: something unrelated"]) == []
