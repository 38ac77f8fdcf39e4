"""A small index of jobs this user launched (id → directory), so status/monitor find them by id."""

from __future__ import annotations

import contextlib
import getpass
import json
import re
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from srt_tui.core.jobdir.contract import JOB_FILE, JobDirError, SweptValue, read_job_meta, update_job_meta
from srt_tui.core.jobdir.events import append_event
from srt_tui.core.owned import (
    UnsafePath,
    append_private,
    check_dir,
    rename_noreplace,
    require_job_id,
    valid_job_id,
)
from srt_tui.core.paths import default_output_dir, user_state_dir
from srt_tui.state.statefile import read_state, state_dir


def _index_path() -> Path:
    return user_state_dir() / "jobs.jsonl"


def remember_job(job_id: str, job_dir: Path) -> None:
    """Append a job to the index (0600, in the user's 0700 state directory; best effort: an unwritable index
    never fails a submission, an unsafe one is refused with the reason)."""
    if not _indexable(job_id):
        require_job_id(job_id, "job index")  # says why
    line = json.dumps({"job_id": job_id, "job_dir": str(job_dir)}) + "\n"
    with contextlib.suppress(OSError):
        append_private(state_dir() / "jobs.jsonl", line, "job index")


def record_tags(job_dir: Path, tags: list[str]) -> None:
    """Add `apply --tags` to the job's job.json (srtctl keeps them in the job's metadata too)."""
    update_job_meta(job_dir, tags=tuple(tags))


def record_group(
    job_dir: Path,
    group: str,
    selector: str,
    tags: list[str] | None = None,
    values: Mapping[str, Any] | None = None,
) -> None:
    """Mark the job as a member of an `apply` group (a sweep submitted at once), which member it is and, for a sweep's
    member, the values it was filled with (a list written as its text), with `apply --tags` when given (job.json
    rewritten once)."""
    swept = None if values is None else {k: _swept(v) for k, v in values.items()}
    update_job_meta(
        job_dir,
        group=group,
        group_member=selector,
        group_values=swept,
        **({"tags": tuple(tags)} if tags else {}),
    )


def _swept(value: Any) -> SweptValue:
    """A swept value as job.json holds it: a number or text as it is, anything else (a list, a boolean) as its text."""
    return value if isinstance(value, str | int | float) and not isinstance(value, bool) else str(value)


def sweep_log_link(job_dir: Path, job_id: str, target: str = "slurm.log") -> Path:
    """Link `logs/sweep_<id>.log` (where srtctl's Slurm jobs log, and automation looks) to the job's
    output: Slurm's `logs/slurm.log`, or the local launcher's `logs/launch.log`; returns the link."""
    link = job_dir / "logs" / f"sweep_{job_id}.log"
    if not link.is_symlink() and not link.exists():
        link.symlink_to(target)
    return link


_INDEX_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def _indexable(job_id: object) -> bool:
    """An id the index may hold: one plain token (a Slurm id, `123_4`, `local-7`), never a path or a name
    with separators; no path is built from it (paths are built only from `valid_job_id` ids)."""
    return isinstance(job_id, str) and _INDEX_ID.fullmatch(job_id) is not None and ".." not in job_id


def read_index() -> tuple[dict[str, Path], list[str]]:
    """Every indexed job whose directory still exists (newest last), and a warning for each damaged
    entry, which is skipped (bad UTF-8 or JSON, a `job_dir` that is not an absolute path, a `job_id` that is
    not one plain token): one bad line never hides the other jobs, and no path is built from one."""
    out: dict[str, Path] = {}
    warnings: list[str] = []
    path = _index_path()
    try:
        lines = read_state(path, "index").split("\n")
    except FileNotFoundError:
        return out, warnings
    except OSError as exc:
        return out, [f"{path}: cannot be read ({exc.strerror or exc}); no job is listed from it"]
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        rec = _entry(line)
        job_dir, job_id = (rec.get("job_dir"), rec.get("job_id")) if rec is not None else (None, None)
        if (
            not isinstance(job_dir, str)
            or not Path(job_dir).is_absolute()
            or not _indexable(job_id)
            or "\ufffd" in line
        ):
            warnings.append(f"{path}:{number}: a damaged job-index entry is skipped")
            continue
        try:
            if (Path(job_dir) / JOB_FILE).is_file():
                out[str(job_id)] = Path(job_dir)
        except (OSError, ValueError):  # a NUL in a path, a name too long
            warnings.append(f"{path}:{number}: a damaged job-index entry is skipped")
    return out, warnings


