"""The local launcher: runs a job's launch script on this machine without Slurm.

The script runs in its own session with `SRT_LAUNCHER=local`; each step becomes a local process
group bound to a per-node loopback address (127.0.0.11, .12, …), so a multi-node plan still gets
distinct addresses and ports. The job's state comes from its process groups and its `status.jsonl`.

Ids are claimed atomically in the user's 0700 state directory (`local/local-N/`, one `mkdir`), so they are
unique per user across output directories and parallel applies; the claim also keeps every process group
of the job as `pid start-time` lines, so `cancel` stops all of them, and only them, even after the launch
script died or the job directory was removed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import stat
import subprocess
import time
from pathlib import Path

from srt_tui.core.jobdir.bounded import read_bytes
from srt_tui.core.jobdir.events import append_event, read_events
from srt_tui.core.owned import (
    append_private,
    check_dir,
    check_file,
    private_dir,
    require_job_id,
    valid_job_id,
    write_private,
)
from srt_tui.slurm.client import JobState
from srt_tui.slurm.procs import ProcRecord, alive, group_members, parse_records, signal_group
from srt_tui.state.statefile import read_state, state_dir

LOCAL_PREFIX = "local-"
_FINAL = {"completed": "COMPLETED", "failed": "FAILED", "cancelled": "CANCELLED"}


def is_local_job(job_id: str) -> bool:
    """Local job ids look like `local-7`."""
    return job_id.startswith(LOCAL_PREFIX)


def _claims() -> Path:
    return private_dir(state_dir() / "local", "state directory")


def _number(name: str) -> int:
    tail = name[len(LOCAL_PREFIX) :]
    return int(tail) if name.startswith(LOCAL_PREFIX) and tail.isdigit() else 0


def claim_local_id(output_dir: Path) -> str:
    """A new `local-N`, unique for this user: claimed with one `mkdir` in the state directory (parallel
    applies never get the same one), above every id already claimed, indexed or present in ``output_dir``."""
    from srt_tui.state.jobindex import known_jobs

    claims = _claims()
    seen = [*os.listdir(claims), *known_jobs()]
    with contextlib.suppress(OSError):
        seen += os.listdir(output_dir)
    n = max((_number(x) for x in seen), default=0) + 1
    while True:
        job_id = f"{LOCAL_PREFIX}{n}"
        n += 1
        try:
            os.mkdir(claims / job_id, 0o700)
        except FileExistsError:
            continue  # another apply took it a moment ago
        if not os.path.lexists(output_dir / job_id):  # a directory of that name (anyone's) is never replaced
            return job_id


def next_local_id(output_dir: Path) -> str:
    """The next `local-N` id (claimed: see `claim_local_id`)."""
    return claim_local_id(output_dir)


def claim_dir(job_id: str) -> Path | None:
    """The state directory's record of a local job, None when there is none."""
    if not valid_job_id(job_id) or not is_local_job(job_id):
        return None
    path = state_dir() / "local" / job_id
    try:
        check_dir(path, "local job record")
    except (OSError, ValueError):
        return None
    return path


def recorded_job_dir(job_id: str) -> Path | None:
    """Where a local job was started, from its record (its directory may be gone since)."""
    claim = claim_dir(job_id)
    text = read_state(claim / "job_dir").strip() if claim is not None else ""
    return Path(text) if text.startswith("/") else None


def local_net(job_dir: Path) -> str:
    """A loopback /24 of its own per job (`127.X.Y`), so concurrent local jobs never share ports."""
    digest = hashlib.sha256(str(job_dir.resolve()).encode()).digest()
    return f"127.{1 + digest[0] % 254}.{digest[1]}"


def _last_stage(job_dir: Path) -> str | None:
    try:
        events = read_events(job_dir)
    except OSError:
        return None
    return events[-1].stage if events else None


def _open_script(job_dir: Path) -> int:
    """The checked job directory's sbatch.sh, opened without following links: what is checked is what runs
    (UnsafePath when the directory or the script is a link, another user's, or writable by others)."""
    check_dir(job_dir, "job directory")
    check_file(job_dir / "sbatch.sh", "launch script")
    fd = os.open(job_dir / "sbatch.sh", os.O_RDONLY | os.O_NOFOLLOW)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
        os.close(fd)
        check_file(job_dir / "sbatch.sh", "launch script")  # says why
        raise OSError(f"{job_dir / 'sbatch.sh'} changed while it was checked")
    return fd


