"""The recipe library's cache across runs: each file's expanded job data, keyed by path, mtime and size.

A file whose key still matches is not read or parsed again (validation still runs, so a change of srt-tui's
rules shows at once). The cache is JSON, never pickle: a damaged or foreign file is ignored whole (it is
rebuilt), a bad entry is skipped. It lives in the user's cache directory, 0700/0600, opened without following
a link, owned by the user and bounded in size (principle 10).
"""

from __future__ import annotations

import json
import math
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: bump when the cached data's meaning changes (what the YAML reader or the variant expansion produce)
CACHE_FORMAT = 1
MAX_CACHE_BYTES = 64 << 20
MAX_ENTRIES = 20_000
_NAME = "recipes.json"


@dataclass(frozen=True)
class CachedFile:
    """What one recipe file held when it last had this mtime and size."""

    comment: str
    jobs: list[tuple[str | None, Any]]


def _code_stamp() -> str:
    """The modules whose output is cached: a change to them (an upgrade, an edit) voids the cache."""
    from srt_tui import __version__
    from srt_tui.core.spec import recipe, sweep, variants, yamlio

    parts = [__version__, str(CACHE_FORMAT)]
    for module in (yamlio, variants, sweep, recipe):
        try:
            st = os.stat(str(module.__file__))
            parts.append(f"{st.st_mtime_ns}:{st.st_size}")
        except (OSError, TypeError):
            parts.append("?")
    return "/".join(parts)


def _plain(value: Any, depth: int = 0) -> bool:
    """JSON gives back exactly this value (str keys, finite numbers, no YAML dates or sets)."""
    if depth > 64:
        return False
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_plain(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v, depth + 1) for k, v in value.items())
    return False


def _entry(raw: Any) -> tuple[int, int, CachedFile] | None:
    """A cache entry checked field by field; None when anything is off."""
    if not isinstance(raw, dict):
        return None
    mtime, size, comment, jobs = raw.get("mtime_ns"), raw.get("size"), raw.get("comment"), raw.get("jobs")
    if not (isinstance(mtime, int) and isinstance(size, int) and isinstance(comment, str) and isinstance(jobs, list)):
        return None
    out: list[tuple[str | None, Any]] = []
    for job in jobs:
        if not (isinstance(job, list) and len(job) == 2 and (job[0] is None or isinstance(job[0], str))):
            return None
        out.append((job[0], job[1]))
    return mtime, size, CachedFile(comment, out)


class RecipeCache:
    """Load once, look files up by (path, stat), record what was read, save once at the end of a scan."""

    def __init__(self, directory: Path | None = None) -> None:
        from srt_tui.core.paths import user_cache_dir

        self.path = (directory or user_cache_dir()) / _NAME
        self.stamp = _code_stamp()
        self._raw: dict[str, Any] = {}
        self._changed = False
        #: why the file on disk was not used (None: it was, or there was none)
        self.ignored: str | None = None

    def load(self) -> RecipeCache:
        """Read the cache file; anything unexpected leaves the cache empty (and it is rewritten on save)."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            return self
        except OSError as exc:
            self.ignored = f"cannot open: {exc.strerror or exc}"
            return self
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
                self.ignored = "not a regular file of this user, or writable by others"
                return self
            if st.st_size > MAX_CACHE_BYTES:
                self.ignored = "larger than a recipe cache can be"
                return self
            with os.fdopen(os.dup(fd), "rb") as fh:
                raw = fh.read(MAX_CACHE_BYTES + 1)
        except OSError as exc:
            self.ignored = f"cannot read: {exc.strerror or exc}"
            return self
        finally:
            os.close(fd)
        try:
            doc = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError):
            self.ignored = "not valid JSON"
            return self
        if not isinstance(doc, dict) or doc.get("stamp") != self.stamp or not isinstance(doc.get("files"), dict):
            self.ignored = "written by another version"
            return self
        self._raw = doc["files"]
        return self

    def get(self, path: Path, st: os.stat_result) -> CachedFile | None:
        """The cached jobs of `path` if its mtime and size are those cached, else None."""
        found = _entry(self._raw.get(str(path)))
        if found is None or found[0] != st.st_mtime_ns or found[1] != st.st_size:
            return None
        return found[2]

    def put(self, path: Path, st: os.stat_result, comment: str, jobs: list[tuple[str | None, Any]]) -> None:
        """Remember a file read now (only data JSON returns unchanged is kept)."""
        if not _plain([data for _, data in jobs]):
            self._raw.pop(str(path), None)
            return
        self._raw[str(path)] = {
            "mtime_ns": st.st_mtime_ns,
            "size": st.st_size,
            "comment": comment,
            "jobs": [[sel, data] for sel, data in jobs],
        }
        self._changed = True

    def save(self) -> None:
        """Write the cache (0600, in one rename) when something was added; OSError is left to the caller."""
        if not self._changed:
            return
        files = self._raw
        if len(files) > MAX_ENTRIES:  # keep the newest additions (dicts keep insertion order)
            files = dict(list(files.items())[-MAX_ENTRIES:])
        directory = self.path.parent
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(directory)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
            return  # not ours: read nothing from it, write nothing into it
        if st.st_mode & 0o077:
            os.chmod(directory, 0o700)
        text = json.dumps({"stamp": self.stamp, "files": files}, separators=(",", ":"))
        fd, tmp = tempfile.mkstemp(prefix=f".{_NAME}.", suffix=".tmp", dir=directory)  # 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._changed = False
