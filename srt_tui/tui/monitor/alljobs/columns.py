"""The all-jobs table's columns: squeue's, sized so the whole row fits 80 columns; wide terminals add
the output directory, which takes the width that is left."""

from __future__ import annotations

from datetime import datetime

from srt_tui.monitor.alljobs.cells import HEADERS, cell
from srt_tui.monitor.alljobs.query import MyJob
from srt_tui.widgets.fit_columns import fit_value
from srt_tui.widgets.layout import WIDE

#: (key, width) at 80 columns: 65 characters of content plus DataTable's one-cell padding each side
NARROW: tuple[tuple[str, int], ...] = (
    ("job", 7),
    ("name", 14),
    ("state", 9),
    ("time", 7),
    ("nodes", 5),
    ("where", 16),
    ("from", 7),
)
#: wide terminals: roomier name, state and node list, then the output directory
WIDE_FIXED: tuple[tuple[str, int], ...] = (
    ("job", 8),
    ("name", 22),
    ("state", 11),
    ("time", 7),
    ("nodes", 5),
    ("where", 18),
    ("from", 8),
)
#: room kept for the table's scrollbar, so the directory never pushes the row past the screen
SCROLLBAR = 2


def columns(width: int) -> tuple[tuple[str, str, int], ...]:
    """(key, header, width) of each column for a terminal this wide."""
    if width < WIDE:
        return tuple((key, HEADERS[key], size) for key, size in NARROW)
    used = sum(size + 2 for _, size in WIDE_FIXED)
    fixed = tuple((key, HEADERS[key], size) for key, size in WIDE_FIXED)
    return (*fixed, ("dir", "OUTPUT DIR", max(12, width - used - 2 - SCROLLBAR)))


def text(job: MyJob, key: str, now: datetime, size: int) -> str:
    """One cell cut to its column: whole words and an ellipsis, or an ellipsis at the start of a directory (its
    tail, `…/outputs/81301`, is what tells one job from another)."""
    if key == "dir":
        value = str(job.job_dir or "-")
        return value if len(value) <= size else "…" + value[-(size - 1) :]
    value = (job.kind or "-") + ("*" if job.hidden else "") if key == "from" else cell(job, key, now)
    return fit_value(value, size)  # whole words (`mocker-2p1d-…`), as the jobs table
