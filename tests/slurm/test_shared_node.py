"""A login node is shared (issue 18, items 1-4): another real user plants staged directories, swaps job
directories, pre-creates the mock load board with links, or makes the index writable; each is refused with
one clear line and nothing of the other user's runs or is overwritten. Runs as root with a second user."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.otheruser import OtherUser, other_user, shared_dir  # noqa: F401 - fixtures
from tests.slurm.shared_helpers import QUIET_RECIPE, srt

pytestmark = pytest.mark.second_uid


def _plant_staged(other: OtherUser, base: Path, name: str, job_id: str) -> Path:
    """As the other user: a `.staged-*` directory whose job.json claims to be this user's apply."""
    staged = base / name
    meta = {"job_id": job_id, "user": "root", "host": socket.gethostname(), "name": "x", "launcher": "slurm"}
    other.run("mkdir", "-m", "0777", str(staged))
    other.run("sh", "-c", f"printf '%s' '{json.dumps(meta)}' > '{staged}/job.json'")
    return staged


def test_planted_staged_directories_are_never_recovered(other_user: OtherUser, shared_dir: Path,  # noqa: F811
                                                        tmp_path: Path) -> None:  # fmt: skip
    victim_cfg = tmp_path / "victimhome" / "cfg"
    dead = 2**22 + 1
    escape = _plant_staged(other_user, shared_dir, f".staged-20260101-000000-{dead}", f"../{victim_cfg}/profiles")
    plain = _plant_staged(other_user, shared_dir, f".staged-20260101-000001-{dead}", "4242")
    # one of this user's own, whose job.json was edited to point outside the base
    mine = shared_dir / f".staged-20260101-000002-{dead}"
    mine.mkdir(mode=0o700)
    meta = {"job_id": "../../etc", "user": "root", "host": socket.gethostname(), "name": "x", "launcher": "slurm"}
    (mine / "job.json").write_text(json.dumps(meta))
    proc = srt("status", "-o", str(shared_dir))
    assert proc.returncode == 0, proc.stderr
    assert escape.is_dir() and plain.is_dir() and mine.is_dir()  # nothing renamed
    assert not (shared_dir / "4242").exists() and not victim_cfg.exists()
    assert f"{mine}: its job.json names '../../etc', not a job id: left where it is" in proc.stderr


def test_an_output_directory_others_can_rearrange_is_refused(other_user: OtherUser, tmp_path: Path) -> None:  # noqa: F811
    recipe = tmp_path / "quiet.yaml"
    recipe.write_text(QUIET_RECIPE)
    open_base = Path("/tmp") / f"srt-open-{os.getpid()}"
    open_base.mkdir(mode=0o777)
    open_base.chmod(0o777)  # writable by everyone, no sticky bit: anyone may swap local-N for their own
    theirs = Path(other_user.run("mktemp", "-d").stdout.strip())
    try:
        cases = [
            (open_base, "is writable by other users (mode 0777)"),
            (theirs, f"belongs to {other_user.name} (uid {other_user.uid}), not to you"),
            (open_base / "sub", f"lies in {open_base}, writable by other users (mode 0777) without the sticky bit"),
        ]
        for base, why in cases:
            proc = srt("apply", "-f", str(recipe), "-y", "--launcher", "local", "-o", str(base))
            assert proc.returncode != 0
            (line,) = proc.stderr.strip().splitlines()  # one clear line, with the fix
            assert line.startswith(f"srt-tui: error: output directory: {base}: {why}") and "(fix: " in line, line
        assert list(open_base.iterdir()) == []  # nothing made where others could rearrange it
    finally:
        subprocess.run(["rm", "-rf", str(open_base), str(theirs)], check=False)


def test_a_job_directory_of_another_user_is_never_run_nor_replaced(other_user: OtherUser, shared_dir: Path,  # noqa: F811
                                                                   tmp_path: Path) -> None:  # fmt: skip
    """In a sticky shared directory the other user creates `local-1`…`local-3` first, each with an sbatch.sh
    that would leave a marker: apply takes another id, their directories stay as they were, nothing of
    theirs runs; the launcher itself refuses a directory that is not this user's."""
    from srt_tui.core.owned import UnsafePath
    from srt_tui.slurm.local import LocalLauncher

    marker = Path("/tmp") / f"srt-marker-{os.getpid()}"
    for n in (1, 2, 3):
        planted = shared_dir / f"local-{n}"
        other_user.run("mkdir", "-p", str(planted / "logs"))
        other_user.run("sh", "-c", f"printf 'touch {marker}\\n' > '{planted}/sbatch.sh'")
    recipe = tmp_path / "quiet.yaml"
    recipe.write_text(QUIET_RECIPE)
    proc = srt("apply", "-f", str(recipe), "-y", "--json", "--launcher", "local", "-o", str(shared_dir))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    try:
        assert out["job_id"] == "local-4"
        job_dir = Path(out["job_dir"])
        assert job_dir.stat().st_uid == 0 and stat.S_IMODE(job_dir.stat().st_mode) == 0o700
        for n in (1, 2, 3):
            assert (shared_dir / f"local-{n}").stat().st_uid == other_user.uid
            assert (shared_dir / f"local-{n}" / "sbatch.sh").read_text() == f"touch {marker}\n"
        with pytest.raises(UnsafePath, match="belongs to srtother"):
            LocalLauncher().start("local-1", shared_dir / "local-1")
        time.sleep(0.5)
        assert not marker.exists()
    finally:
        srt("cancel", out["job_id"])
        marker.unlink(missing_ok=True)


BOARD = """import sys
from srt_tui.mock.loadboard import board_dir
print(board_dir())
"""


