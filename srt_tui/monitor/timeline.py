"""A job's events in time order: its stages (`status.jsonl`: srt-tui's submission, then the launch script's)
and each worker's health changes as the Monitor saw them, one list for the Events view and `srt-tui events`
(k9s shows a pod's events under `describe`; an operator asked for the job's story in one place)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from srt_tui.core.isotime import parse_time
from srt_tui.core.jobdir.contract import CancelDoc, JobDirError, read_cancel, read_plan
from srt_tui.core.jobdir.events import Event, read_events
from srt_tui.monitor.cells import duration, health_words
from srt_tui.monitor.model import FINAL_STAGES, WorkerStatus

#: stages and healths read as trouble (drawn in the fault's colour)
BAD = frozenset({"failed", "down", "hung", "unhealthy", "unreachable"})
#: the launch script's events are the job's own: named so in the WHO column
JOB = "job"
#: the job's stages its own health-check loop writes (`srt_wait_workers`, `srt_wait_router`): once an interval
CHECKED = frozenset({"workers healthy", "router ready"})


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


@dataclass(frozen=True)
class Story:
    """What the timeline reads from a job directory: its `status.jsonl` events, its `cancel.json`, and how often its
    launch script asks the workers and the router (`plan.json`'s health check; None when unknown)."""

    events: list[Event]
    cancel: CancelDoc | None
    check_every_s: float | None = None


def read_story(job_dir: Path) -> Story:
    """The job's events and its cancel record (bounded reads; a cancel.json that cannot be read is left out here,
    the job view names it)."""
    try:
        cancel = read_cancel(job_dir)
    except JobDirError:
        cancel = None
    try:
        every: float | None = read_plan(job_dir).health_check.interval_seconds or None
    except JobDirError:
        every = None
    return Story(read_events(job_dir), cancel, every)


def _checked_note(entry: TimelineEntry, every: float | None, workers: Sequence[WorkerStatus]) -> TimelineEntry:
    """A readiness the job's health-check loop wrote (`workers healthy` N/N, `router ready`) says that the loop asks
    once every ``every`` s (srtctl's interval, kept for parity), so it may come up to that long after the fact; a
    `workers healthy` N/N also says how long before it this Monitor saw all N healthy."""
    count, _, total = entry.detail.partition("/")
    if entry.who != JOB or entry.what not in CHECKED or every is None:
        return entry
    if entry.what == "workers healthy" and count != total:
        return entry  # a count on the way up: what the check found, not a readiness it reports late
    seen: datetime | None = None
    if entry.what == "workers healthy" and workers and entry.at is not None:
        since = [_healthy_since(w, entry.at) for w in workers]
        seen = max(t for t in since if t is not None) if all(since) else None
    note = f"the job checks every {every:g} s"
    if seen is not None and entry.at is not None and (entry.at - seen).total_seconds() >= 1:
        note = f"the Monitor saw all healthy {duration((entry.at - seen).total_seconds())} earlier; {note}"
    return TimelineEntry(entry.at, entry.who, entry.what, f"{entry.detail} ({note})" if entry.detail else note)


def _healthy_since(worker: WorkerStatus, at: datetime) -> datetime | None:
    """When the Monitor last saw ``worker`` turn healthy at or before ``at``, if it was healthy then."""
    since: datetime | None = None
    for change in worker.health_history:
        when = parse_time(change.at)
        if when is None or when > at:
            break
        since = when if change.health == "healthy" else None
    return since


def timeline(
    events: Sequence[Event],
    workers: Sequence[WorkerStatus] = (),
    cancel: CancelDoc | None = None,
    stopped: frozenset[str] = frozenset(),
    check_every_s: float | None = None,
) -> list[TimelineEntry]:
    """Everything known to have happened to a job, oldest first: the stages in its `status.jsonl` (from
    `submitted`, which srt-tui writes, on), its end by ``cancel`` (its `cancel.json`) when no stage says it ended,
    and the health changes of `workers` (as a Monitor saw them; those ``stopped`` with the ended job, seen down for
    that, `ended  with the job`, as their detail says: `cells.health_words`).

    A Slurm job cancelled in the queue never ran its launch script, whose trap writes the `cancelled` stage: its
    story ends with the cancel srt-tui recorded, and its workers, which never started, get no rows (they would
    read `down   the job has ended`).

    Within one second the stages come first: a health change is stamped with its refresh's whole second, so it
    cannot say it came before a stage of that second, and the stage is what explains it (`job starting`, then
    `prefill_0 unknown`; `job failed`, then the worker `down`), where sorting on the stamp put every health row
    first.

    With ``check_every_s`` (`Story.check_every_s`), a readiness the job's health-check loop wrote says how often
    it asks, and a `workers healthy` N/N how long before it the Monitor saw them all healthy (`_checked_note`)."""
    stages = [
        _checked_note(TimelineEntry(parse_time(e.time), JOB, e.stage, e.detail), check_every_s, workers) for e in events
    ]
    if cancel is not None and not any(s.what in FINAL_STAGES for s in stages):
        stages.append(TimelineEntry(parse_time(cancel.at), JOB, "cancelled", cancel.words()))
    if _never_started(stages):
        workers = ()
    healths = [
        TimelineEntry(parse_time(c.at), w.name, *health_words(c.health, c.detail, w.name in stopped))
        for w in workers
        for c in w.health_history
    ]
    # by time, stably; an event that does not say when stays after the one before it in the list
    keyed: list[tuple[bool, datetime, bool, datetime, int, TimelineEntry]] = []
    last: datetime | None = None
    for i, entry in enumerate([*stages, *healths]):
        last = entry.at or last
        at = last or datetime.min.replace(tzinfo=timezone.utc)
        keyed.append((last is not None, at.replace(microsecond=0), i >= len(stages), at, i, entry))
    return [entry for *_, entry in sorted(keyed, key=lambda k: k[:5])]


def _never_started(stages: Sequence[TimelineEntry]) -> bool:
    """The job ended before its launch script said anything: no stage but srt-tui's `submitted` and an end."""
    said = [s.what for s in stages if s.what != "submitted"]
    return bool(said) and all(what in FINAL_STAGES for what in said)


def started(entries: Sequence[TimelineEntry]) -> datetime | None:
    """When the story starts: its first known time (the submission)."""
    return next((e.at for e in entries if e.at is not None), None)


def offset(entry: TimelineEntry, start: datetime | None) -> str:
    """`+1m02s` since `start`, '' when either time is unknown."""
    if entry.at is None or start is None:
        return ""
    return "+" + duration(max(0.0, (entry.at - start).total_seconds()))
