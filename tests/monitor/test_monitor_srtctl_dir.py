"""An srtctl output directory (`outputs/<id>/`, no job.json or plan.json) read by the monitor: named as
srtctl named it, its logs offered, and no "plan.json missing" problem (srtctl never writes one)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from srt_tui.monitor.collect import Monitor
from srt_tui.monitor.model import JobSnapshot


def test_srtctl_dir_snapshot(tmp_path: Path) -> None:
    job = tmp_path / "outputs" / "31"
    (job / "logs").mkdir(parents=True)
    (job / "31.json").write_text(json.dumps({"version": "2.0", "job_id": "31", "job_name": "dsr1-1p1d"}))
    (job / "sbatch_script.sh").write_text("#!/bin/bash\n")
    (job / "logs" / "sweep_31.log").write_text("srtctl Sweep Orchestrator\n")
    (job / "logs" / "node1_prefill_w0.out").write_text("prefill up\n")

    async def run() -> list[JobSnapshot]:
        monitor = Monitor(None)
        try:
            return list(await monitor.refresh({"31": job}))
        finally:
            await monitor.aclose()

    (snap,) = asyncio.run(run())
    assert (snap.job_id, snap.name, snap.launcher) == ("31", "dsr1-1p1d", "slurm")
    assert [(ref.name, Path(ref.path).name) for ref in snap.logs] == [
        ("node1_prefill_w0", "node1_prefill_w0.out"),
        ("launch", "sweep_31.log"),
    ]
    files = snap.source("job dir")
    assert files is not None and files.ok, files
