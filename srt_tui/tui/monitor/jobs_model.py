"""The jobs table as data: which columns fit, each job's cells, the `/` filter and the sort orders."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from srt_tui.core.text.words import best_named, matches_words
from srt_tui.monitor import cells
from srt_tui.monitor.model import READY_STAGES, STAGE_SHORT, JobSnapshot, starts_in_s
from srt_tui.monitor.statuses.history import RATE_WINDOW_S
from srt_tui.slurm.local import is_local_job
from srt_tui.tui.monitor import sweep_rows
from srt_tui.widgets.fit_columns import FitColumn, Fitted, fit, natural_widths, widen

#: every column, most important first by `priority` (0 always shown); widths follow the values, capped; each says
#: what its header means (Help's column legend is read from here)
COLUMNS: tuple[FitColumn, ...] = (
    FitColumn("status", " ", 0, 1, "● serving · ▲ degraded (a worker, the router or a data source is not well: the "
              "job view and the line under the list say which) · ✗ failed · ○ ended · … queued or starting"),
    FitColumn("job", "JOB", 0, 16, "the job's id: Slurm's, or local-N for a job the local launcher runs"),
    FitColumn("name", "NAME", 1, 16, "the recipe's name (┌ ├ └ join the jobs of one sweep)"),
    FitColumn("profile", "PROFILE", 8, 14, "the cluster profile it was submitted with"),
    FitColumn("topology", "TOPO", 6, 8, "topology: prefill and decode workers (1P2D) or aggregated ones (agg2)"),
    # the launcher's state: Slurm's, or `local RUNNING` (narrow: `RUNNING`)
    FitColumn("slurm", "STATE", 2, 16, "the scheduler's state: Slurm's (PENDING, RUNNING, COMPLETED, …), or "
              "`local RUNNING` for a job the local launcher runs"),
    FitColumn("stage", "STAGE", 1, 18, "where the job is: pending, workers starting, router ready, serving, "
              "benchmark (its step and requests done), completed, failed …; queued: Slurm's reason and its estimate "
              "of the start (`est. ~10m`: Slurm revises it as jobs end); ⚠ a job file cannot be read (the line under "
              "the list says which)"),
    FitColumn("healthy", "HEALTHY", 2, 16, "workers answering their health check, of all, per role: P prefill, "
              "D decode, A aggregated (P1/1 D2/2); - before they exist and once the job ended"),
    FitColumn("router", "ROUTER", 7, 12, "workers the router has registered, of all, per role; down, ? (no "
              "answer yet), up (it does not list them), direct (no router)"),
    FitColumn("rate", "REQ/S", 3, 6, f"requests per second through the job, over the last {RATE_WINDOW_S:g} s"),
    FitColumn("errors", "ERR", 5, 6, "failed requests: the router's count, else its workers' (once ended, the "
              "last seen; the benchmark's own are its view's and Results')"),
    FitColumn("elapsed", "ELAPSED", 4, 12, "how long it has run (until it ended); while queued (STATE PENDING), "
              "how long it has waited: `queued 2m10s`, or `q 2m10s` where the column is narrower"),
)  # fmt: skip
#: from this priority on a column leaves before names and stages are shortened
LEAVES_FIRST = 6
#: when the row is still too wide: shorter names and stages, `P1/1 D2/2` without spaces
NARROW_CAPS = {"name": 12, "stage": 11}
#: the widest a queued job's STAGE is said, its reason and Slurm's estimate (`Resources, est. ~3h59m`), wider than
#: the other stages' cap: the column widens to it with the width left over (else the estimate alone, `Slurm est.
#: ~10m`: the reason is in the job view)
WAIT_CAP = 22
SORTS = ("submitted", "job", "name", "slurm", "stage", "rate", "errors", "elapsed")
#: the stage and state of a job listed before its first refresh answered: its files and Slurm's state are being read
READING = "reading…"
NOT_ASKED = "…"
#: the table's vertical scrollbar
SCROLLBAR = 2


def listed_row(job_id: str, job_dir: Path) -> JobSnapshot:
    """A job of the job index before the Monitor's first answer (the Slurm query and the job's files, 3-7 s under
    load: the list was empty meanwhile, saying `No jobs yet`): its id, its state and stage `…`/`reading…` until then."""
    launcher = "local" if is_local_job(job_id) else "slurm"
    return JobSnapshot(
        job_id=job_id, job_dir=str(job_dir), name="", profile="", topology="", launcher=launcher,
        slurm_state=NOT_ASKED, slurm_reason="", stage=READING, stage_time="", stage_detail="",
    )  # fmt: skip


def is_listed(snap: JobSnapshot) -> bool:
    """Whether ``snap`` is a `listed_row`: a job listed before any refresh read it (no file, no source)."""
    return snap.stage == READING and not snap.stage_time and not snap.sources and not snap.name


def reading_line(jobs: Mapping[str, Path]) -> str:
    """What the first refresh reads of ``jobs`` (the line under the list says it until it answers)."""
    slurm = any(not is_local_job(j) for j in jobs)
    return "reading their job files and Slurm's states…" if slurm else "reading their job files…"


def _labelled(sort: str, reverse: bool, caps: dict[str, int]) -> list[FitColumn]:
    """The columns with the sort arrow in the sorted one's header (so it is counted in its width)."""
    arrow = " ↓" if reverse else " ↑"
    return [replace(c, header=c.header + (arrow if c.key == sort else ""), cap=caps.get(c.key, c.cap)) for c in COLUMNS]


