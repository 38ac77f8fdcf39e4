"""Submission is crash-safe on the real local Slurm: `apply` killed or failing at each step between
`sbatch --hold` and the end leaves no held job that srt-tui does not track.

Stand-in `sbatch` / `scontrol` on PATH run the real commands and signal `apply` (their parent) at a
chosen step, so the kill lands deterministically; the one step no command brackets (the id recorded,
the directory not yet moved) is reached by the test's own entry point (`KILL_AFTER_RECORD`), which
wraps that step: the product has no test hook. The stand-ins log every job id sbatch gave, so each
test checks Slurm's own view of every job it caused.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cluster import ClusterInfo
from tests.conftest import REPO, require

pytestmark = [pytest.mark.slurm, pytest.mark.slurm25]
RECIPE = str(REPO / "recipes" / "mocker" / "mocker-1p1d.yaml")

STAND_IN = """#!/bin/bash
# stand-in {name}: the real one, with a fault at the step named by $FAULT
if [ "{name}" = scontrol ] && [ "$1" = release ]; then
  case "$FAULT" in
    release-kill) kill -KILL $PPID; sleep 5; exit 1 ;;
    release-hup) kill -HUP $PPID ;;
    after-release-kill) {real} "$@"; kill -KILL $PPID; sleep 5; exit 0 ;;
  esac
fi
if [ "{name}" = sbatch ]; then
  case "$FAULT" in before-sbatch-kill) kill -KILL $PPID; sleep 5; exit 1 ;; esac
  out=$({real} "$@"); rc=$?
  echo "$out" | tail -1 >> "$FAULT_LOG"
  case "$FAULT" in
    sbatch-term) kill -TERM $PPID ;;
    sbatch-int) kill -INT $PPID ;;
    sbatch-fill) head -c 64M /dev/zero > "$FAULT_FILL/filler" 2>/dev/null ;;
  esac
  echo "$out"; exit $rc
fi
exec {real} "$@"
"""


@pytest.fixture
def faults(local_slurm: ClusterInfo, tmp_path: Path) -> Iterator[Path]:
    """A PATH directory with the stand-ins; afterwards every job they saw is cancelled (ours only)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("sbatch", "scontrol"):
        real = shutil.which(name)
        require(real is not None, f"{name} is not installed")
        (bin_dir / name).write_text(STAND_IN.format(name=name, real=real))
        (bin_dir / name).chmod(0o755)
    (tmp_path / "jobs.log").touch()
    yield bin_dir
    for job_id in _logged(tmp_path):
        subprocess.run(["scancel", job_id], capture_output=True)


def _logged(tmp_path: Path) -> list[str]:
    return [x.split(";")[0] for x in (tmp_path / "jobs.log").read_text().split() if x]


#: `srt-tui` with the step after the job id is recorded replaced by SIGKILL of the process itself
KILL_AFTER_RECORD = (
    "import os, signal, sys; import srt_tui.slurm.submit as submit; "
    "submit._move_into_place = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL); "
    "from srt_tui.cli.main import main; sys.exit(main(sys.argv[1:]))"
)


def _srt(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None, entry: tuple[str, ...] = ("-m", "srt_tui.cli")
) -> subprocess.CompletedProcess[str]:
    full = {
        **os.environ,
        "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}",
        "PYTHONPATH": str(REPO),
        "FAULT_LOG": str(tmp_path / "jobs.log"),
        **(env or {}),
    }
    cmd = [sys.executable, *entry, *args]
    return subprocess.run(
        cmd, capture_output=True, text=True, env=full, timeout=120, stdin=subprocess.DEVNULL, cwd=tmp_path
    )


def _apply(
    tmp_path: Path, out: Path, entry: tuple[str, ...] = ("-m", "srt_tui.cli"), **env: str
) -> subprocess.CompletedProcess[str]:
    args = ("apply", "-f", RECIPE, "-p", "local", "--launcher", "slurm", "-y", "-o", str(out), "--transport", "cli")
    return _srt(tmp_path, *args, env=env, entry=entry)


def _slurm_state(job_id: str) -> tuple[str, str]:
    """(JobState, Reason) as slurmctld reports them."""
    proc = subprocess.run(["scontrol", "show", "job", "-o", job_id], capture_output=True, text=True)
    state = re.search(r"JobState=(\S+)", proc.stdout)
    reason = re.search(r"Reason=(\S+)", proc.stdout)
    return (state.group(1) if state else "GONE", reason.group(1) if reason else "")


def _wait_state(job_id: str, want: str, timeout: float = 15) -> str:
    deadline = time.monotonic() + timeout
    state = ""
    while time.monotonic() < deadline:
        state = _slurm_state(job_id)[0]
        if state == want:
            break
        time.sleep(0.2)
    return state


