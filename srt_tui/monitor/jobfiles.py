"""Read what a job directory says: metadata, plan, endpoints, lifecycle events, relayed health, logs."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Event:
    """One line of `status.jsonl`."""

    stage: str
    time: str
    detail: str


def read_json(path: Path) -> Any | None:
    """Parsed JSON, or None when the file is missing or half-written."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def read_events(job_dir: Path) -> list[Event]:
    """Every well-formed lifecycle event, in file order."""
    try:
        lines = (job_dir / "status.jsonl").read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and "stage" in rec:
            out.append(Event(str(rec["stage"]), str(rec.get("time", "")), str(rec.get("detail", ""))))
    return out


def tail(path: Path, lines: int = 20, max_bytes: int = 64 * 1024) -> list[str]:
    """Last lines of a log without reading the whole file."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - max_bytes))
            data = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return []
    return data.splitlines()[-lines:]


_ERROR_WORDS = ("error", "traceback", "exception", "fatal", "killed", "exited", "oom")


def last_error_line(path: Path) -> str:
    """The last log line that looks like an error (empty if none)."""
    for line in reversed(tail(path, 200)):
        if any(w in line.lower() for w in _ERROR_WORDS):
            return line.strip()[:300]
    return ""
