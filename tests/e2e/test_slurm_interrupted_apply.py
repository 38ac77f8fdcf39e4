"""No untracked held job (issue 18 item 11): `apply` SIGKILLed at random moments on the real Slurm, then
any next command; Slurm must hold no job of this user that srt-tui does not know."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.jobtools import SRT, srt
from tests.slurm.shared_helpers import QUIET_RECIPE

pytestmark = pytest.mark.slurm


def _mine(out: Path) -> dict[str, str]:
    """This user's jobs whose output goes to ``out``: id -> state and reason (`squeue --me`)."""
    proc = subprocess.run(
        ["squeue", "--me", "-h", "-t", "all", "-o", "%i|%T|%r|%Z"], capture_output=True, text=True, check=True
    )
    rows = [line.split("|") for line in proc.stdout.splitlines() if line.strip()]
    return {r[0]: f"{r[1]} {r[2]}" for r in rows if len(r) == 4 and r[3] == str(out)}


def _staged_appears(out: Path, proc: subprocess.Popen[bytes], timeout: float) -> None:
    """Return as soon as a new `.staged-*` directory appears in ``out`` (or the apply ended, or time ran out)."""
    pid = f"-{proc.pid}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if any(n.startswith(".staged-") and n.endswith(pid) for n in os.listdir(out)):
                return
        except OSError:
            pass
        time.sleep(0.002)


def test_sigkill_of_apply_at_ten_random_moments_leaves_no_untracked_held_job(cluster: Any, tmp_path: Path) -> None:
    from srt_tui.state.jobindex import known_jobs

    recipe = tmp_path / "quiet.yaml"
    recipe.write_text(QUIET_RECIPE)
    out = tmp_path / "out"
    argv = [*SRT, "apply", "-f", str(recipe), "-p", "local", "-y", "--json", "--launcher", "slurm", "-o", str(out)]
    seed = int(os.environ.get("SRT_TEST_SEED", "18"))
    rng = random.Random(seed)
    started = time.monotonic()
    first = json.loads(subprocess.run(argv, capture_output=True, text=True, check=True, timeout=120).stdout)
    took = time.monotonic() - started  # kills are spread over one whole apply, start-up included
    try:
        for i in range(10):
            proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if i % 5 == 0:  # anywhere in the whole apply, start-up included
                time.sleep(rng.uniform(0.2, took))
            else:  # in the few milliseconds around sbatch --hold: after the staged directory appears
                _staged_appears(out, proc, took + 5)
                time.sleep(rng.uniform(0, 0.15))
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        after = srt("status", "-o", str(out), check=False)  # any command: it settles what the kills left
        assert after.returncode == 0, after.stderr
        known = set(known_jobs())
        held = {j: s for j, s in _mine(out).items() if s.startswith("PENDING") and "Held" in s}
        # each held job is either adopted (indexed: status shows it held, cancel stops it) or was cancelled
        assert {j: s for j, s in held.items() if j not in known} == {}, (seed, after.stderr)
    finally:
        ids = [first["job_id"], *_mine(out)]
        subprocess.run(["scancel", *ids], check=False)
