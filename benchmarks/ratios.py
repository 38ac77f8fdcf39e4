"""What every benchmark shares: run a command in a fresh process for its wall and CPU time, measure a floor in
the same run (the interpreter, `import pydantic, yaml`, srtctl when installed) and print figure, floor, ratio.

A ratio to a floor measured minutes apart on the same machine survives the load of a shared machine; an
absolute time does not. Rows printed with `row()` are also appended, one JSON object a line, to the file named
by $SRT_BENCH_TABLE, so `make bench` prints every script's figures as one table (benchmarks/table.py).
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SRTCTL = Path(os.environ.get("SRTCTL_BIN", "/work/venv-srtctl/bin/srtctl"))


@dataclass(frozen=True)
class Run:
    """Wall and CPU (user + system) seconds of one child process, and what it printed."""

    wall: float
    cpu: float
    stdout: str


def run(argv: Sequence[str], *, env: dict[str, str] | None = None, cwd: Path | None = None, ok: bool = True) -> Run:
    """Run `argv` to completion; CPU time from the kernel's accounting of the reaped child."""
    import time

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(list(argv), env=env, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if ok and proc.returncode != 0:
        sys.exit(f"failed ({proc.returncode}): {' '.join(argv)}\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(wall, cpu, proc.stdout)


def median_runs(argv: Sequence[str], n: int, **kw: object) -> Run:
    """The run of median CPU among `n`."""
    runs = sorted((run(argv, **kw) for _ in range(n)), key=lambda r: r.cpu)  # type: ignore[arg-type]
    return runs[len(runs) // 2]


def floor_import(n: int = 5) -> Run:
    """`python -c "import pydantic, yaml"`: what any srt-tui command costs at least."""
    return median_runs([sys.executable, "-c", "import pydantic, yaml"], n)


def row(name: str, figure: float, floor: float, floor_name: str, unit: str = "s", goal: float | None = None) -> None:
    """`name  figure  floor (what)  ratio  [goal]`, printed and appended to $SRT_BENCH_TABLE."""
    ratio = figure / floor if floor > 0 else float("inf")
    verdict = "" if goal is None else f"  goal ratio <= {goal:g}: {'ok' if ratio <= goal else 'OVER'}"
    print(f"  {name:<52} {figure:8.3f} {unit}  {floor_name} {floor:.3f} {unit}  ratio {ratio:6.3g}{verdict}")
    table = os.environ.get("SRT_BENCH_TABLE")
    if table:
        with open(table, "a", encoding="utf-8") as fh:
            doc = {"name": name, "figure": figure, "floor": floor, "floor_name": floor_name, "unit": unit,
                   "ratio": ratio, "goal": goal}  # fmt: skip
            fh.write(json.dumps(doc) + "\n")


def median(values: Sequence[float]) -> float:
    """The median (a benchmark's figures are medians of alternated runs)."""
    return statistics.median(values)


def bytecode_env(cache: Path) -> dict[str, str]:
    """Variables that let a child interpreter write and reuse its compiled modules under `cache` (not in the source
    tree): an installed package ships them, srtctl's virtualenv has them, and a PYTHONDONTWRITEBYTECODE shell would
    otherwise compile every srt-tui module at each start. PYTHONDONTWRITEBYTECODE itself is dropped by the caller."""
    return {"PYTHONPYCACHEPREFIX": str(cache)}


def tmux_env(variables: dict[str, str]) -> str:
    """`env -u PYTHONDONTWRITEBYTECODE K=V …`: the prefix of a command a tmux pane runs (the server keeps the
    environment it was started with)."""
    import shlex

    return shlex.join(["env", "-u", "PYTHONDONTWRITEBYTECODE", *(f"{k}={v}" for k, v in variables.items())])
