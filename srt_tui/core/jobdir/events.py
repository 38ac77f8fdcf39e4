"""The job's lifecycle log `status.jsonl`: one JSON object per event (stage, time, detail).

The launch script appends events in bash; everything in Python writes and reads them here, so the
format has one owner.
"""

from __future__ import annotations

import json
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from srt_tui.core.jobdir.bounded import UnsafeFile, read_text

STATUS_FILE = "status.jsonl"


@dataclass(frozen=True)
class Event:
    """One line of `status.jsonl`."""

    stage: str
    time: str
    detail: str


def parse_event(line: str) -> Event | None:
    """An event from one line, or None for a blank, partial or foreign line."""
    try:
        rec = json.loads(line)
    except (ValueError, RecursionError):  # RecursionError: a line of ten thousand `[`
        return None
    if isinstance(rec, dict) and "stage" in rec:
        return Event(str(rec["stage"]), str(rec.get("time", "")), str(rec.get("detail", "")))
    return None


def read_events(job_dir: Path) -> list[Event]:
    """Every well-formed event of a job, in file order (empty when there is no log yet)."""
    try:
        lines = read_text(job_dir / STATUS_FILE, "status").splitlines()
    except OSError:  # missing, or refused by the bounded reader (a device, a pipe, too large)
        return []
    return [e for e in (parse_event(line) for line in lines) if e is not None]


def append_event(job_dir: Path, stage: str, detail: str) -> None:
    """Append one event, in the same shape the launch script writes."""
    line = json.dumps(
        {"stage": stage, "time": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()), "detail": detail}
    )
    # never through a link, never blocking on a pipe: a job directory may not be only ours
    fd = os.open(
        job_dir / STATUS_FILE,
        os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
        0o600,
    )
    with os.fdopen(fd, "a", encoding="utf-8") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnsafeFile(job_dir / STATUS_FILE, "is not a regular file: not appending to it")
        fh.write(line + "\n")
