#!/usr/bin/env python3
"""How fast is `srt-tui dry-run`?

For every shipped recipe (on the first profile it declares) this prints the wall time of
`srt-tui dry-run -f RECIPE -p PROFILE -o DIR` in a fresh process, through the installed console script
(median of --repeat runs, best run in brackets), then the time to render every shipped (recipe, profile)
pair in one process, and compares both with the targets: <= 0.26 s per fresh process, < 1 s for all
recipes in one process. The ratio is measured / target (below 1 is within target).

    python benchmarks/dry_run.py [--repeat 3] [--all-profiles] [--check]

Two columns: "as configured" runs with this shell's environment (on the development machines
PYTHONDONTWRITEBYTECODE is set, so every start compiles srt-tui from source); "bytecode cached" lets
Python cache bytecode in a temporary PYTHONPYCACHEPREFIX, as an ordinary installation does. The interpreter's
own start-up is printed as a baseline, and the figures end as ratios to `python -c "import pydantic, yaml"`
measured in the same run (the absolute targets follow the machine's load; the ratios do not). `--check` exits
1 when a target is missed. Timing belongs here, never in the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.ratios import row  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
FRESH_TARGET_S = 0.26
ALL_TARGET_S = 1.0

_ALL_IN_ONE = """
import json, sys, time
t0 = time.perf_counter()
from srt_tui.core.api import prepare
from srt_tui.core.text.dryrun import describe
from srt_tui.core.jobdir.write import job_files
t1 = time.perf_counter()
for recipe, profile in json.loads(sys.argv[1]):
    prep = prepare(recipe, profile)
    describe(prep)
    job_files(prep.job, prep.plan, prep.script)
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "render_s": t2 - t1}))
"""


def console_script() -> Path:
    """The installed entry point beside this interpreter (what `pip install` wrote), else the one on PATH."""
    beside = Path(sys.executable).with_name("srt-tui")
    if beside.is_file():
        return beside
    found = shutil.which("srt-tui")
    if found is None:
        sys.exit("srt-tui is not installed: pip install -e .")
    return Path(found)


def pairs(all_profiles: bool) -> list[tuple[Path, str]]:
    """(recipe, profile) for every shipped recipe: its first declared profile, or all of them."""
    out = []
    for path in sorted((REPO / "recipes").rglob("*.yaml")):
        declared = (yaml.safe_load(path.read_text()) or {}).get("profiles") or ["local"]
        out += [(path, str(p)) for p in (declared if all_profiles else declared[:1])]
    return out


def wall(argv: list[str], repeat: int, cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(median, best) wall time of `argv` over `repeat` fresh processes; a failing run stops the benchmark."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            sys.exit(f"failed: {' '.join(argv)}\n{proc.stderr}")
    return statistics.median(times), min(times)


def verdict(value: float, target: float, strict: bool = False) -> str:
    """`0.243 s  target <= 0.26 s  ratio 0.93  ok`."""
    ok = value < target if strict else value <= target
    op = "<" if strict else "<="
    return f"{value:.3f} s  target {op} {target:g} s  ratio {value / target:.2f}  {'ok' if ok else 'OVER'}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes per recipe (median)")
    parser.add_argument("--all-profiles", action="store_true", help="time every declared profile, not the first")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args()

    script = console_script()
    with tempfile.TemporaryDirectory(prefix="srt-tui-bench-") as tmp:
        work = Path(tmp)
        env = dict(os.environ, SRT_TUI_CONFIG_DIR=str(work / "config"))
        env.pop("SRTSLURM_CONFIG", None)
        cached_env = dict(env, PYTHONPYCACHEPREFIX=str(work / "pycache"))
        cached_env.pop("PYTHONDONTWRITEBYTECODE", None)
        n = max(5, args.repeat)

        print(f"srt-tui dry-run benchmark: {script}  (python {sys.version.split()[0]}, {os.cpu_count()} CPUs)")
        base, _ = wall([sys.executable, "-c", "pass"], n, work, env)
        bare, _ = wall([sys.executable, "-S", "-c", "pass"], n, work, env)
        print(f"  baseline: python -c pass {base:.3f} s; without site start-up hooks (-S) {bare:.3f} s")
        on_path = shutil.which("srt-tui")
        if on_path and Path(on_path).resolve() != script.resolve():
            direct, _ = wall([str(script), "profiles", "--json"], n, work, env)
            shim, _ = wall([on_path, "profiles", "--json"], n, work, env)
            print(f"  `srt-tui` on PATH is a wrapper ({on_path}): `profiles --json` {shim:.3f} s")
            print(f"  through it, {direct:.3f} s direct; the timings below use the direct entry point")
        if "PYTHONDONTWRITEBYTECODE" in os.environ:
            print("  PYTHONDONTWRITEBYTECODE is set: 'as configured' compiles srt-tui from source on every start")

        print()
        print(f"fresh process, median of {args.repeat} [best]: srt-tui dry-run -f RECIPE -p PROFILE -o DIR")
        print(f"  {'recipe @ profile':<56} {'as configured':>20} {'bytecode cached':>20}")
        plain: list[tuple[float, float]] = []
        cached: list[tuple[float, float]] = []
        for i, (recipe, profile) in enumerate(pairs(args.all_profiles)):
            argv = [str(script), "dry-run", "-f", str(recipe), "-p", profile, "-o", str(work / f"out{i}")]
            plain.append(wall(argv, args.repeat, work, env))
            wall(argv, 1, work, cached_env)  # fill the bytecode cache
            cached.append(wall(argv, args.repeat, work, cached_env))
            name = f"{recipe.relative_to(REPO / 'recipes')} @ {profile}"
            (pm, pb), (cm, cb) = plain[-1], cached[-1]
            print(f"  {name:<56} {pm:>9.3f} s [{pb:.3f}] {cm:>9.3f} s [{cb:.3f}]")
        floor_wall, _ = wall([sys.executable, "-c", "import pydantic, yaml"], n, work, cached_env)
        cached_median = statistics.median([m for m, _ in cached])
        row("dry-run of one recipe, fresh process, wall", cached_median, floor_wall, "import floor")
        for label, rows in (("as configured", plain), ("bytecode cached", cached)):
            medians = [m for m, _ in rows]
            print(f"  {label:<16} median over recipes {verdict(statistics.median(medians), FRESH_TARGET_S)}")
            print(f"  {'':<16} worst recipe        {verdict(max(medians), FRESH_TARGET_S)}")
        print()

        every = [[str(r), p] for r, p in pairs(all_profiles=True)]
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-c", _ALL_IN_ONE, json.dumps(every)], cwd=work, env=env, capture_output=True, text=True
        )
        total = time.perf_counter() - start
        if proc.returncode != 0:
            sys.exit(proc.stderr)
        inner = json.loads(proc.stdout)
        print(f"all {len(every)} shipped (recipe, profile) pairs in one process: plan, script, dry-run text, files")
        print(f"  whole process (start-up, imports, render) {verdict(total, ALL_TARGET_S, strict=True)}")
        print(f"  of which imports {inner['import_s']:.3f} s, rendering {inner['render_s']:.3f} s")
        row(f"all {len(every)} shipped pairs in one process, wall", total, floor_wall, "import floor")
    missed = max(m for m, _ in plain) > FRESH_TARGET_S or total >= ALL_TARGET_S
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
