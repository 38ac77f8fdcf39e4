"""A small index of jobs this user launched (id → directory), so status/monitor find them by id."""

from __future__ import annotations

import getpass
import json
import socket
from pathlib import Path

from srt_tui.core.jobdir.contract import JOB_FILE, JobDirError, read_job_meta, update_job_meta
from srt_tui.core.jobdir.events import append_event
from srt_tui.core.paths import default_output_dir, user_state_dir


def _index_path() -> Path:
    return user_state_dir() / "jobs.jsonl"


def remember_job(job_id: str, job_dir: Path) -> None:
    """Append a job to the index (best effort: an unwritable index never fails a submission)."""
    path = _index_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"job_id": job_id, "job_dir": str(job_dir)}) + "\n")
    except OSError:
        pass


def record_tags(job_dir: Path, tags: list[str]) -> None:
    """Add `apply --tags` to the job's job.json (srtctl keeps them in the job's metadata too)."""
    update_job_meta(job_dir, tags=tuple(tags))


def record_group(job_dir: Path, group: str, selector: str, tags: list[str] | None = None) -> None:
    """Mark the job as a member of an `apply` group (a sweep submitted at once) and which member it is,
    with `apply --tags` when given (job.json rewritten once)."""
    update_job_meta(job_dir, group=group, group_member=selector, **({"tags": tuple(tags)} if tags else {}))


def sweep_log_link(job_dir: Path, job_id: str, target: str = "slurm.log") -> Path:
    """Link `logs/sweep_<id>.log` (where srtctl's Slurm jobs log, and automation looks) to the job's
    output: Slurm's `logs/slurm.log`, or the local launcher's `logs/launch.log`; returns the link."""
    link = job_dir / "logs" / f"sweep_{job_id}.log"
    if not link.is_symlink() and not link.exists():
        link.symlink_to(target)
    return link


def known_jobs() -> dict[str, Path]:
    """Every indexed job whose directory still exists, newest last."""
    out: dict[str, Path] = {}
    try:
        lines = _index_path().read_text(encoding="utf-8").splitlines()
    except OSError:
        return out
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        path = Path(rec.get("job_dir", ""))
        if (path / JOB_FILE).is_file():
            out[str(rec.get("job_id"))] = path
    return out


def find_job_dir(ref: str, output_dir: Path | None = None) -> Path | None:
    """A job directory from a path, an indexed id, or `<output_dir>/<id>`."""
    as_path = Path(ref).expanduser()
    if (as_path / JOB_FILE).is_file():
        return as_path.resolve()
    indexed = known_jobs().get(ref)
    if indexed is not None:
        return indexed
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
    `cancel` work on it; one without an id is kept as `failed-*`. Only this user's directories from this
    host whose process is gone are touched: a shared output directory may hold others' submissions.
    """
    me = (getpass.getuser(), socket.gethostname())
    notes: list[str] = []
    for base in dict.fromkeys(b.resolve() for b in bases if b.is_dir()):
        for staged in sorted(base.glob(".staged-*")):
            pid = staged.name.rsplit("-", 1)[-1]
            try:
                meta = read_job_meta(staged)
                owner, job_id = (meta.user, meta.host), meta.job_id
            except JobDirError:
                continue  # not a staged job directory this code wrote
            if owner != me or (pid.isdigit() and Path(f"/proc/{pid}").exists()):
                continue  # another user's or host's apply (maybe still running), or one still in progress here
            try:
                if job_id and not (base / job_id).exists():
                    staged.rename(base / job_id)
                    remember_job(job_id, base / job_id)
                    append_event(base / job_id, "submitted", f"slurm job {job_id}, recovered after apply was killed")
                    notes.append(
                        f"job {job_id}: its `apply` was killed before release, so Slurm may hold it; "
                        f"start it with `scontrol release {job_id}` or stop it with `srt-tui cancel {job_id}`"
                    )
                elif not job_id:
                    kept = base / ("failed-" + staged.name[len(".staged-") :])
                    staged.rename(kept)
                    notes.append(
                        f"an `apply` was killed while submitting; no job id was recorded (files in {kept}). "
                        f"If `squeue --me -t PD -o '%i %o'` lists {staged}/sbatch.sh, cancel that id"
                    )
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
