#!/usr/bin/env python3
"""`make bench`: run the benchmarks that report ratios and print every row as one table at the end.

Each script prints its own details as it runs; the rows it reports through `ratios.row()` are collected
in a temporary file ($SRT_BENCH_TABLE) and printed together: figure, floor measured in the same run, ratio,
and the goal where the issue sets one.

    python benchmarks/table.py [--quick]     (--quick: fewer runs, srtctl's minute-long check skipped)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS: list[tuple[str, list[str], list[str]]] = [  # (script, arguments, arguments with --quick)
    ("cli_startup.py", ["--runs", "5"], ["--runs", "3"]),
    ("tui_startup.py", ["--runs", "5", "--tmux-runs", "3"], ["--runs", "3", "--tmux-runs", "1"]),
    ("recipe_library.py", ["--runs", "3"], ["--runs", "1"]),
    ("recipe_first_screen.py", ["--runs", "3"], ["--runs", "1"]),
    ("dry_run_library.py", [], ["--no-srtctl"]),
    ("monitor_ended.py", [], ["--refreshes", "10", "--rounds", "1"]),
    ("monitor_keys.py", ["--presses", "12"], ["--presses", "4"]),
    ("log_follow.py", ["--seconds", "30"], ["--seconds", "10"]),
    # httpx at 1,024 endpoints takes minutes of CPU and then fails (see monitor_http.py): asked for on its own
    ("monitor_http.py", ["--sizes", "16,128,1024", "--httpx-max", "128"], ["--sizes", "16,128", "--rounds", "1"]),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="srt-bench-table-") as tmp:
        table = Path(tmp) / "rows.jsonl"
        env = dict(os.environ, SRT_BENCH_TABLE=str(table))
        for script, full, quick in SCRIPTS:
            print(f"== {script}", flush=True)
            subprocess.run([sys.executable, str(HERE / script), *(quick if args.quick else full)], env=env, check=False)
        rows = [json.loads(line) for line in table.read_text().splitlines()] if table.exists() else []
    print(f"\n{'benchmark':<56} {'figure':>10} {'floor':>10}  {'ratio':>7}  {'goal':>6}  floor is")
    for r in rows:
        goal = "" if r["goal"] is None else f"<= {r['goal']:g}"
        print(f"{r['name']:<56} {r['figure']:>8.3f} {r['unit']} {r['floor']:>8.3f} {r['unit']}  {r['ratio']:>7.3g}  "
              f"{goal:>6}  {r['floor_name']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
