"""The jobs table as data: which columns fit, each job's cells, the `/` filter and the sort orders."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from srt_tui.monitor import cells
from srt_tui.monitor.model import READY_STAGES, JobSnapshot
from srt_tui.tui.monitor import sweep_rows
from srt_tui.widgets.layout import is_wide


@dataclass(frozen=True)
class Column:
    """A jobs-table column: header, how to sort by it, and whether narrow terminals show it."""

    key: str
    header: str
    narrow: bool
    width: int | None = None


COLUMNS: tuple[Column, ...] = (
    Column("status", " ", True, 1),
    Column("job", "JOB", True),
    Column("name", "NAME", True, 16),
    Column("profile", "PROFILE", False),
    Column("topology", "TOPO", False),
    Column("slurm", "STATE", True),  # the launcher's state: Slurm's, or `local RUNNING`
    Column("stage", "STAGE", True, 16),
    Column("healthy", "HEALTHY", True),
    Column("router", "ROUTER", False),
    Column("rate", "REQ/S", True),
    Column("errors", "ERR", True),
    Column("elapsed", "ELAPSED", True),
)
#: narrow terminals: shorter names and stages, `P1/1 D2/2` without spaces
NARROW_WIDTHS = {"name": 12, "stage": 11}
SORTS = ("submitted", "job", "name", "slurm", "stage", "rate", "errors", "elapsed")


def columns(width: int) -> tuple[Column, ...]:
    """The columns that fit a terminal this wide."""
    if is_wide(width):
        return COLUMNS
    return tuple(Column(c.key, c.header, True, NARROW_WIDTHS.get(c.key, c.width)) for c in COLUMNS if c.narrow)


def status(snap: JobSnapshot) -> str:
    """`ok`, `degraded`, `failed`, `ended`, `waiting` — the row's status glyph and colour."""
    if snap.stage == "failed":
        return "failed"
    if snap.is_final:
        return "ended"
    if snap.degraded:
        return "degraded"
    if snap.stage in READY_STAGES:
        return "ok"
    return "waiting"


def cell(snap: JobSnapshot, key: str, now: datetime, narrow: bool = False) -> str:
    """The plain text of one cell."""
    values: dict[str, Callable[[], str]] = {
        "status": lambda: {"ok": "●", "degraded": "▲", "failed": "✗", "ended": "○", "waiting": "…"}[status(snap)],
        "job": lambda: snap.job_id,
        "name": lambda: snap.name,
        "profile": lambda: snap.profile,
        "topology": lambda: snap.topology,
        "slurm": lambda: cells.state_cell(snap),
        "stage": lambda: _stage(snap, narrow) + (" ⚠" if cells.files_problem(snap) else ""),
        "healthy": lambda: "-" if snap.is_final else cells.healthy_cell(snap, compact=narrow),
        "router": lambda: "-" if snap.is_final else cells.registered_cell(snap.router),
        "rate": lambda: cells.rate(snap.rate_per_s),
        "errors": lambda: cells.number(snap.errors),
        "elapsed": lambda: cells.elapsed(snap, now),
    }
    return values[key]()


def _stage(snap: JobSnapshot, narrow: bool) -> str:
    """The stage cell; a running benchmark as `bench 2/3 10/40` (narrow: `2/3 10/40`), its ETA in the job view."""
    b = snap.bench
    if b is None:
        return cells.stage_cell(snap)
    count = "warm-up" if b.phase == "warmup" else f"{b.done}/{b.total}"
    return ("" if narrow else "bench ") + f"{b.step}/{b.steps} {count}"


def matches(snap: JobSnapshot, query: str, now: datetime) -> bool:
    """k9s-style filter: every word must appear in the row (case-insensitive); `!word` must not."""
    text = " ".join(cell(snap, c.key, now) for c in COLUMNS).lower()
    text += f" {snap.profile} {snap.engine} {snap.group}".lower()
    for word in query.lower().split():
        if word.startswith("!") and len(word) > 1:
            if word[1:] in text:
                return False
        elif word not in text:
            return False
    return True


def _job_key(job_id: str) -> tuple[int, str]:
    digits = job_id.rsplit("-", 1)[-1]
    return (int(digits) if digits.isdigit() else -1, job_id)


def sort_key(key: str, now: datetime) -> Callable[[JobSnapshot], tuple[object, ...]]:
    """Sort key for one of SORTS (ties broken by job id)."""
    stage_order = {"failed": 0, "pending": 9}

    def by(snap: JobSnapshot) -> tuple[object, ...]:
        tie = _job_key(snap.job_id)
        if key == "submitted":
            return (snap.submitted_at, tie)
        if key == "name":
            return (snap.name.lower(), tie)
        if key == "slurm":
            return (snap.slurm_state, tie)
        if key == "stage":
            return (stage_order.get(snap.stage, 5), snap.stage, tie)
        if key == "rate":
            return (snap.rate_per_s or 0.0, tie)
        if key == "errors":
            return (snap.errors or 0.0, tie)
        if key == "elapsed":
            return (snap.elapsed_s(now) or 0.0, tie)
        return (tie,)

    return by


def arrange(snaps: list[JobSnapshot], query: str, sort: str, reverse: bool, now: datetime) -> list[JobSnapshot]:
    """Filtered and sorted rows, a sweep's members together."""
    rows = [s for s in snaps if not query or matches(s, query, now)]
    return sweep_rows.group_rows(sorted(rows, key=sort_key(sort, now), reverse=reverse))
