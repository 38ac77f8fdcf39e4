"""Read what a job directory says: metadata, plan, endpoints, lifecycle events, relayed data, logs.

`FileCache` keeps parsed files keyed by (mtime, size), and reads `status.jsonl` incrementally, so a
refresh of many jobs re-reads only what changed. Every read goes through the core's bounded reader
(`core/jobdir/bounded.py`): a device, FIFO or oversized file in a job directory is refused, remembered
(`refused`) and shown as a problem of the job's directory, never read.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from srt_tui.core.jobdir.bounded import CAPS, UnsafeFile, open_regular, read_bytes, read_range, read_tail
from srt_tui.core.jobdir.contract import KIND_OF, JobDirError
from srt_tui.core.jobdir.events import STATUS_FILE, Event, parse_event
from srt_tui.core.results.model import JobResults
from srt_tui.core.results.read import read_results, result_files
from srt_tui.core.text.cut import cut_at_word
from srt_tui.monitor.files.log_tail import strip_ansi

T = TypeVar("T")
__all__ = ["Event", "FileCache", "error_line", "read_json", "split_http", "tail"]


def read_json(path: Path, kind: str = "results") -> Any | None:
    """Parsed JSON, or None when the file is missing, half-written, or refused by the bounded reader."""
    try:
        return json.loads(read_bytes(path, kind))
    except (OSError, ValueError, RecursionError):
        return None


def tail(path: Path, lines: int = 20, max_bytes: int = 64 * 1024) -> list[str]:
    """Last lines of a log without reading the whole file (a link is followed to a regular file only)."""
    try:
        data = read_tail(path, max_bytes, follow=True).decode("utf-8", errors="replace")
    except OSError:
        return []
    return data.splitlines()[-lines:]


#: words of a line that explains a failure: an error, a traceback, an exit, a refusal (matched case-blind anywhere
#: in the line, so `ModuleNotFoundError:` and `RuntimeError:` count)
_EXPLAINS = re.compile(
    r"error|errno|traceback|exception|fatal|panic|abort|killed|\boom\b|out of memory|refused|denied|failed|failure"
    r"|segmentation fault|core dumped|no such file|not found|cannot|can't|could not|unable to|unrecognized"
    r"|\bexit(?:s|ed|ing)? (?:with )?(?:code|status)|\bexit code|\busage:",
    re.IGNORECASE,
)
#: a healthy, informational or warning line (`ready: agg_1 serving …`, `INFO … started`, a router's `WARN … Failed
#: to download tokenizer`) never says why a process ended, whatever a word in it happens to be (`INFO  retries: 0
#: failed`): an error word counts there only as the level
_INFO = re.compile(
    r"^\W*(?:\S+\s+){0,3}?\[?(?:INFO|DEBUG|TRACE|WARN|WARNING|NOTICE)\b|^(?:ready|serving|listening|started)\b",
    re.IGNORECASE,
)
#: the longest a log line is quoted as a reason, cut at a word (`cut_at_word`)
LINE_MAX = 300


def explains_failure(line: str) -> bool:
    """Whether ``line`` (plain text) reads as the reason a process ended: error, traceback or exit text, never
    a ready or info line."""
    return bool(_EXPLAINS.search(line)) and not _INFO.search(line)


def last_error_line(path: Path) -> str:
    """The last log line that looks like an error (empty if none)."""
    return error_line(tail(path, 200))


def error_line(lines: list[str]) -> str:
    """The last of ``lines`` that explains a failure (empty if none), as plain text: an engine's coloured
    `ERROR` keeps its words, not its escape sequences."""
    for line in reversed(lines):
        plain = strip_ansi(line).strip()
        if explains_failure(plain):
            return quoted(plain)
    return ""


def quoted(line: str) -> str:
    """A log line as it is quoted (stripped, at most `LINE_MAX`, cut at a word and `…`, never mid-word: a router's
    `Failed to download tok` read as its own words)."""
    return cut_at_word(line.strip(), LINE_MAX)


def split_http(raw: bytes) -> tuple[int, bytes] | None:
    """(status, body) of a raw HTTP response as the relay stores it (CRLFs may have been stripped)."""
    if not raw.startswith(b"HTTP/"):
        return None
    for sep in (b"\r\n\r\n", b"\n\n"):
        head, found, body = raw.partition(sep)
        if found:
            break
    else:
        head, body = raw, b""
    parts = head.split(b"\n", 1)[0].split()
    if len(parts) < 2 or not parts[1].isdigit():
        return None
    return int(parts[1]), body


class FileCache:
    """Parsed job files, re-read only when their (mtime, size) changes."""

    def __init__(self) -> None:
        self._json: dict[Path, tuple[tuple[int, int], Any]] = {}
        self._docs: dict[Path, tuple[tuple[int, int], object, object]] = {}
        self._raw: dict[Path, tuple[tuple[int, int], bytes]] = {}
        self._events: dict[Path, tuple[int, int, list[Event], str]] = {}
        self._tails: dict[Path, tuple[tuple[int, int], list[str]]] = {}
        self._results: dict[Path, tuple[tuple[tuple[int, int] | None, ...], JobResults]] = {}
        self._refused: dict[Path, str] = {}

    def _note(self, path: Path, exc: OSError | None) -> None:
        """Remember why the bounded reader refused ``path`` (forgotten once it reads)."""
        if isinstance(exc, UnsafeFile):
            self._refused[path] = exc.why
        else:
            self._refused.pop(path, None)

    def check(self, path: Path) -> None:
        """Note whether ``path``, read by another part (the local launcher's `local.json`), is a regular
        file the bounded reader would read: a device or pipe there is named like any job file."""
        try:
            os.close(open_regular(path)[0])
            self._note(path, None)
        except OSError as exc:
            self._note(path, exc)

    def refused(self, job_dir: Path) -> list[str]:
        """`name: why` of each file of ``job_dir`` the bounded reader refused (a device, pipe, link or
        oversized file where a job file belongs), for the job's list of problems."""
        return [f"{p.relative_to(job_dir)}: {why}" for p, why in self._refused.items() if job_dir in p.parents]

    @staticmethod
    def _stat(path: Path) -> tuple[tuple[int, int], float] | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size), st.st_mtime

    def json(self, path: Path, kind: str) -> Any | None:
        """Parsed JSON file (None if missing, invalid or refused; ``kind``: its size cap)."""
        st = self._stat(path)
        if st is None:
            self._json.pop(path, None)
            return None
        hit = self._json.get(path)
        if hit is not None and hit[0] == st[0]:
            return hit[1]
        try:
            value = json.loads(read_bytes(path, kind))
            self._note(path, None)
        except OSError as exc:
            self._note(path, exc)
            value = None
        except (ValueError, RecursionError):
            value = None
        if value is not None:
            self._json[path] = (st[0], value)
        return value

    def doc(self, path: Path, parse: Callable[[Path, bytes], T]) -> T | JobDirError | None:
        """A job file parsed by the core's contract (``parse``): the document, what is wrong with it,
        or None when it is missing; parsed again only when it changes."""
        st = self._stat(path)
        if st is None:
            self._docs.pop(path, None)
            return None
        hit = self._docs.get(path)
        if hit is not None and hit[0] == st[0] and hit[1] is parse:
            return cast("T | JobDirError", hit[2])
        try:
            value: T | JobDirError = parse(path, read_bytes(path, KIND_OF.get(path.name, "srtctl")))
        except FileNotFoundError:
            return None
        except UnsafeFile as exc:
            value = JobDirError(path, exc.why, "the directory is damaged or was written by something else")
        except OSError as exc:
            value = JobDirError(path, f"cannot be read ({exc.strerror or exc})", "check its permissions")
        except JobDirError as exc:
            value = exc
        self._docs[path] = (st[0], parse, value)
        return value

    def raw(self, path: Path) -> tuple[bytes, float] | None:
        """File bytes and mtime (None if missing)."""
        st = self._stat(path)
        if st is None:
            return None
        hit = self._raw.get(path)
        if hit is not None and hit[0] == st[0]:
            return hit[1], st[1]
        try:
            data = read_bytes(path, "relay")
            self._note(path, None)
        except OSError as exc:
            self._note(path, exc)
            return None
        self._raw[path] = (st[0], data)
        return data, st[1]

    def mtime(self, path: Path) -> float | None:
        """Modification time, None if missing."""
        st = self._stat(path)
        return None if st is None else st[1]

    def events(self, job_dir: Path) -> list[Event]:
        """`status.jsonl`, reading only the bytes appended since the last call."""
        path = job_dir / STATUS_FILE
        try:
            st = os.lstat(path)
        except OSError:
            self._events.pop(path, None)
            return []
        if not stat.S_ISREG(st.st_mode):  # a link, device or pipe: refused (and named), never read
            try:
                read_range(path, 0, 0)
            except OSError as exc:
                self._note(path, exc)
            self._events.pop(path, None)
            return []
        ino, offset, events, partial = self._events.get(path, (st.st_ino, 0, [], ""))
        if ino != st.st_ino or st.st_size < offset:
            offset, events, partial = 0, [], ""
        if st.st_size > offset:
            try:
                if st.st_size > CAPS["status"]:
                    raise UnsafeFile(path, f"is {st.st_size:,} bytes, more than a lifecycle log may have")
                chunk, _ = read_range(path, offset, CAPS["status"] - offset)
                self._note(path, None)
            except OSError as exc:
                self._note(path, exc)
                return events
            offset += len(chunk)
            text = partial + chunk.decode("utf-8", errors="replace")
            lines = text.split("\n")
            partial = lines.pop()
            events = events + [e for e in (parse_event(x) for x in lines if x.strip()) if e is not None]
        self._events[path] = (st.st_ino, offset, events, partial)
        return events

    def tail(self, path: Path, lines: int = 200) -> list[str]:
        """Last lines of a log, cached until it changes."""
        st = self._stat(path)
        if st is None:
            return []
        hit = self._tails.get(path)
        if hit is not None and hit[0] == st[0]:
            return hit[1]
        try:
            out = read_tail(path, 64 * 1024, follow=True).decode("utf-8", errors="replace").splitlines()[-lines:]
            self._note(path, None)
        except OSError as exc:
            self._note(path, exc)
            out = []
        self._tails[path] = (st[0], out)
        return out

    def results(self, job_dir: Path) -> JobResults:
        """The job's benchmark results, read again only when a result file changes; only the numbers are
        kept (the files' generated texts can be megabytes per concurrency)."""
        files = result_files(job_dir)
        key = tuple(st[0] if (st := self._stat(p)) else None for p in files)
        hit = self._results.get(job_dir)
        if hit is not None and hit[0] == key:
            return hit[1]
        found = read_results(job_dir, read_json)
        self._results[job_dir] = (key, found)
        return found

    def forget(self, keep_dirs: set[Path]) -> None:
        """Drop cached files of jobs no longer tracked: each cached path's few parents are looked up in the
        set (testing every tracked directory against every path cost seconds at 300 jobs)."""
        for d in [d for d in self._results if d not in keep_dirs]:
            del self._results[d]
        keep = {os.fspath(d) for d in keep_dirs}

        def kept(path: Path) -> bool:  # one of its parents is tracked (strings: Path.parents built a Path each)
            here = os.fspath(path)
            while (up := os.path.dirname(here)) != here:
                if up in keep:
                    return True
                here = up
            return False

        for cache in (self._json, self._docs, self._raw, self._events, self._tails, self._refused):
            for p in [p for p in cache if not kept(p)]:
                del cache[p]