def columns(
    width: int, snaps: Sequence[JobSnapshot] = (), now: datetime | None = None, sort: str = "", reverse: bool = False
) -> tuple[tuple[Fitted, ...], bool]:
    """The columns that fit a view ``width`` wide for these rows, and whether cells are compact: each column as wide
    as its values' shorter wordings (`_shorter`), the least important columns leaving first (profile, router,
    topology), then names and stages shorten, then more columns leave; a header is never cut. The width left over
    goes to the columns cut or shortened, the most important first (`widen`): NAME, what an operator reads first,
    then STAGE's reason, STATE's launcher, ELAPSED's `queued`; a longer wording never pushes a column out."""
    room = width - SCROLLBAR
    keys = [c.key for c in COLUMNS]
    when = now or datetime.now()
    marks = sweep_rows.tree_marks(sweep_rows.group_rows(list(snaps)))
    for compact in (False, True):
        labelled = _labelled(sort, reverse, NARROW_CAPS if compact else {})
        rows = [_marked({k: cell(s, k, when, compact) for k in keys}, marks.get(s.job_id, "")) for s in snaps]
        shorter = [_shorter(s, r, when, compact) for s, r in zip(snaps, rows)]
        fitted = fit(labelled, natural_widths(keys, shorter), room)
        kept = {f.key for f in fitted}
        if compact or all(c.key in kept for c in labelled if c.priority < LEAVES_FIRST):
            return widen(fitted, labelled, rows, room, WHOLE_WORDINGS), compact
    raise AssertionError("unreachable")


def _marked(row: dict[str, str], mark: str) -> dict[str, str]:
    """A row with its NAME as drawn: after the bracket that joins a sweep's members (`┌ `), which takes its width
    too (the column sized to the name alone cut every member's name by the bracket: `…_osl8` with room left)."""
    return {**row, "name": mark + row["name"]} if mark else row


#: the columns whose longer wording is shown whole or not at all (`local RUNNING` or `RUNNING`, `queued 7m30s` or
#: `q 7m30s`): a part of the difference would be blank cells
WHOLE_WORDINGS = frozenset({"slurm", "elapsed"})


def _shorter(snap: JobSnapshot, row: dict[str, str], now: datetime, compact: bool) -> dict[str, str]:
    """A row's cells in their shorter wordings, the width a column needs at least: STATE without the launcher where
    the job's id names it (`RUNNING` for `local-12`), a queued job's STAGE as Slurm's estimate alone (`Slurm est.
    ~10m`) and its ELAPSED as `q 7m30s`."""
    return {
        **row,
        "slurm": cells.state_cell(snap, short=True),
        "stage": wait_within(snap, now, _stage_cap(compact)) or row["stage"],
        "elapsed": cells.waited(snap, now) or row["elapsed"],
    }


