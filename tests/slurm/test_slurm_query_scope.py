"""A good citizen on the controller: what one refresh asks Slurm grows with the tracked jobs, not with
the cluster (benchmarks/slurm_queries.py against a stand-in 22.05 `squeue` holding 10,000 jobs), and
finished jobs come from sacct where it exists, else one `scontrol show job ID` each, once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from srt_tui.slurm.parse import parse_sacct
from tests.conftest import REPO

BENCH = REPO / "benchmarks" / "slurm_queries.py"


def _bench(*args: str) -> list[dict[str, Any]]:
    proc = subprocess.run([sys.executable, str(BENCH), "--json", *args], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows: list[dict[str, Any]] = json.loads(proc.stdout)
    return rows


def test_a_refresh_costs_what_the_tracked_jobs_cost_not_the_cluster() -> None:
    rows = {(r["cluster_jobs"], r["tracked"]): r for r in _bench("--cluster", "1000,10000", "--tracked", "1,10,100")}
    for tracked in (1, 10, 100):
        small, big = rows[1000, tracked], rows[10000, tracked]
        assert small["rpcs"] == big["rpcs"] == 1  # one command per refresh, whatever the size
        assert big["bytes"] / small["bytes"] < 1.1  # 10x the cluster: the same bytes (ids one digit longer)
    assert 8 < rows[10000, 100]["bytes"] / rows[10000, 10]["bytes"] < 12  # 10x the tracked jobs: ~10x
    # what main asked every refresh (the whole cluster's JSON) against what is asked now
    assert rows[10000, 1]["whole_cluster_bytes"] / rows[1000, 1]["whole_cluster_bytes"] > 9
    assert rows[10000, 1]["whole_cluster_bytes"] / rows[10000, 100]["bytes"] > 1000


def test_ended_jobs_are_asked_for_once_without_accounting() -> None:
    (row,) = _bench("--cluster", "10000", "--tracked", "10", "--ended", "3", "--no-whole")
    # first refresh: squeue, sacct (no accounting here), one scontrol per ended job; then squeue only
    assert row["first_rpcs"] == 1 + 1 + 3
    assert row["rpcs"] == 1 and row["bytes"] < row["first_bytes"]


def test_sacct_records_of_finished_jobs() -> None:
    text = (
        "41|bench|COMPLETED|0:0|None|node[1-2]|2|gpu|2026-12-01T10:00:00|2026-12-01T10:00:05|"
        "2026-12-01T10:09:00|01:00:00|/w/41\n"
        "42|a|b|FAILED|3:0|NonZeroExitCode|node3|1|gpu|2026-12-01T10:00:00|2026-12-01T10:00:01|"
        "2026-12-01T10:00:02|UNLIMITED|/w/42\n"
        "43|killed|CANCELLED by 0|0:15|None|node1|1|gpu|2026-12-01T10:00:00|2026-12-01T10:00:01|"
        "2026-12-01T10:00:09|5:00|/w/43\n"
        "44|queued|PENDING|0:0|Resources|None assigned|1|gpu|2026-12-01T10:00:00|Unknown|Unknown|5:00|/w/44\n"
    )
    jobs = parse_sacct(text)
    assert (jobs["41"].state, jobs["41"].exit_code, jobs["41"].nodes, jobs["41"].time_limit) == (
        "COMPLETED",
        0,
        ("node1", "node2"),
        60,
    )
    assert (jobs["42"].name, jobs["42"].state, jobs["42"].exit_code, jobs["42"].reason) == (
        "a|b",
        "FAILED",
        3,
        "NonZeroExitCode",
    )
    assert (jobs["43"].state, jobs["43"].exit_signal) == ("CANCELLED", 15)
    assert (jobs["44"].nodes, jobs["44"].start_time, jobs["44"].exit_code) == ((), None, None)
    assert Path(jobs["41"].work_dir) == Path("/w/41")
