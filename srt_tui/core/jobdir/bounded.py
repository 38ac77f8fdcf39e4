"""The one reader of files srt-tui did not write itself this run: job-directory files and its own state.

A job directory may be shared, damaged, or planted by another user, so every read here is bounded in
type and size: the file is opened with ``O_NOFOLLOW | O_NONBLOCK`` (a symbolic link is refused unless
the caller follows links on purpose, a FIFO never blocks), checked with ``fstat`` to be a regular file
(a device, FIFO, socket or directory is refused), and read up to a cap for its kind. Text is decoded
with ``errors="replace"``: one bad byte never stops a command. Refusals are ``UnsafeFile``, an
``OSError`` naming the file, so callers that already treat an unreadable file as missing stay correct.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

KIB = 1024
MIB = 1024 * KIB

#: the largest file of each kind srt-tui reads back; a real one is far smaller (a 64-node plan is ~200 KB)
CAPS: dict[str, int] = {
    "job": 256 * KIB,  # job.json
    "plan": 16 * MIB,  # plan.json
    "endpoints": 4 * MIB,  # endpoints.json
    "cancel": 64 * KIB,  # cancel.json, srt-tui's record that it cancelled the job
    "status": 16 * MIB,  # status.jsonl, the lifecycle log
    # one benchmark result, roll-up or progress file: sa-bench keeps every request's text and inter-token
    # latencies, ~100 MB for 5000 prompts of 1024 tokens, so results get room no other kind needs
    "results": 512 * MIB,
    "progress": 1 * MIB,  # logs/benchmark-progress.json
    "relay": 4 * MIB,  # one relayed HTTP answer or relay manifest
    "local": 64 * KIB,  # local.json, .local-pids: the local launcher's records
    "index": 16 * MIB,  # the job index, jobs.jsonl
    "state": 4 * MIB,  # the user's other state files (hidden jobs, rate cache)
    "srtctl": 1 * MIB,  # srtctl's <id>.json
}

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


class UnsafeFile(OSError):
    """A file refused before it was read: not a regular file, a link, or larger than its kind allows."""

    def __init__(self, path: Path, why: str, code: int = errno.EINVAL) -> None:
        super().__init__(code, why, str(path))
        self.path = path
        self.why = why

    def __str__(self) -> str:
        return f"{self.path}: {self.why}"


def _what(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_regular(path: Path, *, follow: bool = False) -> tuple[int, os.stat_result]:
    """A read-only descriptor of ``path`` and its fstat, only when it is a regular file.

    ``follow``: a symbolic link is followed when its target stays inside the job directory (the link's
    folder or the one above it: `logs/sweep_<id>.log` → `slurm.log`) and is a regular file; otherwise a
    link is refused. A FIFO opens at once (``O_NONBLOCK``) and is then refused, never read.
    """
    if follow and os.path.islink(path):
        target = Path(os.path.realpath(path))
        if Path(os.path.realpath(path.parent.parent)) not in target.parents:
            raise UnsafeFile(path, "is a symbolic link out of its job directory", errno.ELOOP)
        path = target
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow:
            raise UnsafeFile(path, "is a symbolic link, not a file srt-tui wrote", errno.ELOOP) from None
        if exc.errno == errno.ENXIO:  # a socket, or a FIFO's peer missing on some systems
            raise UnsafeFile(path, "is a socket or pipe, not a regular file", errno.ENXIO) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFile(path, f"is {_what(st.st_mode)}, not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def _too_big(path: Path, size: int, cap: int) -> UnsafeFile:
    return UnsafeFile(path, f"is {size:,} bytes, more than the {cap:,} such a file may have", errno.EFBIG)


def read_bytes(path: Path, kind: str, *, follow: bool = False) -> bytes:
    """The whole file, which must be a regular file of at most ``CAPS[kind]`` bytes."""
    cap = CAPS[kind]
    fd, st = open_regular(path, follow=follow)
    with os.fdopen(fd, "rb") as fh:
        if st.st_size > cap:
            raise _too_big(path, st.st_size, cap)
        data = fh.read(cap + 1)
    if len(data) > cap:  # it grew since fstat
        raise _too_big(path, len(data), cap)
    return data


def read_text(path: Path, kind: str, *, follow: bool = False) -> str:
    """``read_bytes`` decoded as UTF-8, a bad byte replaced by U+FFFD."""
    return read_bytes(path, kind, follow=follow).decode("utf-8", errors="replace")


def read_range(path: Path, offset: int, limit: int, *, follow: bool = False) -> tuple[bytes, os.stat_result]:
    """At most ``limit`` bytes from ``offset`` (a growing log's new part), and the file's fstat."""
    fd, st = open_regular(path, follow=follow)
    with os.fdopen(fd, "rb") as fh:
        fh.seek(max(0, offset))
        return fh.read(max(0, limit)), st


def read_tail(path: Path, max_bytes: int, *, follow: bool = False) -> bytes:
    """The last ``max_bytes`` bytes of a regular file (a log)."""
    fd, st = open_regular(path, follow=follow)
    with os.fdopen(fd, "rb") as fh:
        fh.seek(max(0, st.st_size - max_bytes))
        return fh.read(max_bytes)
