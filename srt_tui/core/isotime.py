"""ISO-8601 times as srt-tui's files write them (`2026-03-01T11:00:00Z`), read back in one place."""

from __future__ import annotations

from datetime import datetime, timezone


def parse_time(text: str) -> datetime | None:
    """An aware datetime from ISO-8601 (``Z`` accepted; no zone means UTC), or None."""
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
