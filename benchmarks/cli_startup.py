#!/usr/bin/env python3
"""Start-up diet: CPU of `srt-tui --help`, `status` and one `dry-run`, beside `python -c "import pydantic, yaml"`.

Each command runs in a fresh process (`python -m srt_tui.cli ...`, this interpreter), alternated with the floor
so both see the same load; the figures are medians of CPU time (user + system of the reaped child). Goal (issue
22): `--help` within 2x the floor. `status` runs on an empty job index (the cost of the command itself), and
`dry-run` renders one shipped recipe on the `local` profile (benchmarks/dry_run_library.py compares dry-run with
srtctl's). Every command also lists what it imported that it should not (the child prints its module names).

    python benchmarks/cli_startup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.ratios import REPO, Run, median, row, run  # noqa: E402

RECIPE = REPO / "recipes" / "mocker" / "mocker-1p1d.yaml"
#: modules a command must not load unless it uses them
HEAVY = {
    "--help": ("pydantic", "yaml", "asyncio", "textual", "prometheus_client", "srt_tui.slurm.select"),
    "status": ("textual", "srt_tui.setup.probes", "prometheus_client"),
    "dry-run": ("textual", "asyncio", "prometheus_client", "srt_tui.monitor"),
}
SHOW_MODULES = (
    "import runpy, sys\n"
    "sys.argv = ['srt-tui', *sys.argv[1:]]\n"
    "try:\n    runpy.run_module('srt_tui.cli', run_name='__main__')\n"
    "except SystemExit:\n    pass\n"
    "sys.stderr.write('\\nMODULES ' + ' '.join(sys.modules) + '\\n')\n"
)


def loaded(argv: list[str], env: dict[str, str]) -> set[str]:
    """The modules a command left in sys.modules."""
    import subprocess

    proc = subprocess.run([sys.executable, "-c", SHOW_MODULES, *argv], capture_output=True, text=True, env=env)
    line = next((x for x in proc.stderr.splitlines() if x.startswith("MODULES ")), "MODULES ")
    return set(line.split()[1:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    recipe = RECIPE if RECIPE.exists() else sorted((REPO / "recipes").rglob("*.yaml"))[0]
    with tempfile.TemporaryDirectory(prefix="srt-bench-cli-") as tmp:
        env = dict(os.environ, SRT_TUI_CONFIG_DIR=f"{tmp}/config", HOME=tmp)
        env.pop("SRTSLURM_CONFIG", None)
        commands = {
            "--help": ["--help"],
            "status": ["status"],
            "dry-run": ["dry-run", "-f", str(recipe), "-p", "local", "-o", f"{tmp}/out"],
        }
        floor: list[Run] = []
        got: dict[str, list[Run]] = {name: [] for name in commands}
        for _ in range(args.runs):  # alternated: every figure and its floor see the same load
            floor.append(run([sys.executable, "-c", "import pydantic, yaml"], env=env))
            for name, argv in commands.items():
                got[name].append(run([sys.executable, "-m", "srt_tui.cli", *argv], env=env, ok=False, cwd=Path(tmp)))
        for name, argv in commands.items():
            extra = sorted(m for m in HEAVY[name] if m in loaded(argv, env))
            print(f"  {name}: imports it does not need: {', '.join(extra) if extra else 'none'}")
    base = median([r.cpu for r in floor])
    print(f"CLI start-up, CPU s, median of {args.runs} alternated fresh processes:")
    row("`srt-tui --help`, CPU", median([r.cpu for r in got["--help"]]), base, "import floor", goal=2.0)
    row("`srt-tui status` (no jobs), CPU", median([r.cpu for r in got["status"]]), base, "import floor")
    row("`srt-tui dry-run` (one recipe), CPU", median([r.cpu for r in got["dry-run"]]), base, "import floor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
