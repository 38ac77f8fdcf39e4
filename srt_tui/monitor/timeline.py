"""A job's events in time order: its stages (`status.jsonl`: srt-tui's submission, then the launch script's)
and each worker's health changes as the Monitor saw them, one list for the Events view and `srt-tui events`
(k9s shows a pod's events under `describe`; an operator asked for the job's story in one place)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from srt_tui.core.isotime import parse_time
from srt_tui.core.jobdir.events import Event
from srt_tui.monitor.cells import duration
from srt_tui.monitor.model import WorkerStatus

#: stages and healths read as trouble (drawn in the fault's colour)
BAD = frozenset({"failed", "down", "unhealthy", "unreachable"})
#: the launch script's events are the job's own: named so in the WHO column
JOB = "job"


@dataclass(frozen=True)
class TimelineEntry:
    """One event: when (aware, None when it did not say), whose (`job` or a worker's name), what happened (a stage
    or a health), and its detail."""

    at: datetime | None
    who: str
    what: str
    detail: str = ""

    @property
    def bad(self) -> bool:
        """Whether it reads as trouble."""
        return self.what in BAD

    def json(self) -> dict[str, str]:
        """For `srt-tui events --json`: the time as ISO-8601 UTC ("" when unknown)."""
        at = self.at.isoformat().replace("+00:00", "Z") if self.at is not None else ""
        return {"at": at, "who": self.who, "what": self.what, "detail": self.detail}


def timeline(events: Sequence[Event], workers: Sequence[WorkerStatus] = ()) -> list[TimelineEntry]:
    """Everything known to have happened to a job, oldest first: the stages in its `status.jsonl` (from
    `submitted`, which srt-tui writes, on) and the health changes of `workers` (as a Monitor saw them).

    Within one second the stages come first: a health change is stamped with its refresh's whole second, so it
    cannot say it came before a stage of that second, and the stage is what explains it (`job starting`, then
    `prefill_0 unknown`; `job failed`, then the worker `down`), where sorting on the stamp put every health row
    first."""
    stages = [TimelineEntry(parse_time(e.time), JOB, e.stage, e.detail) for e in events]
    healths = [TimelineEntry(parse_time(c.at), w.name, c.health, c.detail) for w in workers for c in w.health_history]
    # by time, stably; an event that does not say when stays after the one before it in the list
    keyed: list[tuple[bool, datetime, bool, datetime, int, TimelineEntry]] = []
    last: datetime | None = None
    for i, entry in enumerate([*stages, *healths]):
        last = entry.at or last
        at = last or datetime.min.replace(tzinfo=timezone.utc)
        keyed.append((last is not None, at.replace(microsecond=0), i >= len(stages), at, i, entry))
    return [entry for *_, entry in sorted(keyed, key=lambda k: k[:5])]


def started(entries: Sequence[TimelineEntry]) -> datetime | None:
    """When the story starts: its first known time (the submission)."""
    return next((e.at for e in entries if e.at is not None), None)


def offset(entry: TimelineEntry, start: datetime | None) -> str:
    """`+1m02s` since `start`, '' when either time is unknown."""
    if entry.at is None or start is None:
        return ""
    return "+" + duration(max(0.0, (entry.at - start).total_seconds()))
