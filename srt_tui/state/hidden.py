"""Jobs the operator removed from the lists (`d` in the Monitor, `srt-tui jobs --hide`): their ids in a
small state file, so they stay hidden across runs; their directories are never touched."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from srt_tui.core.jobdir.bounded import read_bytes
from srt_tui.core.paths import user_state_dir
from srt_tui.state.statefile import write_replacing

HIDDEN_FILE = "hidden-jobs.json"


def hidden_path() -> Path:
    """Where the hidden ids are kept (`$SRT_TUI_STATE_DIR/hidden-jobs.json`)."""
    return user_state_dir() / HIDDEN_FILE


def hidden_jobs() -> frozenset[str]:
    """The ids hidden so far (none when the file is missing or unreadable: a list never hides by accident)."""
    try:
        doc = json.loads(read_bytes(hidden_path(), "state"))
    except (OSError, ValueError, RecursionError):
        return frozenset()
    ids = doc.get("hidden") if isinstance(doc, dict) else None
    return frozenset(str(i) for i in ids) if isinstance(ids, list) else frozenset()


class HiddenWatch:
    """The hidden ids for a reader that asks on every refresh (the Monitor): the file is read again only when its
    (inode, mtime, size) changed, one stat a refresh, so `srt-tui jobs --hide` from another shell reaches it."""

    def __init__(self) -> None:
        self._stamp: tuple[int, int, int] | None = None
        self._ids: frozenset[str] = frozenset()

    def current(self) -> frozenset[str]:
        """The hidden ids now (a stat, and a read when the file changed: call it in a worker or thread)."""
        try:
            st = hidden_path().stat()
            stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = (0, 0, -1)  # missing: none hidden
        if stamp != self._stamp:
            self._ids = hidden_jobs() if stamp[2] >= 0 else frozenset()
            self._stamp = stamp
        return self._ids


def _write(ids: frozenset[str]) -> None:
    """Replace the file in one rename, so a crash leaves the old list or the new one."""
    write_replacing(hidden_path(), json.dumps({"hidden": sorted(ids)}, indent=1) + "\n")


def hide(ids: Iterable[str]) -> frozenset[str]:
    """Hide these jobs; returns every hidden id."""
    now = hidden_jobs() | {str(i) for i in ids}
    _write(now)
    return now


def unhide(ids: Iterable[str]) -> list[str]:
    """Show these jobs again; returns the ids that were hidden (the others were not)."""
    before = hidden_jobs()
    wanted = [str(i) for i in ids]
    found = [i for i in wanted if i in before]
    if found:
        _write(before - set(found))
    return found
