"""A sweep's jobs together in the Monitor's jobs table: its members follow the first of them in the chosen
order, in member order, their names joined by a bracket (`┌ ├ └`); the `/` filter finds them by group id."""

from __future__ import annotations

import re

from srt_tui.monitor.model import JobSnapshot

_INDEX = re.compile(r"\[(\d+)\]")


def member_index(snap: JobSnapshot) -> int:
    """The member's place in its sweep (`sweep[2]` -> 2), -1 when its selector has none."""
    found = _INDEX.search(snap.group_member)
    return int(found[1]) if found else -1


def group_rows(rows: list[JobSnapshot]) -> list[JobSnapshot]:
    """``rows`` with each sweep's members moved next to its first member, ordered by member index; jobs
    outside a sweep keep their place."""
    members: dict[str, list[JobSnapshot]] = {}
    for s in rows:
        if s.group:
            members.setdefault(s.group, []).append(s)
    out: list[JobSnapshot] = []
    for s in rows:
        if not s.group:
            out.append(s)
        elif s.group in members:
            out += sorted(members.pop(s.group), key=member_index)
    return out


def tree_marks(rows: list[JobSnapshot]) -> dict[str, str]:
    """Job id -> the bracket before its name: `┌ ` first, `├ ` middle, `└ ` last of a run of one sweep's
    adjacent rows (a lone member, or a job outside any sweep, gets none)."""
    marks: dict[str, str] = {}
    i = 0
    while i < len(rows):
        j = i
        while rows[i].group and j + 1 < len(rows) and rows[j + 1].group == rows[i].group:
            j += 1
        if j > i:
            marks.update({s.job_id: "├ " for s in rows[i + 1 : j]})
            marks[rows[i].job_id], marks[rows[j].job_id] = "┌ ", "└ "
        i = j + 1
    return marks


#: where a member's name is cut: before a separator, so each part keeps its own (`_conc64`, `-r1`)
_PARTS = re.compile(r"(?=[_\-. ])")


def member_name(name: str, others: list[str], width: int) -> str:
    """A sweep member's name within ``width`` cells, cut between its parts (`_`, `-`, `.` or a blank starts one),
    never inside one, `…` where parts are left out: the parts where it differs from the other members (``others``)
    always, to its end when they fit so, and its head as far as it fits (`deepseek…_conc64`, not `…sl1024_conc64`;
    `big_isl1024_osl1024…`). Only a part wider than the room alone is cut inside, keeping its end."""
    if len(name) <= width:
        return name
    parts = [p for p in _PARTS.split(name) if p]
    first, last = _differs(name, [o for o in others if o != name])
    starts = [sum(map(len, parts[:i])) for i in range(len(parts) + 1)]
    a = max(i for i in range(len(parts)) if starts[i] <= first)  # the part where it first differs
    b = min(i for i in range(a + 1, len(parts) + 1) if starts[i] >= last)  # past the part where it last does
    for end in (len(parts), b):  # to its end, else the differing parts and as many after them as fit
        if _joined(parts, 0, a, end, width) is None:
            continue
        head = max(h for h in range(a + 1) if _joined(parts, h, a, end, width) is not None)
        while end < len(parts) and _joined(parts, head, a, end + 1, width) is not None:
            end += 1
        shown = _joined(parts, head, a, end, width)
        if shown is not None:
            return shown
    return _window(name, last, width)


def _window(name: str, last: int, width: int) -> str:
    """``name`` cut inside its parts, the room too narrow for them: the characters up to ``last`` (where it last
    differs) and as many before them as fit, between `…`s."""
    if width < 2:
        return "…"[:width]
    start = max(0, last - (width - 2))
    if start + width - 1 >= len(name):  # nothing after it left out: one `…`
        return "…" + name[len(name) - width + 1 :]
    return ("…" if start else "") + name[start : start + width - (2 if start else 1)] + "…"


def _joined(parts: list[str], head: int, a: int, end: int, width: int) -> str | None:
    """``parts[:head]``, then ``parts[a:end]``, `…` where parts are left out; None when longer than ``width``."""
    text = "".join(parts[:head]) + ("…" if head < a else "") + "".join(parts[a:end]) + ("…" if end < len(parts) else "")
    return text if len(text) <= width else None


def _differs(name: str, others: list[str]) -> tuple[int, int]:
    """From where ``name`` first differs from one of ``others`` to where it last does (from its end); its last part
    when it has no others."""
    if not others:
        start = max((m.start() for m in _PARTS.finditer(name)), default=0)
        return start, len(name)
    first, last = len(name), 0
    for other in others:
        head = next((i for i, (x, y) in enumerate(zip(name, other)) if x != y), min(len(name), len(other)))
        same_end = next(
            (i for i in range(min(len(name), len(other)) - head) if name[-1 - i] != other[-1 - i]),
            min(len(name), len(other)) - head,
        )
        first, last = min(first, head), max(last, len(name) - same_end)
    return min(first, len(name) - 1), max(last, first + 1)
