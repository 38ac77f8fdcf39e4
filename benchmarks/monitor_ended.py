#!/usr/bin/env python3
"""Ended jobs cost nothing: Monitor CPU per refresh with 300 ended jobs + 1 running, beside 1 running alone.

One running job of 16 real mock workers (benchmarks/mock_fleet.py) on loopback, 300 ended jobs' directories
(status `completed`, Slurm says COMPLETED), one reused Monitor, the CPU time of this process (every thread) over
`--refreshes` refreshes. The floor is the same Monitor with the running job alone, measured in the same run;
goal (issue 22): ratio <= 1.5. `without freezing` shows what the 300 ended jobs cost when each refresh rebuilds
them (the Monitor before issue 22).

    python benchmarks/monitor_ended.py [--ended 300] [--refreshes 40] [--rounds 3]

2026-12-02 (2 cores, load ~1-6): 1 running alone 0.003 s CPU per refresh; 300 ended + 1 running 0.006-0.007 s
(ratio 2.2-2.3); without freezing 0.195-0.233 s (ratio 72-76). Later the same day (load ~8-10, median of 3
alternated rounds of 40): the 20th refresh's file-cache trim had grown to ~2 s (every tracked directory tested
against every cached path: ratio 17-24 over 40 refreshes); with the trim by parents, one pass per refresh over
the kept jobs and the health log pruned from its oldest end: ratio 1.18-1.57 (0.005-0.006 s beside 0.003-0.005 s),
without freezing 61-81. Once Origin.parse was memoised the floor itself fell (1 running alone 0.002 s), and the
same ~1.5 ms that 300 ended jobs cost per refresh (about 60 stamps of 4 stats, a pass over 300 ids, and the
collector walking their kept snapshots) reads as ratio 1.6-1.7.
Later (load ~2-3): the tracked set rebuilt as 300 new Paths, and the file caches' forget walking each cached
path's parents as Paths (~33 ms once), now strings; an ended job stamped every 10th refresh (20 s) instead of 5th:
1 running alone 0.0032-0.0037 s, 300 ended + 1 running 0.0032-0.0038 s, ratio 0.94 (was 1.5-1.63 that hour).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.monitor_refresh import free_ports, start_fleet, write_jobs  # noqa: E402
from benchmarks.ratios import median, row  # noqa: E402
from srt_tui.monitor.snapshot.collect import Monitor  # noqa: E402
from srt_tui.slurm.client import JobState  # noqa: E402


class EndedSlurm:
    """RUNNING for the running job, COMPLETED for every other id (one batched query per refresh)."""

    name = "fake"
    supports_json = False
    in_process = True
    last_error: str | None = None

    def __init__(self, running: set[str]) -> None:
        self.running = running

    def query(self, job_ids: Sequence[str]) -> dict[str, JobState]:
        return {j: JobState(j, "bench", "RUNNING" if j in self.running else "COMPLETED") for j in job_ids}


async def cpu_per_refresh(jobs: dict[str, Path], running: set[str], refreshes: int, freeze: bool) -> float:
    monitor = Monitor(EndedSlurm(running))  # type: ignore[arg-type]
    if not freeze:
        monitor.frozen.keep = lambda *a, **k: None  # type: ignore[method-assign]
    try:
        await monitor.refresh(jobs)  # cold: connections, first reads
        await monitor.refresh(jobs)
        start = time.process_time()
        for _ in range(refreshes):
            await monitor.refresh(jobs)
        return (time.process_time() - start) / refreshes
    finally:
        await monitor.aclose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ended", type=int, default=300)
    parser.add_argument("--refreshes", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3, help="alternated measurements of each (median)")
    args = parser.parse_args()
    ports = free_ports(16)
    fleet = start_fleet(ports)
    try:
        with tempfile.TemporaryDirectory(prefix="srt-bench-ended-") as tmp:
            live = write_jobs(Path(tmp) / "live", ports)
            template = next(iter(live.values()))
            ended: dict[str, Path] = {}
            for i in range(args.ended):
                d = Path(tmp) / "ended" / str(800000 + i)
                shutil.copytree(template, d)
                with open(d / "status.jsonl", "a") as fh:
                    fh.write(json.dumps({"stage": "completed", "time": "2026-01-01T01:00:00Z"}) + "\n")
                ended[str(800000 + i)] = d
            running = set(live)
            both = {**ended, **live}
            alones, frozens = [], []
            for _ in range(args.rounds):  # alternated, so both see the same load; the medians are compared
                alones.append(asyncio.run(cpu_per_refresh(live, running, args.refreshes, True)))
                frozens.append(asyncio.run(cpu_per_refresh(both, running, args.refreshes, True)))
                print(f"  1 running alone: {alones[-1]:.4f} s CPU per refresh; {args.ended} ended + 1 running: "
                      f"{frozens[-1]:.4f} s", flush=True)  # fmt: skip
            alone, frozen = median(alones), median(frozens)
            rebuilt = asyncio.run(cpu_per_refresh(both, running, args.refreshes, False))
    finally:
        for p in fleet:
            p.kill()
    rounds = f"median of {args.rounds} x {args.refreshes} refreshes"
    print(f"Monitor CPU per refresh, {rounds}, 1 running job of 16 workers:")
    row(f"{args.ended} ended + 1 running, CPU per refresh", frozen, alone, "1 running alone", goal=1.5)
    row(f"{args.ended} ended + 1 running, without freezing", rebuilt, alone, "1 running alone")
    return 0


if __name__ == "__main__":
    sys.exit(main())
