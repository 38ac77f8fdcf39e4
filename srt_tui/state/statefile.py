"""The user's small state files (job index, hidden jobs, counter samples): in a 0700 directory of the user's,
written whole, then renamed into place; read only when they are the user's own and nobody else can write them."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from srt_tui.core.jobdir.bounded import read_text
from srt_tui.core.owned import check_dir, check_file, private_dir
from srt_tui.core.paths import user_state_dir


def state_dir() -> Path:
    """The state directory, made 0700 when missing; UnsafePath when another user owns it or can write it
    (a writable index would point `cancel` at anyone's processes)."""
    return private_dir(user_state_dir(), "state directory")


def read_state(path: Path, kind: str = "state") -> str:
    """A state file's text ('' when absent), bounded by its kind's cap; UnsafePath when it is a link, another
    user's, or writable by others, since what it says decides which directories and processes srt-tui acts on."""
    try:
        check_dir(path.parent, "state directory")
        check_file(path, "state file")
        return read_text(path, kind)
    except FileNotFoundError:
        return ""


def write_replacing(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` in one rename, so a crash or a reader sees the old file or the new one,
    never half of it (OSError when the directory cannot be made or written)."""
    private_dir(path.parent, "state directory")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