class LocalLauncher:
    """Runs launch scripts as local process groups; mirrors the SlurmClient calls it needs."""

    name = "local"
    supports_json = False
    in_process = True
    last_error: str | None = None

    def start(self, job_id: str, job_dir: Path) -> int:
        """Start `job_dir/sbatch.sh` detached (re-checked first, and run from the descriptor that was
        checked); returns the script's pid (also its process group), recorded with its start time."""
        require_job_id(job_id, "local launcher")
        claim = claim_dir(job_id) or private_dir(_claims() / job_id, "local job record")
        fd = _open_script(job_dir)
        env = dict(
            os.environ,
            SRT_LAUNCHER="local",
            SRT_JOB_ID=job_id,
            SRT_JOB_DIR=str(job_dir),
            SRT_LOCAL_NET=local_net(job_dir),
            SRT_LOCAL_PROCS=str(claim / "procs"),
        )
        try:
            if not (claim / "job_dir").exists():
                append_private(claim / "job_dir", f"{job_dir}\n", "local job record")
            log_fd = os.open(
                job_dir / "logs" / "launch.log", os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600
            )
            try:
                proc = subprocess.Popen(
                    ["bash", f"/dev/fd/{fd}"],
                    cwd=job_dir,
                    env=env,
                    stdout=log_fd,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,
                    pass_fds=(fd,),
                )
            finally:
                os.close(log_fd)
        finally:
            os.close(fd)
        rec = ProcRecord.of(proc.pid) or ProcRecord(proc.pid, 0)
        append_private(claim / "procs", rec.line(), "local job record")
        doc = {"pid": proc.pid, "start": rec.start, "started": time.time()}
        write_private(job_dir / "local.json", json.dumps(doc) + "\n")
        return proc.pid

    def _records(self, job_id: str, job_dir: Path) -> list[ProcRecord]:
        """The job's process groups, script first: from the state directory's record when it is this job's
        (same directory, or the directory is gone), else from the job directory (pid with start time only)."""
        claim = claim_dir(job_id)
        if claim is not None:
            where = recorded_job_dir(job_id)
            if where is not None and (where == job_dir or not (job_dir / "local.json").exists()):
                return parse_records(read_state(claim / "procs"))
        try:
            doc = json.loads(read_bytes(job_dir / "local.json", "local"))
            recs = [ProcRecord(int(doc["pid"]), int(doc["start"]))]
        except (OSError, ValueError, KeyError, TypeError):
            return []
        with contextlib.suppress(OSError):
            recs += parse_records(read_bytes(job_dir / ".local-pids", "local").decode("utf-8", "replace"))
        return recs

    def state(self, job_id: str, job_dir: Path) -> JobState:
        """RUNNING while the script or any step of it lives; afterwards the final stage it wrote (or FAILED)."""
        recs = self._records(job_id, job_dir)
        if not recs:
            return JobState.unknown(job_id)
        script_alive = alive(recs[0])
        stage = None if script_alive else _last_stage(job_dir)
        # a script that ended through its trap (a final stage written) stopped its steps; one killed without
        # it may have left them serving: only then are the recorded groups looked for
        orphaned = not script_alive and stage not in _FINAL and any(group_members(r) for r in recs[1:])
        if script_alive or orphaned:
            return JobState(
                job_id=job_id,
                name=job_dir.name,
                state="RUNNING",
                reason="" if script_alive else "the launch script is gone; steps still run (srt-tui cancel stops them)",
                nodes=("localhost",),
                node_count=1,
                work_dir=str(job_dir),
            )
        return JobState(
            job_id=job_id,
            name=job_dir.name,
            state=_FINAL.get(stage or "", "FAILED"),
            reason="" if stage in _FINAL else "launch script ended without a final stage",
            work_dir=str(job_dir),
        )

    def cancel(self, job_id: str, job_dir: Path, timeout: float = 15.0, cleanup: float = 30.0) -> None:
        """SIGTERM the script's process group (its trap stops every step), then SIGKILL every recorded group
        that is still the job's (checked by start time: a reused pid is never signalled). A script that has
        written its final stage is cleaning up (the final scrape, its steps stopping): it gets `cleanup`
        seconds more before the kill, so a busy machine does not lose the job's `cancelled` and counters. A script
        killed before its trap wrote a final stage gets its `cancelled` here (it read `failed`: no final stage)."""
        recs = self._records(job_id, job_dir)
        if not recs:
            return
        script = recs[0]
        orphaned = not alive(script) and any(group_members(r) for r in recs[1:])
        signal_group(script, signal.SIGTERM)
        start = time.monotonic()
        while alive(script):
            waited = time.monotonic() - start
            if waited >= timeout + cleanup or (waited >= timeout and _last_stage(job_dir) not in _FINAL):
                break
            time.sleep(0.1)
        killed = alive(script)
        for rec in self._records(job_id, job_dir):  # read again: steps started while it stopped
            signal_group(rec, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(group_members(r) for r in recs):
            time.sleep(0.1)
        if (killed or orphaned) and _last_stage(job_dir) not in _FINAL:  # its trap never ran: cancelled all the same
            why = (
                f"still running {timeout:g} s after SIGTERM" if killed else "its launch script had gone, its steps not"
            )
            with contextlib.suppress(OSError):
                append_event(job_dir, "cancelled", f"stopped by srt-tui cancel: {why}")
