"""Cold start of the TUI to its first frame, in fresh processes: headless, and in a real terminal (tmux)
beside srtctl's first interactive prompt.

Headless: each sample spawns a new interpreter that imports srt-tui, builds the app and runs it headless; the
app's Ready event (the first frame is on screen) ends the sample. The parent measures wall time from
spawn to that moment, so interpreter start-up and every import are included. A second figure is the
time until the profile list is loaded and the first step is usable. Floor: `python -c "import pydantic, yaml"`.

Real terminal (issue 22: headless read ~2x optimistic): a tmux session of 120x36 runs `srt-tui`, and its pane
is read every 10 ms until the first screen's words are on it ("Choose the cluster profile"); the same for
`srtctl` (its interactive mode, /work/venv-srtctl or $SRTCTL_BIN) until its first prompt ("? ..."). Both run
in the same empty directory (srtctl asks for a config file there), alternated; the ratio is srt-tui / srtctl,
goal <= 1.0. Skipped when tmux or srtctl is missing.

    python benchmarks/tui_startup.py [--runs 7] [--tmux-runs 5] [--before OLD_TREE]

2026-12-07 21:43 (main 9ba1c51, quiet machine, load average 0.5-1.3, no helper running; 7 alternated tmux runs):
srt-tui first screen 0.349 s against srtctl's first prompt 0.478 s: ratio 0.73 (goal <= 1.0); headless first frame
0.325 s, profiles listed 0.576 s (import floor 0.089 s).

2026-12-07 17:16 (branch s33-paint against main f3de9fd, load average 3.4-4 on 2 cores, 9 alternated tmux runs of
each): srt-tui first screen 0.675 s, before 0.917 s (0.74), srtctl's first prompt 0.692 s: ratio 0.98 (before 1.33).
At 16:52-17:01 (load 7-8: walls ~2x a quiet machine's, 11 runs): 1.02 s, before 1.23 s (0.83; 0.76 in 7 runs),
srtctl 0.90 s: ratio 1.13 (before 1.36; 0.86 against 1.13 in 7 runs). Under load the ratio to srtctl's single
process widens: srt-tui is two (the app and its recipe reader), each competing for the 2 cores. The app's first frame
is no longer rendered two or three times and thrown away while the app starts, nor waits for the hidden filter
field, the Slurm check's imports or the footer keys' double restyle (tests/tui/test_first_frame.py).

2026-12-07 12:52 (branch s32-start against main 91743d8, load average ~8.3 on 2 cores: walls ~2.5x a quiet
machine's; 7 alternated tmux runs of each): srt-tui first screen 1.30 s, before 1.36 s (0.955), srtctl's first
prompt 1.03 s: ratio 1.26 (before 1.32); again at 13:01 (load 6.7-9.3): 1.67 s, before 1.78 s (0.94), srtctl 1.68 s:
ratio 1.00 (before 1.06). srt-tui is two processes (the app and its recipe reader) plus threads
against srtctl's one, so a loaded machine widens the gap that was 0.96 on a quiet one. Headless first frame
0.59 s (import floor 0.18 s). The first frame no longer shares the interpreter with the Slurm check's import of
the job models (`slurm.submit`; now `slurm.answers`, ~2 ms); what is left before it is Textual itself (its
import ~0.15 s, the screen's CSS and first layout).

2026-12-06 (main f537017, quiet machine, srtctl c88ef731 in /work/venv-srtctl): tmux first screen, 5 alternated
runs, srt-tui 0.485 s (its profile rows in that frame: the reader process lists them) against srtctl's first
prompt 0.507 s: ratio 0.96 (was 1.06); headless first frame 0.338 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.ratios import REPO, SRTCTL, bytecode_env, floor_import, median, row, tmux_env  # noqa: E402

TARGET_S = 0.6

CHILD = r"""
import sys, time, os
from srt_tui.tui.app import SrtTuiApp

app = SrtTuiApp(check_slurm=False, cursor_blink=False)

async def auto_pilot(pilot):
    sys.stdout.write("frame %f\n" % time.time())
    sys.stdout.flush()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    sys.stdout.write("ready %f\n" % time.time())
    sys.stdout.write("modules %d pydantic_at_frame %s\n" % (len(sys.modules), os.environ.get("_SRT_PYD", "?")))
    sys.stdout.flush()
    pilot.app.exit()