def _only_job(tmp_path: Path) -> str:
    ids = _logged(tmp_path)
    assert len(ids) == 1, ids
    return ids[0]


@pytest.mark.parametrize(("fault", "signame"), [("sbatch-term", "15"), ("sbatch-int", "2"), ("release-hup", "1")])
def test_a_signal_while_submitting_cancels_the_held_job(faults: Path, tmp_path: Path, fault: str, signame: str) -> None:
    out = tmp_path / "out"
    proc = _apply(tmp_path, out, FAULT=fault)
    job_id = _only_job(tmp_path)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.splitlines() == [
        "srt-tui: stopping: finishing the submission step, then cancelling the job…",
        f"srt-tui: interrupted: Slurm job {job_id} was cancelled; its files are in {out / job_id}",
    ]
    assert _wait_state(job_id, "CANCELLED") == "CANCELLED"
    assert not list(out.glob(".staged-*"))
    status = _srt(tmp_path, "status", "-o", str(out))  # the plain list: the job is indexed
    assert status.returncode == 0 and job_id in status.stdout and "cancel" in status.stdout.lower(), status


def test_apply_killed_before_release_leaves_a_tracked_held_job_that_cancel_stops(faults: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = _apply(tmp_path, out, FAULT="release-kill")
    job_id = _only_job(tmp_path)
    assert proc.returncode == -9
    assert _slurm_state(job_id) == ("PENDING", "JobHeldUser")
    status = _srt(tmp_path, "status")  # no -o: the job index alone must know it
    assert status.returncode == 0 and re.search(rf"^{job_id}\s.*PENDING", status.stdout, re.M), status
    cancel = _srt(tmp_path, "cancel", job_id)
    assert cancel.returncode == 0, cancel
    assert _wait_state(job_id, "CANCELLED") == "CANCELLED"


def test_apply_killed_after_the_id_is_recorded_is_recovered_by_the_next_run(faults: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = _apply(tmp_path, out, entry=("-c", KILL_AFTER_RECORD))
    job_id = _only_job(tmp_path)
    assert proc.returncode == -9
    assert len(list(out.glob(".staged-*"))) == 1 and _slurm_state(job_id) == ("PENDING", "JobHeldUser")
    status = _srt(tmp_path, "status", "-o", str(out))
    assert f"srt-tui: warning: job {job_id}: its `apply` was killed before release" in status.stderr, status
    assert re.search(rf"^{job_id}\s.*PENDING", status.stdout, re.M), status.stdout
    assert not list(out.glob(".staged-*")) and (out / job_id / "job.json").is_file()
    assert _srt(tmp_path, "cancel", job_id).returncode == 0
    assert _wait_state(job_id, "CANCELLED") == "CANCELLED"


def test_apply_killed_before_sbatch_submits_nothing_and_the_next_run_says_so(faults: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = _apply(tmp_path, out, FAULT="before-sbatch-kill")
    assert proc.returncode == -9 and _logged(tmp_path) == []
    status = _srt(tmp_path, "status", "-o", str(out))
    assert "no job id was recorded" in status.stderr, status
    assert not list(out.glob(".staged-*")) and len(list(out.glob("failed-*"))) == 1


def test_a_write_error_after_sbatch_cancels_the_held_job(faults: Path, tmp_path: Path) -> None:
    out = tmp_path / "full"
    out.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(out)], capture_output=True)
    require(mounted.returncode == 0, f"cannot mount a small tmpfs: {mounted.stderr!r}")
    try:
        proc = _apply(tmp_path, out, FAULT="sbatch-fill", FAULT_FILL=str(out))
        job_id = _only_job(tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert "No space left on device" in proc.stderr and f"Slurm job {job_id} was cancelled" in proc.stderr
        assert len(proc.stderr.splitlines()) == 1, proc.stderr
        assert _wait_state(job_id, "CANCELLED") == "CANCELLED"
    finally:
        with contextlib.suppress(OSError):
            subprocess.run(["umount", "-l", str(out)], capture_output=True)


def test_apply_killed_after_release_leaves_a_running_job_in_the_plain_status_list(faults: Path, tmp_path: Path) -> None:
    proc = _apply(tmp_path, tmp_path / "out", FAULT="after-release-kill")
    job_id = _only_job(tmp_path)
    assert proc.returncode == -9
    assert _slurm_state(job_id)[1] != "JobHeldUser"  # released: it runs (or waits for nodes)
    status = _srt(tmp_path, "status")  # no -o, no id: the index alone must list it
    assert status.returncode == 0 and re.search(rf"^{job_id}\s", status.stdout, re.M), status
    assert _srt(tmp_path, "cancel", job_id).returncode == 0
    assert _wait_state(job_id, "CANCELLED") == "CANCELLED"
