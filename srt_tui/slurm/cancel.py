"""Cancel a job the one way both faces do it: the local launcher for local jobs, else Slurm."""

from __future__ import annotations

import contextlib
import getpass
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from srt_tui.core.jobdir.contract import CANCEL_FILE, JOB_FILE, CancelDoc, JobDirError, read_job_meta, write_cancel
from srt_tui.core.jobdir.events import read_events
from srt_tui.core.owned import UnsafePath, check_dir
from srt_tui.slurm.client import UNKNOWN_STATE, JobState, SlurmClient
from srt_tui.slurm.identity import foreign_in_dir
from srt_tui.slurm.local import LocalLauncher, is_local_job

#: a job Slurm is already stopping (a second `cancel` right after the first found it so: it said "cancelled" again)
ENDING_STATES = frozenset({"COMPLETING"})


@dataclass(frozen=True)
class CancelOutcome:
    """What a cancel did: `cancelled`, or nothing because the job had ended or Slurm does not know it."""

    job_id: str
    cancelled: bool
    state: str = ""
    #: why nothing was cancelled though Slurm runs a job under this id: it is another job (`slurm.identity`)
    refused: str = ""
    #: a local job of which no process is recorded: what its events say of its end ("" when they say nothing)
    #: (not Slurm's: "Slurm does not know this job" was untrue of it)
    local_gone: str | None = None

    @property
    def known(self) -> bool:
        """False when Slurm has no record of the job (a mistyped id, or one purged long after it ended); a local
        job with a directory but no process recorded is known: it ended, or never started."""
        return self.cancelled or self.state != UNKNOWN_STATE or self.local_gone is not None

    @property
    def ended(self) -> bool:
        """Nothing cancelled because the job had already ended or is ending: what `cancel` asked for holds."""
        return not self.cancelled and not self.refused and self.known

    def describe(self) -> str:
        """One line for the operator."""
        if self.cancelled:
            return f"cancelled {self.job_id}"
        if self.refused:
            return f"{self.job_id}: not cancelled: {self.refused}"
        if self.local_gone is not None:
            return (
                f"{self.job_id}: nothing running ({self.local_gone or 'it ended, or never started'}): nothing to cancel"
            )
        if not self.known:
            return f"{self.job_id}: Slurm does not know this job (ended long ago, or a mistyped id): nothing to cancel"
        if self.state in ENDING_STATES:
            return f"{self.job_id} is already ending ({self.state}): nothing to cancel"
        return f"{self.job_id} already ended ({self.state}): nothing to cancel"


#: what cancels a job from the command line, as the job's end names it (`cancelled with srt-tui cancel at 12:03 UTC`)
BY_CLI = "srt-tui cancel"


def cancel_job(
    job_id: str,
    job_dir: Path,
    transport: str | None = None,
    client: SlurmClient | None = None,
    by: str = BY_CLI,
) -> CancelOutcome:
    """Stop a job and every step of it (SlurmUnavailable when Slurm cannot be reached); ``client``: one
    already reached (cancelling a sweep's members pings Slurm once, not once per member); ``by``: what cancels
    it, recorded in the job directory (`record_cancel`) before the job is signalled.

    Slurm's `scancel` exits 0 for an unknown or finished job, so the state is asked first: the
    operator is told when there was nothing to cancel instead of reading "cancelled".
    """
    if is_local_job(job_id):
        launcher = LocalLauncher()
        local = launcher.state(job_id, job_dir)
        if not local.is_known:  # no process recorded: not Slurm's to know of, it simply runs no more
            return CancelOutcome(job_id, False, local.state, local_gone=_local_end(job_dir))
        if local.is_terminal:  # `cancel` twice: "already ended (CANCELLED)", not "cancelled"
            return CancelOutcome(job_id, False, local.state)
        with _recorded(job_id, job_dir, by):
            launcher.cancel(job_id, job_dir)
        return CancelOutcome(job_id, True, local.state)
    from srt_tui.slurm.select import get_client

    client = client or get_client(transport)
    state = client.query([job_id]).get(job_id, JobState.unknown(job_id))
    if state.is_terminal or not state.is_known or state.state in ENDING_STATES:
        return CancelOutcome(job_id, False, state.state)
    if foreign := foreign_in_dir(state, job_dir):  # never scancel someone else's job that has the same number
        return CancelOutcome(job_id, False, state.state, refused=foreign)
    with _recorded(job_id, job_dir, by):
        if state.state == "RUNNING":
            final_scrape(job_dir)
        client.cancel(job_id)
    return CancelOutcome(job_id, True, state.state)


def _local_end(job_dir: Path) -> str:
    """What a local job's last event says of its end (`it ended; last event: failed at 2026-12-07 12:03:00 UTC`),
    "" when it has none."""
    events = read_events(job_dir) if job_dir != Path() else []
    if not events:
        return ""
    last = events[-1]
    when = last.time.replace("T", " ").removesuffix("Z").split(".")[0]
    return f"it ended; last event: {last.stage}" + (f" at {when} UTC" if when else "")


@contextlib.contextmanager
def _recorded(job_id: str, job_dir: Path, by: str) -> Iterator[None]:
    """`record_cancel` before the job is signalled, removed again when signalling it failed (the job runs on)."""
    recorded = record_cancel(job_id, job_dir, by)
    try:
        yield
    except BaseException:
        if recorded:
            with contextlib.suppress(OSError):
                (job_dir / CANCEL_FILE).unlink()
        raise


def record_cancel(job_id: str, job_dir: Path, by: str) -> bool:
    """Leave `cancel.json` (by what, when, who) in the job's own directory, so its end reads `cancelled with
    srt-tui cancel at 12:03 UTC` rather than the job's guess (`stopped by a signal (scancel, srt-tui cancel or
    time limit)`): written before the job is signalled, so the launch script's trap finds it too. Only in a
    directory of the user's own whose job.json names this job (a Slurm job launched elsewhere has none, and the
    working directory may be another job's); False when nothing was written, and the cancel goes on."""
    if job_dir == Path():
        return False
    try:
        check_dir(job_dir, "job directory")
        if read_job_meta(job_dir).job_id != job_id:
            return False
        at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        write_cancel(job_dir, CancelDoc(by, at, getpass.getuser(), socket.gethostname()))
    except (OSError, UnsafePath, JobDirError):
        return False
    return True


#: the launch script's loop relays at once while this file exists, then removes it (runtime.sh srt_maybe_relay)
FINAL_REQUEST = "relay/final.request"


def final_scrape(job_dir: Path, timeout: float = 4.0) -> bool:
    """Ask the running job to scrape its workers' and router's counters into relay/ now and wait until it has
    (True), at most ``timeout`` s: scancel stops the workers together with the script, so afterwards there
    is nothing left to scrape. A job that does not answer in time is cancelled all the same."""
    request = job_dir / FINAL_REQUEST
    if not request.parent.is_dir() or not (job_dir / JOB_FILE).is_file():
        return False  # not serving yet (no counters to keep), or no srt-tui job directory
    try:
        request.write_text("", encoding="utf-8")
    except OSError:
        return False
    deadline = time.monotonic() + timeout
    while request.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    if request.exists():
        with contextlib.suppress(OSError):
            request.unlink()
        return False
    return True
