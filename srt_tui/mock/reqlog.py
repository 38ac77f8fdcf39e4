"""Optional JSONL request log: one line per answered request, for tests and post-mortems."""

from __future__ import annotations

import json
import time
from typing import Any, TextIO


class RequestLog:
    """Appends one JSON object per request to a file, line-buffered so a killed worker loses nothing."""

    def __init__(self, path: str) -> None:
        self._file: TextIO = open(path, "a", buffering=1, encoding="utf-8")  # noqa: SIM115

    def write(self, entry: dict[str, Any]) -> None:
        """Append one entry, stamped with the wall-clock time."""
        self._file.write(json.dumps({"ts": round(time.time(), 6), **entry}, default=str) + "\n")

    def close(self) -> None:
        """Flush and close the file."""
        self._file.close()
