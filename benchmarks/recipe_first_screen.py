#!/usr/bin/env python3
"""Cold start to the first screenful of recipe rows, in a real terminal (issue 21: `srt-tui` with srtctl's library
in `./recipes`, the first screenful of recipes in <= 0.5 s; issue 22: the rest filled in as it is read).

Each sample starts `srt-tui` in a fresh 120x36 tmux server, in a directory whose `./recipes` is srtctl's library,
with an empty cache (XDG_CACHE_HOME) and config dir; reads the pane every 10 ms; presses Enter as soon as the
profile list is on screen (no human is faster) and stops when a screenful of recipe rows is painted. Figures,
from process start: first paint, profile list, first screenful of recipe rows, wall and the app's own CPU
(utime + stime from /proc when the rows appear: a shared machine's load inflates wall, not CPU). Floor, measured
in the same run and alternated with it: the same app's first paint with an empty library (no `./recipes`).
The ratio "library / no library" is the cost the library adds to reaching its first rows (goal ~1).

    python benchmarks/recipe_first_screen.py [--library DIR] [--runs 3]

Figures of 2026-12-02, srtctl's 555 files (+ 24 shipped), 2 cores at a load average of ~2, medians of 3: first
paint 0.48 s, profile list 0.61 s, first screenful of recipe rows 0.96 s wall / 0.85 s CPU; with no library
0.99 s / 0.88 s: ratio 0.96, the library adds nothing measurable to its first rows (a captured pane read
"Reading recipes… 44/580 files" under them; the rest fills in); ratio to the first paint 1.98. What the 0.96 s
holds: the first paint (Python, Textual, its CSS), then pydantic and the profile models for the profile list
(~0.15 s), then the recipe step after Enter (~0.33 s, the same with or without the library). At a load average
of 5-9 the same flow reads 1.4-2.9 s wall, alike for both. Tried and measured as no gain (8-10 interleaved
pairs): the scan started once the profile list is painted instead of at mount, sys.setswitchinterval(0.001),
the recipe step mounted ahead while the profile list shows.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.ratios import REPO, median, row  # noqa: E402

SHARED = REPO.parent / "shared" / "reference" / "srtctl-recipes-all" / "recipes"
#: a recipe row of the tree: `├ ✓ mocker-1p1d  1P1D · mocker`
ROW = re.compile(r"[├└] .*\S+ · \S+")
#: rows of the 36-line terminal's tree that make "a screenful" (the tree shows ~30 lines, folders among them)
SCREENFUL = 25
TICK = os.sysconf("SC_CLK_TCK")


@dataclass
class Sample:
    """Seconds from start: first paint, profile list, recipe screenful (wall), and the app's CPU at the last."""

    paint: float
    profiles: float
    rows: float
    cpu: float
    profiles_cpu: float


def _app_cpu(pane_pid: int) -> float:
    """CPU seconds (user + system) of the python process under the pane's shell."""
    total = 0.0
    for child in Path(f"/proc/{pane_pid}/task/{pane_pid}/children").read_text().split():
        fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / TICK
    return total


def sample(cwd: Path, env: str, timeout: float = 60.0) -> Sample:
    """One cold start in tmux: Enter on the profile list, until a screenful of recipe rows is painted."""
    socket = f"srt-bench-{uuid.uuid4().hex[:8]}"  # a tmux server of its own, never the user's
    tmux = [shutil.which("tmux") or "tmux", "-L", socket]
    cmd = f"{env} {shlex.quote(sys.executable)} -m srt_tui.cli"
    marks: dict[str, float] = {}
    try:
        start = time.perf_counter()
        subprocess.run([*tmux, "new-session", "-d", "-x", "120", "-y", "36", "-c", str(cwd), cmd + "; sleep 60"],
                       check=True)  # fmt: skip
        pid = int(subprocess.run([*tmux, "list-panes", "-F", "#{pane_pid}"], capture_output=True, text=True).stdout)
        while time.perf_counter() - start < timeout:
            pane = subprocess.run([*tmux, "capture-pane", "-p"], capture_output=True, text=True).stdout
            now = time.perf_counter() - start
            if "paint" not in marks and "Choose the cluster profile" in pane:
                marks["paint"] = now
            if "paint" in marks and "profiles" not in marks and "local " in pane.split("Choose the cluster", 1)[-1]:
                marks["profiles"], marks["profiles_cpu"] = now, _app_cpu(pid)
                subprocess.run([*tmux, "send-keys", "Enter"], check=True)
            if "profiles" in marks and sum(1 for line in pane.splitlines() if ROW.search(line)) >= SCREENFUL:
                return Sample(marks["paint"], marks["profiles"], now, _app_cpu(pid), marks["profiles_cpu"])
            time.sleep(0.01)
        raise SystemExit(f"no screenful of recipe rows in {timeout:.0f} s (marks {marks}):\n{pane}")
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", type=Path, help="the recipe folder to use as ./recipes")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    library = args.library or SHARED
    if shutil.which("tmux") is None or not library.is_dir():
        print("  (tmux or the recipe library missing: skipped)")
        return 0
    with tempfile.TemporaryDirectory(prefix="srt-bench-first-") as tmp:
        work = Path(tmp)
        with_lib, without = work / "with", work / "without"
        for d in (with_lib, without, work / "config"):
            d.mkdir()
        (with_lib / "recipes").symlink_to(library.resolve())
        cache = work / "cache"
        pythonpath = os.pathsep.join(x for x in (str(REPO), os.environ.get("PYTHONPATH", "")) if x)
        env = shlex.join(["env", "TEXTUAL_ANIMATIONS=none", f"SRT_TUI_CONFIG_DIR={work / 'config'}",
                          f"XDG_CACHE_HOME={cache}", f"PYTHONPATH={pythonpath}"])  # fmt: skip
        files = sum(1 for _ in library.rglob("*.y*ml"))
        print(f"first screenful of recipes in tmux 120x36, ./recipes = {library} ({files} files), cold cache, "
              f"{args.runs} alternated runs, medians")  # fmt: skip
        sample(without, env)  # warm the OS file cache and .pyc files: "cold" is a fresh process and cache
        got: dict[str, list[Sample]] = {"library": [], "none": []}
        for _ in range(args.runs):
            for kind, cwd in (("library", with_lib), ("none", without)):
                shutil.rmtree(cache, ignore_errors=True)
                got[kind].append(sample(cwd, env))
        for kind, samples in got.items():
            print(f"  ./recipes {kind:<8}: paint {[round(s.paint, 2) for s in samples]}, profiles "
                  f"{[round(s.profiles, 2) for s in samples]}, recipe rows {[round(s.rows, 2) for s in samples]} "
                  f"wall; app CPU at the profile list {[round(s.profiles_cpu, 2) for s in samples]}, at the rows "
              f"{[round(s.cpu, 2) for s in samples]}")  # fmt: skip
        lib, none = got["library"], got["none"]
        paint = median([s.paint for s in none])
        row("recipes first screenful in tmux (launch+Enter), wall", median([s.rows for s in lib]), paint,
            "app first paint, no library")  # fmt: skip
        row("recipes first screenful in tmux, wall", median([s.rows for s in lib]), median([s.rows for s in none]),
            "same, no library")  # fmt: skip
        row("recipes first screenful in tmux, app CPU", median([s.cpu for s in lib]), median([s.cpu for s in none]),
            "same, no library")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
