"""Processes named by pid *and* start time, so a pid the kernel reused for someone else is never signalled."""

from __future__ import annotations

import contextlib
import os
import signal
from dataclasses import dataclass
from pathlib import Path


def _stat_fields(pid: int) -> list[str] | None:
    """/proc/<pid>/stat after the command name (which may hold spaces and parentheses): field 3 onwards."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    _, sep, rest = raw.rpartition(") ")
    return rest.split() if sep else None


def start_time(pid: int) -> int | None:
    """The process's start time (clock ticks after boot, /proc/<pid>/stat field 22), None when it is gone."""
    fields = _stat_fields(pid)
    try:
        return int(fields[19]) if fields else None
    except (IndexError, ValueError):
        return None


@dataclass(frozen=True)
class ProcRecord:
    """A process (or the group/session it leads) as recorded when it started."""

    pid: int
    start: int

    @classmethod
    def of(cls, pid: int) -> ProcRecord | None:
        """The record of a live process, None when it is gone."""
        start = start_time(pid)
        return None if start is None else cls(pid, start)

    def line(self) -> str:
        """`pid start` as kept in the state directory."""
        return f"{self.pid} {self.start}\n"


def parse_records(text: str) -> list[ProcRecord]:
    """`pid start` lines; anything else (a pid without a start time included) is no record."""
    out = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and all(p.isdigit() for p in parts) and int(parts[0]) > 1:
            out.append(ProcRecord(int(parts[0]), int(parts[1])))
    return out


def alive(rec: ProcRecord) -> bool:
    """The recorded process still runs (same pid, same start time, not a zombie)."""
    fields = _stat_fields(rec.pid)
    return bool(fields) and fields[0] != "Z" and start_time(rec.pid) == rec.start  # type: ignore[index]


def group_members(rec: ProcRecord) -> list[int]:
    """Live processes of the group ``rec`` led, started no earlier than it: its leader may be gone while its
    children serve on (a pid stays reserved while a group of that id exists, so the id cannot be anyone
    else's while members remain; the leader's own pid is checked by start time)."""
    leader = start_time(rec.pid)
    if leader is not None and leader != rec.start:
        return []  # the pid is someone else's now: the group it led is gone
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = _stat_fields(int(entry))
        try:
            if fields and int(fields[2]) == rec.pid and fields[0] != "Z" and int(fields[19]) >= rec.start:
                out.append(int(entry))
        except (IndexError, ValueError):
            continue
    return out


def signal_group(rec: ProcRecord, sig: signal.Signals) -> bool:
    """Send ``sig`` to the group ``rec`` led, only while it is still that group; True when sent."""
    if not group_members(rec):
        return False
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(rec.pid, sig)
        return True
    return False
