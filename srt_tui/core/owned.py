"""Paths srt-tui acts on, checked first: owned by this user, not writable by others, job ids that cannot escape.

A login node is shared (DESIGN principle 10): another user may write a shared output directory or plant a
symbolic link where srt-tui is about to write. Everything srt-tui creates is 0700/0600 whatever the umask;
every directory it acts on is checked (not a link, this user's, not writable by others unless sticky).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path

from srt_tui.core.errors import Problem, SrtError

#: what a job id may look like before any path is built from it: a Slurm id or a local launcher id
JOB_ID_RE = re.compile(r"(?:local-)?[0-9]+")


class UnsafePath(SrtError):
    """A path srt-tui will not act on: another user's, writable by others, a link, or a hostile job id."""


def valid_job_id(job_id: object) -> bool:
    """True for `123` or `local-7`: ids that name one directory entry and nothing else."""
    return isinstance(job_id, str) and JOB_ID_RE.fullmatch(job_id) is not None


def require_job_id(job_id: object, where: str) -> str:
    """``job_id`` when valid, else UnsafePath naming where it came from."""
    if not valid_job_id(job_id):
        raise UnsafePath(
            [
                Problem(
                    field="job id",
                    message=f"{where}: {job_id!r} is not a job id (digits, or local-<digits>); nothing was done",
                    hint="a job id is what `srt-tui apply` printed, e.g. 1234 or local-3",
                )
            ]
        )
    return str(job_id)


def _owner(uid: int) -> str:
    import pwd  # only to name who owns a refused path

    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


def refuse(path: Path | str, what: str, why: str, hint: str) -> UnsafePath:
    """The one error for an unsafe path: what it is, why it is refused, how to fix it."""
    return UnsafePath([Problem(field=what, message=f"{path}: {why}; srt-tui will not use it", hint=hint)])


def check_dir(path: Path, what: str, *, shared_ok: bool = False) -> os.stat_result:
    """Refuse ``path`` unless it is a real directory of this user (``shared_ok``: or root's) that nobody
    else can write (``shared_ok``: unless it has the sticky bit, as /tmp, so others cannot rename what is
    in it). FileNotFoundError when it does not exist."""
    st = os.lstat(path)
    me = os.geteuid()
    if stat.S_ISLNK(st.st_mode):
        raise refuse(path, what, "is a symbolic link", "use the directory it points to, after checking it is yours")
    if not stat.S_ISDIR(st.st_mode):
        raise refuse(path, what, "is not a directory", "remove it or choose another path")
    if st.st_uid != me and not (shared_ok and st.st_uid == 0):
        raise refuse(path, what, f"belongs to {_owner(st.st_uid)}, not to you", "use a directory of your own")
    if st.st_mode & 0o022 and not (shared_ok and st.st_mode & stat.S_ISVTX):
        mode = stat.S_IMODE(st.st_mode)
        raise refuse(
            path,
            what,
            f"is writable by other users (mode {mode:04o}), who could replace what srt-tui writes there",
            f"chmod go-w {path} (or chmod +t for a shared directory) after checking its contents",
        )
    return st


def check_file(path: Path, what: str) -> os.stat_result:
    """Refuse ``path`` unless it is a regular file of this user that nobody else can write."""
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        raise refuse(path, what, "is not a regular file", "remove it; srt-tui writes its own")
    if st.st_uid != os.geteuid():
        raise refuse(path, what, f"belongs to {_owner(st.st_uid)}, not to you", "remove it; srt-tui writes its own")
    if st.st_mode & 0o022:
        mode = stat.S_IMODE(st.st_mode)
        raise refuse(
            path, what, f"is writable by other users (mode {mode:04o})", f"chmod go-w {path} after checking it"
        )
    return st


def check_ancestors(path: Path, what: str) -> None:
    """Refuse ``path`` when a directory above it can be written by others without the sticky bit: anyone
    who can write there could move the whole tree aside and put their own in its place."""
    for parent in path.parents:
        try:
            st = os.stat(parent)
        except OSError:
            continue
        if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
            mode = stat.S_IMODE(st.st_mode)
            raise refuse(
                path,
                what,
                f"lies in {parent}, writable by other users (mode {mode:04o}) without the sticky bit",
                f"use a directory whose parents only you (or root) can write, or chmod +t {parent}",
            )


def private_dir(path: Path, what: str, *, shared_ok: bool = False) -> Path:
    """``path`` made (0700, whatever the umask) with its missing parents, then checked (`check_dir`)."""
    missing: list[Path] = []
    probe = path
    while not os.path.lexists(probe) and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for new in reversed(missing):
        try:
            os.mkdir(new, 0o700)
        except FileExistsError:
            continue  # made meanwhile (another srt-tui): checked below like any other
        os.chmod(new, 0o700)
    check_dir(path, what, shared_ok=shared_ok)
    return path


def write_private(path: Path, text: str | bytes, mode: int = 0o600) -> None:
    """Create ``path`` (it must not exist: O_EXCL, never through a link) and write ``text``, mode ``mode``."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    try:
        os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def append_private(path: Path, text: str, what: str) -> None:
    """Append ``text`` to ``path`` (made 0600 when absent), refusing a link or a file another user can write."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        st = os.fstat(fd)
        if st.st_uid != os.geteuid() or st.st_mode & 0o022 or not stat.S_ISREG(st.st_mode):
            raise refuse(path, what, "is another user's or writable by others", f"remove {path} after checking it")
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)


_RENAME_NOREPLACE = 1
_AT_FDCWD = -100


def rename_noreplace(src: Path, dst: Path) -> None:
    """Rename ``src`` to ``dst`` only if ``dst`` does not exist (FileExistsError otherwise): an existing
    directory, another job's or planted, is never replaced (renameat2 RENAME_NOREPLACE)."""
    import ctypes  # here: every command checks paths, few rename a job directory

    fn = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if fn is not None:
        if fn(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), _RENAME_NOREPLACE) == 0:
            return
        err = ctypes.get_errno()
        if err not in (errno.ENOSYS, errno.EINVAL):
            raise OSError(err, os.strerror(err), str(dst))
    if os.path.lexists(dst):  # no renameat2 here: the check, then the rename (a non-empty target still fails)
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(dst))
    os.rename(src, dst)
