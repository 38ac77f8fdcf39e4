"""The user's small state files (hidden jobs, counter samples): written whole, then renamed into place."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_replacing(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` in one rename, so a crash or a reader sees the old file or the new one,
    never half of it (OSError when the directory cannot be made or written)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