def test_a_load_board_planted_with_links_is_not_used(other_user: OtherUser, shared_dir: Path,  # noqa: F811
                                                     tmp_path: Path) -> None:  # fmt: skip
    victim = tmp_path / "precious.txt"
    victim.write_text("mine\n")
    board = shared_dir / f"srt-tui-mock-load-{os.geteuid()}"
    other_user.run("mkdir", "-p", "-m", "0777", str(board / "local-7"))
    for name in ("127.0.0.1_30001.json", ".127.0.0.1_30001.json.100.tmp"):
        other_user.run("ln", "-s", str(victim), str(board / "local-7" / name))
    env = dict(os.environ, TMPDIR=str(shared_dir), SRT_JOB_ID="local-7")
    env.pop("SLURM_JOB_ID", None)
    proc = subprocess.run([sys.executable, "-c", BOARD], env=env, capture_output=True, text=True, timeout=30)
    assert proc.stdout.strip() == "None"
    assert f"{board}: is not a private directory of this user: load board off" in proc.stderr.replace(
        f"srt-tui mock: {board} is", f"{board}: is"
    )
    assert victim.read_text() == "mine\n"
    # the board of this user's own (made 0700 by the worker): writes never follow a link planted in it
    from srt_tui.mock.loadboard import WorkerLoad, publish

    own = tmp_path / "board"
    own.mkdir(mode=0o700)
    (own / "127.0.0.1_30001.json").symlink_to(victim)
    publish(own, WorkerLoad("127.0.0.1", 30001, 100, None, 1, 0.5, 0.1, time.time()))
    assert victim.read_text() == "mine\n" and not (own / "127.0.0.1_30001.json").is_symlink()


def test_a_writable_index_is_refused_and_nobody_is_signalled(other_user: OtherUser, tmp_path: Path,  # noqa: F811
                                                             monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """A job index others can write would point `cancel` at anyone's processes: refused; and a launch record
    naming a pid that is now another process (same pid, other start time) is no job's."""
    from srt_tui.core.jobdir.contract import JobMeta, write_job_meta

    state = Path(os.environ["SRT_TUI_STATE_DIR"])
    sleeper = other_user.popen("sleep", "60")
    try:
        job_dir = tmp_path / "out" / "local-5"
        (job_dir / "logs").mkdir(parents=True)
        write_job_meta(job_dir, JobMeta("local-5", name="x", launcher="local"))
        (job_dir / "local.json").write_text(json.dumps({"pid": sleeper.pid, "start": 1, "started": 0}))
        state.mkdir(parents=True, exist_ok=True)
        index = state / "jobs.jsonl"
        index.write_text(json.dumps({"job_id": "local-5", "job_dir": str(job_dir)}) + "\n")
        index.chmod(0o600)
        # a reused pid (the record's start time is not the sleeper's): the job had ended, sleeper untouched
        proc = srt("cancel", "local-5")
        assert proc.returncode == 0 and "nothing to cancel" in proc.stdout
        assert sleeper.poll() is None
        for path, mode, what in ((index, 0o666, "state file"), (state, 0o777, "state directory")):
            path.chmod(mode)
            for command in (("status",), ("cancel", "local-5")):
                proc = srt(*command)
                assert proc.returncode != 0, (command, proc.stdout)
                assert proc.stderr.startswith(
                    f"srt-tui: error: {what}: {path}: is writable by other users (mode {mode:04o})"
                ), proc.stderr
            path.chmod(0o700 if path.is_dir() else 0o600)
        os.chown(index, other_user.uid, other_user.uid)
        proc = srt("status")
        assert f"{index}: belongs to {other_user.name}" in proc.stderr and proc.returncode != 0
        assert sleeper.poll() is None
    finally:
        sleeper.kill()
        sleeper.wait()


def test_under_umask_000_everything_srt_tui_makes_is_private(tmp_path: Path) -> None:
    recipe = tmp_path / "quiet.yaml"
    recipe.write_text(QUIET_RECIPE)
    state = Path(os.environ["SRT_TUI_STATE_DIR"])
    out = tmp_path / "fresh" / "out"
    proc = srt("apply", "-f", str(recipe), "-y", "--json", "--launcher", "local", "-o", str(out), umask=0)
    assert proc.returncode == 0, proc.stderr
    sub = json.loads(proc.stdout)
    try:
        job_dir = Path(sub["job_dir"])
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (job_dir / "endpoints.json").exists():
            time.sleep(0.2)
        made = [out, *out.rglob("*"), state, *state.rglob("*")]
        loose = {
            str(p): oct(stat.S_IMODE(p.lstat().st_mode))
            for p in made
            if not p.is_symlink() and p.lstat().st_mode & 0o077
        }
        assert loose == {}
        assert (tmp_path / "fresh").stat().st_mode & 0o777 == 0o700  # made parents too
    finally:
        srt("cancel", sub["job_id"])


def test_mock_control_routes_are_served_only_when_a_test_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    """/mock/fail, /mock/delay, /mock/health and /mock/load let anyone who reaches a node fail or stall a worker:
    a job's mock workers serve them only under SRT_MOCK_CONTROL=1 (set by the test suite)."""
    from srt_tui.mock.config import WorkerConfig
    from srt_tui.mock.routes import MockApp
    from srt_tui.mock.state import WorkerState

    control = {"/mock/fail", "/mock/delay", "/mock/health", "/mock/load"}
    monkeypatch.delenv("SRT_MOCK_CONTROL", raising=False)
    assert not control & set(MockApp(WorkerConfig(port=1), WorkerState()).routes)
    monkeypatch.setenv("SRT_MOCK_CONTROL", "1")
    assert control <= set(MockApp(WorkerConfig(port=1), WorkerState()).routes)
