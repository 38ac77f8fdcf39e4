"""The recipe library's cache across runs: each file's rows as the recipe list shows them, keyed by path, mtime
and size.

A file whose key still matches is not read, parsed or validated again, so a warm start needs no recipe model at
all. The stamp covers srt-tui's version and every module that makes a row (`core/`, the launch catalog), so an
upgrade or an edit of the rules voids the cache whole. The cache is JSON, never pickle: a damaged or foreign file
is ignored whole (it is rebuilt), a bad entry is skipped. It lives in the user's cache directory, 0700/0600,
opened without following a link, owned by the user and bounded in size (principle 10).
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

#: bump when the cached rows' meaning changes
CACHE_FORMAT = 5
MAX_CACHE_BYTES = 64 << 20
MAX_ENTRIES = 20_000
_NAME = "recipes.json"


def _code_stamp() -> str:
    """srt-tui's version and the modules whose output is cached (stat only: nothing is imported), so an
    upgrade or an edit voids the cache."""
    import srt_tui

    package = Path(srt_tui.__file__).parent
    newest, count, size = 0, 0, 0
    for folder in (package / "core", package / "tui" / "launch"):
        for path in folder.rglob("*.py"):
            try:
                st = path.stat()
            except OSError:
                continue
            newest, count, size = max(newest, st.st_mtime_ns), count + 1, size + st.st_size
    return f"{srt_tui.__version__}/{CACHE_FORMAT}/{newest}:{count}:{size}"


def _rows(raw: Any) -> tuple[int, int, list[dict[str, Any]]] | None:
    """A cache entry's (mtime, size, rows) checked field by field; None when anything is off (the rows' own
    fields are checked where they are turned back into entries)."""
    if not isinstance(raw, dict):
        return None
    mtime, size, rows = raw.get("mtime_ns"), raw.get("size"), raw.get("rows")
    if not (isinstance(mtime, int) and isinstance(size, int) and isinstance(rows, list) and rows):
        return None
    if not all(isinstance(row, dict) for row in rows):
        return None
    return mtime, size, rows


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

    def get(self, path: Path, st: os.stat_result) -> list[dict[str, Any]] | None:
        """The cached rows of `path` if its mtime and size are those cached, else None."""
        found = _rows(self._raw.get(str(path)))
        if found is None or found[0] != st.st_mtime_ns or found[1] != st.st_size:
            return None
        return found[2]

    def put(self, path: Path, st: os.stat_result, rows: list[dict[str, Any]]) -> None:
        """Remember the rows of a file read now (JSON-plain dicts)."""
        self._raw[str(path)] = {"mtime_ns": st.st_mtime_ns, "size": st.st_size, "rows": rows}
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
