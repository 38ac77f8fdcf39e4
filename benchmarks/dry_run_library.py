#!/usr/bin/env python3
"""Checking a whole recipe library: `srt-tui dry-run -f DIR` next to srtctl's `dry-run -f DIR` (issue 22).

Both run in fresh processes in this run, on the same folder; the figure is CPU time (user + system), which a
shared machine's load does not inflate as it does wall time. Goal: srt-tui <= 1/4 of srtctl. srtctl is found
at $SRTCTL_BIN (default /work/venv-srtctl/bin/srtctl); without it the floor is `import pydantic, yaml`.

    python benchmarks/dry_run_library.py [--library DIR] [--no-srtctl]

2026-12-02, srtctl's 560-file library (555 *.yaml, 671 jobs), 2 cores at load ~11: srt-tui 4.4 s CPU (649 ok,
22 refused with the reason), srtctl c88ef731 64.8 s CPU (445 s wall): ratio 0.07.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.ratios import REPO, SRTCTL, floor_import, row, run  # noqa: E402

SHARED = REPO.parent / "shared" / "reference" / "srtctl-recipes-all" / "recipes"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", type=Path, default=SHARED if SHARED.is_dir() else REPO / "recipes")
    parser.add_argument("--no-srtctl", action="store_true", help="skip srtctl (its run takes a minute of CPU)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="srt-bench-dry-") as tmp:
        env = dict(os.environ, SRT_TUI_CONFIG_DIR=str(Path(tmp) / "config"))
        env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
        env.pop("SRTSLURM_CONFIG", None)
        args.library = args.library.resolve()
        ours = run([sys.executable, "-m", "srt_tui.cli", "dry-run", "-f", str(args.library)], env=env, cwd=Path(tmp),
                   ok=False)  # fmt: skip
        tally = ours.stdout.strip().splitlines()[-1] if ours.stdout.strip() else "?"
        print(f"library check: {args.library}\n  srt-tui: {tally}; {ours.wall:.2f} s wall, {ours.cpu:.2f} s CPU")
        if SRTCTL.is_file() and not args.no_srtctl:
            theirs = run([str(SRTCTL), "dry-run", "-f", str(args.library)], cwd=Path(tmp), ok=False)
            print(f"  srtctl:  {theirs.wall:.2f} s wall, {theirs.cpu:.2f} s CPU")
            row("dry-run -f LIBRARY, CPU", ours.cpu, theirs.cpu, "srtctl", goal=0.25)
        else:
            floor = floor_import()
            row("dry-run -f LIBRARY, CPU (srtctl not installed)", ours.cpu, floor.cpu, "import floor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