def short_state(snaps: Sequence[JobSnapshot], now: datetime, compact: bool, width: int) -> bool:
    """Whether STATE, ``width`` wide, says every job's state without its launcher (`RUNNING` for `local-12`, whose
    id names it): when any job's longer wording does not fit, all of them (never `local RUNNING` above `RUNNING`)."""
    return any(len(cell(s, "slurm", now, compact)) > width for s in snaps)


def elapsed_within(snap: JobSnapshot, now: datetime, width: int) -> str:
    """A queued job's ELAPSED in a column narrower than `queued 2m10s`: `q 2m10s` (`queued` alone, before, dropped the
    figure; the figure alone read as a run time); "" for any other row, or when it fits."""
    return cells.waited(snap, now) if len(cells.elapsed(snap, now)) > width else ""


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


#: cells already worked out, per snapshot (by identity, kept beside them so an id is never reused while its entry
#: lives): a sort key or a cursor move redraws 64 rows twice (widths, then cells) from snapshots that did not
#: change. `retain` drops the snapshots a refresh replaced, so the memo holds one refresh's worth.
_MEMO: dict[int, tuple[JobSnapshot, dict[tuple[str, bool, int], str]]] = {}


def retain(snaps: Sequence[JobSnapshot]) -> None:
    """Keep the memo's cells of these snapshots only (the ones on screen)."""
    keep = {id(s) for s in snaps}
    for gone in [k for k in _MEMO if k not in keep]:
        del _MEMO[gone]


def cell(snap: JobSnapshot, key: str, now: datetime, narrow: bool = False) -> str:
    """The plain text of one cell."""
    entry = _MEMO.get(id(snap))
    if entry is None or entry[0] is not snap:
        entry = _MEMO[id(snap)] = (snap, {})
    texts = entry[1]
    # ELAPSED moves on by the second, and so does a queued job's STAGE while Slurm expects to start it
    timed = key == "elapsed" or (key == "stage" and snap.stage == "pending" and bool(snap.expected_start_at))
    which = (key, narrow, int(now.timestamp()) if timed else 0)
    text = texts.get(which)
    if text is None:
        if timed:  # the seconds before this one are not shown again
            for old in [k for k in texts if k[0] == key]:
                del texts[old]
        text = texts[which] = _cell(snap, key, now, narrow)
    return text


#: what a job listed before the first refresh (`listed_row`) shows: nothing else is known of it yet
LISTED_KEYS = ("status", "job", "slurm", "stage")


def _cell(snap: JobSnapshot, key: str, now: datetime, narrow: bool) -> str:
    if is_listed(snap) and key not in LISTED_KEYS:  # not `direct` nor `-`: not read yet
        return ""
    values: dict[str, Callable[[], str]] = {
        "status": lambda: {"ok": "●", "degraded": "▲", "failed": "✗", "ended": "○", "waiting": "…"}[status(snap)],
        "job": lambda: snap.job_id,
        "name": lambda: snap.name,
        "profile": lambda: snap.profile,
        "topology": lambda: snap.topology,
        "slurm": lambda: cells.state_cell(snap, short=narrow),  # narrow: `local-12`'s id names its launcher
        "stage": lambda: _stage(snap, narrow, now) + (" ⚠" if cells.files_problem(snap) else ""),
        "healthy": lambda: cells.healthy_cell(snap),  # `-` once the job ended
        "router": lambda: cells.registrations_cell(snap),  # `-` queued or ended
        "rate": lambda: cells.rate(snap.rate_per_s),
        "errors": lambda: cells.number(snap.served_errors),
        "elapsed": lambda: cells.elapsed(snap, now),
    }
    return values[key]()


def _stage(snap: JobSnapshot, narrow: bool, now: datetime) -> str:
    """The stage cell; a running benchmark as `bench 2/3 10/40` (narrow: `2/3 10/40`), its ETA in the job view;
    narrow, a stage too long for the column in one word (`healthy 1/2`, `router`)."""
    b = snap.bench
    if b is None and snap.stage == "pending":
        return _waits(snap, narrow, now)
    if b is None:  # narrow and too long for the column (`workers he…` at 80 columns): the stage in one word
        stage = cells.stage_cell(snap, said=False)  # `degraded`: ▲ and HEALTHY's `D0/2` say the rest
        return cells.stage_cell(snap, short=True) if narrow and len(stage) > _stage_cap(narrow) else stage
    count = "warm-up" if b.phase == "warmup" else f"{b.done}/{b.total}"
    return ("" if narrow else "bench ") + f"{b.step}/{b.steps} {count}"


