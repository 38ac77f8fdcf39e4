"""The profile this user last chose in the wizard or submitted with: its name in a small state file, so Launch
opens with it highlighted (not the demo `local`) and `srt-tui doctor` checks it without `-p`.

Remembered by name only (a profile of the user or shipped directory, what the Profile step lists and `-p NAME`
loads); a profile given as a file path is not remembered. Reading never fails: a missing, damaged, foreign or
oversized file means nothing is remembered, and the caller falls back to its usual choice.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from srt_tui.core.errors import SrtError
from srt_tui.core.paths import user_state_dir
from srt_tui.state.statefile import read_state, write_replacing

LAST_PROFILE_FILE = "last-profile.json"
#: what a remembered name may look like: a profile file's stem, never a path
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
#: the sources whose profiles are found again by name
NAMED_SOURCES = frozenset({"user", "shipped"})


def last_profile_path() -> Path:
    """Where the name is kept (`$XDG_STATE_HOME/srt-tui/last-profile.json`)."""
    return user_state_dir() / LAST_PROFILE_FILE


def remembered_profile() -> str | None:
    """The name last remembered, or None (no file, or one that is not this user's own, well-formed record)."""
    try:
        doc = json.loads(read_state(last_profile_path()) or "null")
    except (OSError, SrtError, ValueError, RecursionError):
        return None
    name = doc.get("profile") if isinstance(doc, dict) else None
    return name if isinstance(name, str) and _NAME.fullmatch(name) else None


def remember_profile(name: str, source: str) -> bool:
    """Remember ``name`` when it is found again by name (`NAMED_SOURCES`); whether it was written. A state directory
    that cannot be written loses only this convenience, never the submission it follows."""
    if source not in NAMED_SOURCES or not _NAME.fullmatch(name) or remembered_profile() == name:
        return False
    try:
        write_replacing(last_profile_path(), json.dumps({"profile": name}) + "\n")
    except (OSError, SrtError):
        return False
    return True
