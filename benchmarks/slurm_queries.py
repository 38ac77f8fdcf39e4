"""What one monitor refresh costs the Slurm controller: commands (RPCs) and bytes read, against a
stand-in `squeue` on PATH holding a whole cluster's queue (10,000 jobs by default).

The stand-in behaves as Slurm 22.05: `squeue --json` prints EVERY job whatever `-j`/`-u` say (each
entry a real 22.05 record, ~3 KB), the text format honours `-j`; `scontrol show job -o ID` prints one
job; `sacct` says accounting is disabled (as on the local test cluster). For each (cluster size,
tracked jobs) it prints the steady refresh (`CliTransport.query(tracked)`, the call the Monitor makes
every refresh) next to the whole-cluster call main made every refresh (`squeue --json --states=all`).

Run: `python benchmarks/slurm_queries.py [--cluster 1000,10000] [--tracked 1,10,100] [--json]`. Each size ends
with ratio rows: bytes the steady refresh reads over the whole-cluster call's, measured in the same run.
The figure grows with the tracked jobs, not with the cluster.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.ratios import row as ratio_row  # noqa: E402
from srt_tui.slurm.cli_transport import CliTransport  # noqa: E402

USER = "alice"

STAND_IN = r'''#!/usr/bin/env python3
"""Stand-in Slurm 22.05 client command over a queue file (see benchmarks/slurm_queries.py)."""
import json, os, sys
here = os.path.dirname(os.path.abspath(__file__))
cmd = os.path.basename(sys.argv[0])
args = sys.argv[1:]
rows = [line.rstrip("\n").split("|") for line in open(os.path.join(here, "queue.txt"))]
def opt(flag):
    return args[args.index(flag) + 1] if flag in args else None
if cmd == "sacct":
    print("Slurm accounting storage is disabled", file=sys.stderr)
    sys.exit(1)
if cmd == "scontrol":
    job = args[-1]
    for r in rows:
        if r[0] == job:
            print(f"JobId={r[0]} JobName={r[1]} UserId={r[2]}(1000) JobState={r[3]} Reason=None "
                  f"ExitCode=0:0 NumNodes=1 Partition=gpu WorkDir=/w/{r[0]}")
            sys.exit(0)
    print("slurm_load_jobs error: Invalid job id specified", file=sys.stderr)
    sys.exit(1)
if "--json" in args:  # 22.05: -j/-u ignored, every job of the cluster
    template = json.load(open(os.path.join(here, "record.json")))
    jobs = [dict(template, job_id=int(r[0]), name=r[1], user_name=r[2], job_state=r[3]) for r in rows]
    json.dump({"meta": {}, "errors": [], "jobs": jobs}, sys.stdout)
    sys.exit(0)
ids = set((opt("-j") or "").split(",")) - {""}
user = opt("-u")
shown = [r for r in rows if (not ids or r[0] in ids) and (user is None or r[2] == user)]
if ids and not shown and len(ids) == 1:
    print("slurm_load_jobs error: Invalid job id specified", file=sys.stderr)
    sys.exit(1)
for r in shown:
    end = "2026-12-01T10:05:00" if r[3] == "COMPLETED" else "2027-12-01T10:00:00"
    print(f"{r[0]}|{r[1]}|{r[3]}|None|node1|1|gpu|2026-12-01T10:00:00|{end}|UNLIMITED|2026-12-01T09:59:00|/w/{r[0]}")
'''


def make_cluster(root: Path, jobs: int, tracked: int, ended: int = 0) -> list[str]:
    """Write the stand-in commands and a queue of ``jobs`` jobs; the last ``tracked`` are ours (the
    first ``ended`` of those COMPLETED). Returns our job ids."""
    root.mkdir(parents=True, exist_ok=True)
    for name in ("squeue", "scontrol", "sacct"):
        path = root / name
        path.write_text(STAND_IN)
        path.chmod(0o755)
    fixture = json.loads((REPO / "tests" / "slurm" / "fixtures" / "squeue_22.05.json").read_text())
    (root / "record.json").write_text(json.dumps(fixture["jobs"][0]))
    lines = []
    ours = [str(i) for i in range(jobs - tracked + 1, jobs + 1)]
    for i in range(1, jobs + 1):
        mine = str(i) in ours
        state = "COMPLETED" if mine and i - (jobs - tracked) <= ended else "RUNNING"
        lines.append(f"{i}|{'srt' if mine else 'other'}-{i}|{USER if mine else f'u{i % 97}'}|{state}\n")
    (root / "queue.txt").write_text("".join(lines))
    return ours


def transport(root: Path) -> CliTransport:
    """The real command-line transport, with the stand-ins first on PATH."""
    env = {k: v for k, v in os.environ.items() if k != "SLURM_CONF"}
    env["PATH"] = f"{root}:{env.get('PATH', '')}"
    return CliTransport(env=env)


def measure(jobs: int, tracked: int, ended: int = 0, whole: bool = True) -> dict[str, Any]:
    """Commands and bytes of: the first refresh, a steady refresh, and main's whole-cluster call."""
    with tempfile.TemporaryDirectory(prefix="srt-slurm-bench-") as tmp:
        root = Path(tmp)
        ours = make_cluster(root, jobs, tracked, ended)
        client = transport(root)
        first = client.query(ours)
        assert all(job.is_known for job in first.values())
        c0, b0 = client.calls, client.bytes_read
        client.query(ours)
        row: dict[str, Any] = {
            "cluster_jobs": jobs,
            "tracked": tracked,
            "ended": ended,
            "first_rpcs": c0,
            "first_bytes": b0,
            "rpcs": client.calls - c0,
            "bytes": client.bytes_read - b0,
        }
        if whole:
            old = transport(root)
            old._squeue_all()  # what each refresh ran before: `squeue --json --states=all`
            row["whole_cluster_rpcs"], row["whole_cluster_bytes"] = old.calls, old.bytes_read
        return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cluster", default="1000,10000", help="cluster sizes (jobs in the queue)")
    ap.add_argument("--tracked", default="1,10,100", help="jobs the monitor tracks")
    ap.add_argument("--ended", type=int, default=0, help="of the tracked jobs, how many have ended")
    ap.add_argument("--no-whole", action="store_true", help="skip the whole-cluster reference call")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args()
    tracked = [int(x) for x in args.tracked.split(",")]
    rows = [  # the whole-cluster call does not depend on the tracked jobs: once per cluster size
        measure(n, t, min(args.ended, t), whole=not args.no_whole and i == 0)
        for n in (int(x) for x in args.cluster.split(","))
        for i, t in enumerate(tracked)
    ]
    if args.json:
        print(json.dumps(rows))
        return 0
    head = f"{'cluster':>8} {'tracked':>7} {'ended':>5} | {'first refresh':>20} | {'each refresh':>18}"
    print(head + " | main, each refresh")
    for r in rows:
        whole = "-"
        if "whole_cluster_bytes" in r:
            whole = f"{r['whole_cluster_rpcs']} cmd, {r['whole_cluster_bytes']:>11,} B"
        print(
            f"{r['cluster_jobs']:>8} {r['tracked']:>7} {r['ended']:>5}"
            f" | {r['first_rpcs']:>2} cmd {r['first_bytes']:>9,} B"
            f" | {r['rpcs']:>2} cmd {r['bytes']:>8,} B | {whole}"
        )
    whole_of = {r["cluster_jobs"]: r["whole_cluster_bytes"] for r in rows if "whole_cluster_bytes" in r}
    for r in rows:  # the figure beside its floor measured in the same run: the whole-cluster call
        if r["cluster_jobs"] in whole_of:
            name = f"Slurm bytes per refresh, {r['tracked']} of {r['cluster_jobs']:,} jobs tracked"
            ratio_row(name, float(r["bytes"]), float(whole_of[r["cluster_jobs"]]), "whole-cluster call", unit="B")
    return 0


if __name__ == "__main__":
    sys.exit(main())
