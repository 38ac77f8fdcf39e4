"""The all-jobs table's columns: squeue's, sized so the whole row fits 80 columns; wide terminals add
the output directory."""

from __future__ import annotations

from datetime import datetime

from ...monitor.myjobs import MyJob
from ...monitor.myjobs_cells import HEADERS, cell
from ...widgets.layout import WIDE

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
WIDE_COLUMNS: tuple[tuple[str, int | None], ...] = (
    ("job", 8),
    ("name", 24),
    ("state", 11),
    ("time", 8),
    ("nodes", 5),
    ("where", 20),
    ("from", 16),
    ("dir", None),
)


def columns(width: int) -> tuple[tuple[str, str, int | None], ...]:
    """(key, header, width) of each column for a terminal this wide."""
    chosen: tuple[tuple[str, int | None], ...] = WIDE_COLUMNS if width >= WIDE else NARROW
    return tuple((key, HEADERS.get(key, "OUTPUT DIR"), size) for key, size in chosen)


def text(job: MyJob, key: str, now: datetime, size: int | None) -> str:
    """One cell, cut with an ellipsis to its column's width."""
    value = str(job.job_dir or "-") if key == "dir" else cell(job, key, now)
    if key == "from" and size is not None and size < 10:
        value = (job.kind or "-") + ("*" if job.hidden else "")  # narrow: `*` marks a hidden job
    return value if size is None or len(value) <= size else value[: size - 1] + "…"
