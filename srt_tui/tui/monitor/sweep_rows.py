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