app.run(headless=True, size=(120, 36), auto_pilot=auto_pilot)
"""

PROBE = r"""
import sys
import srt_tui.tui.app  # everything the first frame needs is imported here or by the first step
print("pydantic" in sys.modules, "srt_tui.core.plan.model" in sys.modules)
"""


def sample(env: dict[str, str]) -> tuple[float, float]:
    """(seconds to first frame, seconds until the first step is loaded), both from process spawn."""
    start = time.time()
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=60)
    if proc.returncode != 0:
        raise SystemExit(f"child failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    stamps = dict(line.split()[:2] for line in proc.stdout.splitlines() if line.startswith(("frame", "ready")))
    return float(stamps["frame"]) - start, float(stamps["ready"]) - start


def in_tmux(command: str, ready: Callable[[str], bool], cwd: str, timeout: float = 30.0) -> float:
    """Seconds from starting `command` in a fresh 120x36 tmux session until `ready(pane text)`."""
    import shutil

    socket = f"srt-bench-{uuid.uuid4().hex[:8]}"  # a server of its own, never the user's
    tmux = [shutil.which("tmux") or "tmux", "-L", socket]
    try:
        start = time.perf_counter()
        subprocess.run([*tmux, "new-session", "-d", "-x", "120", "-y", "36", "-c", cwd, command + "; sleep 30"],
                       check=True)  # fmt: skip
        while time.perf_counter() - start < timeout:
            pane = subprocess.run([*tmux, "capture-pane", "-p"], capture_output=True, text=True).stdout
            if ready(pane):
                return time.perf_counter() - start
            time.sleep(0.01)
        raise SystemExit(f"not ready in {timeout:.0f} s: {command}\n{pane}")
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)


def srtctl_prompt(pane: str) -> bool:
    """srtctl's interactive mode shows its first question (questionary's `? ...`)."""
    return any(line.lstrip().startswith("? ") for line in pane.splitlines())


def terminal_rows(runs: int, config_dir: str, before: Path | None = None) -> None:
    """srt-tui's first screen and srtctl's first prompt in tmux, alternated (and another source tree's srt-tui,
    `before`); prints the rows."""
    import shlex
    import shutil

    if shutil.which("tmux") is None or not SRTCTL.exists():
        print("  (tmux or srtctl missing: the real-terminal comparison is skipped)")
        return
    with tempfile.TemporaryDirectory(prefix="srt-bench-tty-") as cwd:

        def ours_cmd(tree: Path) -> str:
            pythonpath = os.pathsep.join(x for x in (str(tree), os.environ.get("PYTHONPATH", "")) if x)
            env = tmux_env({"TEXTUAL_ANIMATIONS": "none", "SRT_TUI_CONFIG_DIR": config_dir, "PYTHONPATH": pythonpath,
                            **bytecode_env(Path(cwd) / ".pycache")})  # fmt: skip
            return f"{env} {shlex.quote(sys.executable)} -m srt_tui.cli"

        theirs_cmd = shlex.quote(str(SRTCTL))
        trees = {"srt-tui": REPO, **({"before": before.resolve()} if before else {})}
        got: dict[str, list[float]] = {name: [] for name in [*trees, "srtctl"]}
        for tree in trees.values():
            in_tmux(ours_cmd(tree), lambda p: "Choose the cluster profile" in p, cwd)  # the file cache, .pyc files
        for _ in range(runs):
            for name, tree in trees.items():
                got[name].append(in_tmux(ours_cmd(tree), lambda p: "Choose the cluster profile" in p, cwd))
            got["srtctl"].append(in_tmux(theirs_cmd, srtctl_prompt, cwd))
    print("  tmux 120x36, wall s: " + ", ".join(f"{k} {[round(x, 2) for x in v]}" for k, v in got.items()))
    row("TUI first screen in tmux (real terminal), wall", median(got["srt-tui"]), median(got["srtctl"]),
        "srtctl prompt", goal=1.0)  # fmt: skip
    if before:
        row(
            "TUI first screen in tmux, before tree, wall", median(got["before"]), median(got["srtctl"]), "srtctl prompt"
        )
        row("TUI first screen in tmux: this tree / before", median(got["srt-tui"]), median(got["before"]), "before")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--tmux-runs", type=int, default=5, help="alternated tmux runs of each (0 skips)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--before", type=Path, help="another srt-tui source tree (a worktree of an older commit): its "
                        "tmux first screen runs alternated with this tree's and srtctl's")  # fmt: skip
    args = parser.parse_args()
    config_dir = tempfile.mkdtemp(prefix="srt-bench-")
    env = dict(os.environ, TEXTUAL_ANIMATIONS="none", SRT_TUI_CONFIG_DIR=config_dir,
               **bytecode_env(Path(config_dir) / ".pycache"))  # fmt: skip
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    sample(env)  # warm the OS file cache and .pyc files; "cold" means a fresh process, not a cold disk
    frames, readies = zip(*(sample(env) for _ in range(args.runs)))
    floor = floor_import(args.runs)
    probe = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env).stdout.split()
    result = {
        "runs": args.runs,
        "first_frame_median_s": round(statistics.median(frames), 3),
        "first_frame_min_s": round(min(frames), 3),
        "first_frame_max_s": round(max(frames), 3),
        "profiles_loaded_median_s": round(statistics.median(readies), 3),
        "target_s": TARGET_S,
        "pydantic_imported_before_first_frame": probe[:1] == ["True"],
        "core_plan_imported_before_first_frame": probe[1:2] == ["True"],
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        ok = result["first_frame_median_s"] <= TARGET_S
        print(
            f"srt-tui cold start to first frame: median {result['first_frame_median_s']:.3f} s "
            f"(min {result['first_frame_min_s']:.3f}, max {result['first_frame_max_s']:.3f}, "
            f"{args.runs} fresh processes)"
            f" — target {TARGET_S:.1f} s: {'OK' if ok else 'OVER'}"
        )
        print(f"first step usable (profiles listed): median {result['profiles_loaded_median_s']:.3f} s")
        row("TUI first frame, headless, wall", statistics.median(frames), floor.wall, "import floor")
        row("TUI profiles listed, headless, wall", statistics.median(readies), floor.wall, "import floor")
        if args.tmux_runs:
            terminal_rows(args.tmux_runs, config_dir, args.before)
        print(
            "lazy imports: pydantic before first frame = "
            f"{result['pydantic_imported_before_first_frame']}, launch plan code = "
            f"{result['core_plan_imported_before_first_frame']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