def _entry(line: str) -> dict[str, object] | None:
    try:
        rec = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return rec if isinstance(rec, dict) else None


def known_jobs() -> dict[str, Path]:
    """Every indexed job whose directory still exists, newest last (damaged entries skipped)."""
    return read_index()[0]


def index_warnings() -> list[str]:
    """What is wrong with the job index's damaged entries (each names the file and line)."""
    return read_index()[1]


def find_job_dir(ref: str, output_dir: Path | None = None) -> Path | None:
    """A job directory from a path, an indexed id, or `<output_dir>/<id>`."""
    as_path = Path(ref).expanduser()
    if (as_path / JOB_FILE).is_file():
        return as_path.resolve()
    indexed = known_jobs().get(ref)
    if indexed is not None:
        return indexed
    if not valid_job_id(ref):
        return None  # never `<output_dir>/../elsewhere`
    for base in (output_dir, default_output_dir()):
        if base is not None and (base / ref / JOB_FILE).is_file():
            return (base / ref).resolve()
    return None


def job_bases(extra: Path | None = None) -> list[Path]:
    """Output directories jobs were submitted to: `-o`, the default one, and every indexed job's parent."""
    return [*([extra] if extra else []), default_output_dir(), *(p.parent for p in known_jobs().values())]


def recover_interrupted(bases: list[Path]) -> list[str]:
    """Find `.staged-*` directories an interrupted apply left behind; make them findable; say what to do.

    A staged directory whose job id was recorded becomes `<base>/<id>` and is indexed, so `status` and
    `cancel` work on it; one without an id is kept as `failed-*`. Only directories this user owns (the
    file system says so, not job.json), inside a base that is safe to act in, whose apply is gone, are
    touched, and only ever renamed within their base: a shared output directory may hold others'
    submissions, or directories planted to look like ours.
    """
    me = (getpass.getuser(), socket.gethostname())
    notes: list[str] = []
    for base in dict.fromkeys(b.resolve() for b in bases if b.is_dir()):
        try:
            check_dir(base, "output directory", shared_ok=True)
        except (UnsafePath, OSError):
            continue  # nothing is acted on in a directory others can rearrange
        for staged in sorted(base.glob(".staged-*")):
            pid = staged.name.rsplit("-", 1)[-1]
            try:
                check_dir(staged, "staged job directory")
                meta = read_job_meta(staged)
                owner, job_id = (meta.user, meta.host), meta.job_id
            except (JobDirError, UnsafePath, OSError):
                continue  # another user's, a link, or not a staged job directory this code wrote
            if owner != me or (pid.isdigit() and Path(f"/proc/{pid}").exists()):
                continue  # another host's apply (maybe still running), or one still in progress here
            if job_id and not valid_job_id(job_id):
                notes.append(f"{staged}: its job.json names {job_id!r}, not a job id: left where it is")
                continue
            try:
                if job_id:
                    target = base / job_id
                    rename_noreplace(staged, target)
                    remember_job(job_id, target)
                    append_event(target, "submitted", f"slurm job {job_id}, recovered after apply was killed")
                    notes.append(
                        f"job {job_id}: its `apply` was killed before release; its files are in {target} "
                        f"(`srt-tui status {job_id}` says whether it runs)"
                    )
                else:
                    kept = base / ("failed-" + staged.name[len(".staged-") :])
                    rename_noreplace(staged, kept)
                    notes.append(f"an `apply` was killed while submitting; no job id was recorded (files in {kept})")
            except OSError as exc:
                notes.append(f"{staged}: left by an interrupted apply, cannot be moved: {exc.strerror}")
    return notes


def group_members(group: str) -> dict[str, Path]:
    """Indexed jobs submitted together as ``group`` (job.json's ``group``: one `apply` of a sweep), in order."""
    out: dict[str, Path] = {}
    for job_id, path in known_jobs().items():
        try:
            meta = read_job_meta(path)
        except JobDirError:  # a damaged job.json is reported by `status`; here it is no member
            continue
        if meta.group == group:
            out[job_id] = path
    return out
