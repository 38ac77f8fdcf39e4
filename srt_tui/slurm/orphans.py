"""No held job left untracked: what an `apply` killed between `sbatch --hold` and release leaves is found.

Before `sbatch --hold`, apply writes a record (its pid and start time, the output base, the staged
directory, the time) into the user's 0700 state directory and removes it once the job is indexed and
released, or cancelled. The next srt-tui command that finds a record whose apply is gone adopts the held
job whose id was recorded (its staged directory becomes `<base>/<id>`, indexed: status shows it held,
cancel stops it), asks Slurm once for this user's jobs and cancels the held ones that apply submitted
(output to that base, submitted after the record was written) that nothing tracks, then removes the
record. Such a job never ran: its files stay where they are.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from srt_tui.core.paths import user_state_dir

if TYPE_CHECKING:
    from srt_tui.slurm.client import SlurmClient
    from srt_tui.slurm.procs import ProcRecord

# Every command (the TUI's first frame too) runs `settle`, which with no record is one directory listing: the
# modules that read and act on records are imported once there is one

#: seconds of clock skew allowed between this host and slurmctld when matching submit times
_SKEW_S = 5


def _records_dir() -> Path:
    from srt_tui.core.owned import private_dir
    from srt_tui.state.statefile import state_dir

    return private_dir(state_dir() / "submitting", "state directory")


@dataclass(frozen=True)
class Submitting:
    """One apply between writing its staged directory and indexing its released job."""

    path: Path
    proc: ProcRecord
    base: str
    staged: str
    since: float


def begin(base: Path, staged: Path) -> Path | None:
    """Record that this process is about to submit ``staged`` into ``base`` (None when the state directory
    cannot be written: the submission goes on, this guard is best effort)."""
    from srt_tui.core.owned import UnsafePath, write_private
    from srt_tui.slurm.procs import ProcRecord

    me = ProcRecord.of(os.getpid())
    if me is None:
        return None
    try:
        path = _records_dir() / f"{me.pid}-{me.start}-{time.time_ns()}.json"
        doc = {"pid": me.pid, "start": me.start, "base": str(base), "staged": str(staged), "since": time.time()}
        write_private(path, json.dumps(doc) + "\n")
    except (OSError, UnsafePath):
        return None
    return path


def end(record: Path | None) -> None:
    """The submission is settled (indexed and released, or cancelled): forget the record."""
    if record is not None:
        with contextlib.suppress(OSError):
            record.unlink()


def _pending() -> list[Submitting]:
    try:
        folder = user_state_dir() / "submitting"  # only looked at: a command that submits nothing makes nothing
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    if not names:
        return []
    from srt_tui.core.owned import UnsafePath
    from srt_tui.slurm.procs import ProcRecord
    from srt_tui.state.statefile import read_state

    out = []
    for name in names:
        path = folder / name
        try:
            doc = json.loads(read_state(path))
            proc = ProcRecord(int(doc["pid"]), int(doc["start"]))
            out.append(Submitting(path, proc, str(doc["base"]), str(doc["staged"]), float(doc["since"])))
        except (OSError, UnsafePath, ValueError, KeyError, TypeError):
            continue
    return out


def interrupted() -> list[Submitting]:
    """Records of applies that are gone: each may have left a held job."""
    pending = _pending()
    if not pending:
        return []
    from srt_tui.slurm.procs import alive

    return [s for s in pending if not alive(s.proc)]


def settle(client: SlurmClient | None = None, transport: str = "auto") -> list[str]:
    """Cancel the held jobs of interrupted applies; one line per job (or why it could not be done).

    Cheap when there is nothing to settle (a directory listing): every command runs it."""
    gone = interrupted()
    if not gone:
        return []
    import getpass

    from srt_tui.core.owned import valid_job_id
    from srt_tui.slurm.procs import alive

    busy = {s.base for s in _pending() if alive(s.proc)}  # a running apply's held job looks the same: wait
    todo = [s for s in gone if s.base not in busy]
    if not todo:
        return []
    from srt_tui.slurm.errors import SlurmError, SlurmUnavailable
    from srt_tui.slurm.select import get_client
    from srt_tui.state.jobindex import known_jobs, recover_interrupted

    # a staged directory whose id was recorded becomes <base>/<id> and is indexed: that held job is adopted
    notes: list[str] = recover_interrupted(list(dict.fromkeys(Path(s.base) for s in todo)))
    try:
        client = client or get_client(transport)
        mine = client.user_jobs(getpass.getuser())
    except (SlurmError, SlurmUnavailable) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return [
            *notes,
            f"an `apply` was killed while submitting; Slurm cannot be asked now ({first}): checked next time",
        ]
    tracked = known_jobs()
    for sub in todo:
        for job in mine:
            held = job.state == "PENDING" and "held" in job.reason.lower()
            in_base = job.work_dir == sub.base or job.stdout.startswith(sub.base.rstrip("/") + "/")
            recent = job.submit_time is None or job.submit_time >= sub.since - _SKEW_S
            if not (held and in_base and recent and valid_job_id(job.job_id)) or job.job_id in tracked:
                continue  # not that apply's, or adopted: indexed, so status shows it held and cancel stops it
            try:
                client.cancel(job.job_id)
                notes.append(
                    f"Slurm job {job.job_id} was held by an `apply` that was killed before releasing it: "
                    f"cancelled (it never ran; submit it again with `srt-tui apply`)"
                )
                _note_cancelled(Path(sub.base), job.job_id)
            except SlurmError as exc:
                notes.append(f"Slurm job {job.job_id}, held by a killed `apply`, could not be cancelled: {exc}")
                break
        else:
            end(sub.path)
    return notes


def _note_cancelled(base: Path, job_id: str) -> None:
    """Say so in the job's own status.jsonl when its directory got its id."""
    from srt_tui.core.jobdir.events import append_event

    job_dir = base / job_id
    if (job_dir / "job.json").is_file():
        with contextlib.suppress(OSError):
            append_event(job_dir, "cancelled", "its apply was killed before release; the held job was cancelled")