def wait_within(snap: JobSnapshot, now: datetime, width: int) -> str:
    """A queued job's STAGE in a column ``width`` wide (narrower than its reason and Slurm's estimate): the estimate
    alone, `Slurm est. ~10m` or `est. ~10m`; "" for any other row (its stage is cut at a word as usual)."""
    if snap.stage != "pending" or snap.bench is not None or starts_in_s(snap, now) is None:
        return ""
    return _waits(snap, False, now, width)


def _waits(snap: JobSnapshot, narrow: bool, now: datetime, width: int | None = None) -> str:
    """A queued job's wait (STATE beside it says PENDING: `pending (Resources)` was cut), `cells.queued_wait`: the
    reason and Slurm's estimate said as one, `Resources, est. ~10m` (`status` and the job view: `Slurm estimates start
    in ~10m`; `Resources, ~9m51s` read as a fact), else the estimate alone, `Slurm est. ~10m`, narrow (80 columns)
    `est. ~10m`; in ``width`` when given."""
    cap = width if width is not None else NARROW_CAPS["stage"] if narrow else WAIT_CAP
    return cells.queued_wait(snap, now, cap) or cells.stage_cell(snap)


def _stage_cap(narrow: bool) -> int:
    """The widest the STAGE column is drawn."""
    return NARROW_CAPS["stage"] if narrow else next(c.cap or 0 for c in COLUMNS if c.key == "stage")


def filter_text(snap: JobSnapshot) -> str:
    """What the `/` filter reads of a job: what names it and where it is, never a figure that moves on by itself (a
    filter `8` kept jobs whose ELAPSED read `18s`, which vanished seconds later, and hid a job just submitted): its
    id, name, sweep group and member, profile, engine, frontend, topology, its scheduler's state (and Slurm's reason
    while queued), its stage as a word (not a benchmark's counts, a health count or Slurm's estimate), `degraded`."""
    words = (
        snap.job_id, snap.name, snap.group, snap.group_member, snap.profile, snap.engine, snap.frontend,
        snap.topology, cells.state_cell(snap), snap.slurm_reason if snap.stage == "pending" else "",
        snap.stage, STAGE_SHORT.get(snap.stage, ""), "relayed" if snap.relayed else "",
        "degraded" if status(snap) == "degraded" else "",
    )  # fmt: skip
    return " ".join(w for w in words if w)


def matches(snap: JobSnapshot, query: str) -> bool:
    """k9s-style filter of `filter_text`: every word must appear in it (case-insensitive); `!word` must not."""
    return matches_words(filter_text(snap), query)


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
        # a number not known (`-`) sorts below every known one, 0 included: the `-` rows stay together
        if key == "rate":
            return (snap.rate_per_s is not None, snap.rate_per_s or 0.0, tie)
        if key == "errors":
            return (snap.served_errors is not None, snap.served_errors or 0.0, tie)
        if key == "elapsed":
            elapsed = snap.elapsed_s(now)
            return (elapsed is not None, elapsed or 0.0, tie)
        return (tie,)

    return by


def arrange(snaps: list[JobSnapshot], query: str, sort: str, reverse: bool, now: datetime) -> list[JobSnapshot]:
    """Filtered and sorted rows, a sweep's members together."""
    rows = [s for s in snaps if not query or matches(s, query)]
    return sweep_rows.group_rows(sorted(rows, key=sort_key(sort, now), reverse=reverse))


def best_match(rows: list[JobSnapshot], query: str) -> str | None:
    """The job of ``rows`` (the filter's, in the list's order) the cursor goes to as the filter is typed, and Enter
    opens: an exact job id or name first, then one that starts with the query, then one that holds it, the topmost
    of equals (`best_named`); None without a query or a row."""
    found = best_named([(s.job_id, s.name) for s in rows], query) if query.strip() else None
    return rows[found].job_id if found is not None else None
