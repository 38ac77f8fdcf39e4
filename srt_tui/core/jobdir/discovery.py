"""Recognise a job's output directory: srt-tui's (its `job.json`) or srtctl's (`<output_base>/<id>/`
with `<id>.json`, `sbatch_script.sh` or `logs/sweep_<id>.log`), found from the paths Slurm reports.

srtctl submits with `--output=<output_base>/%j/logs/sweep_%j.log`, so a job's stdout path names its
directory; srt-tui submits with `--chdir=<job dir>` and `--output=<job dir>/logs/slurm.log`. Any other
job (a plain `sbatch`) has no directory here, and is shown with its Slurm facts only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from srt_tui.core.jobdir.bounded import read_bytes
from srt_tui.core.jobdir.contract import JOB_FILE, JobDirError, read_job_meta

SRT_TUI = "srt-tui"
SRTCTL = "srtctl"


@dataclass(frozen=True)
class FoundDir:
    """A job's output directory and who wrote it (`srt-tui` or `srtctl`)."""

    path: Path
    kind: str


def srtctl_files(job_id: str) -> tuple[str, ...]:
    """The files (relative to the directory) that only srtctl's `apply` writes for job ``job_id``."""
    return (f"{job_id}.json", "sbatch_script.sh", f"logs/sweep_{job_id}.log")


def dir_kind(path: Path, job_id: str) -> str | None:
    """`srt-tui`, `srtctl` or None: whether ``path`` is the output directory of Slurm job ``job_id``.

    An srt-tui directory's `job.json` must name this job (or none yet, or be unreadable: the job view
    then says what is wrong with it); an srtctl directory is named by the job id (`outputs/<id>/`).
    """
    try:
        if (path / JOB_FILE).is_file():
            try:
                recorded = read_job_meta(path).job_id
            except JobDirError:
                return SRT_TUI
            return SRT_TUI if recorded in ("", job_id) else None
        if path.name == job_id and any((path / name).exists() for name in srtctl_files(job_id)):
            return SRTCTL
    except OSError:  # a directory we may not read (another user's work dir): not ours to open
        return None
    return None


def candidates(job_id: str, stdout: str, work_dir: str) -> list[Path]:
    """Where the job's directory may be, most telling first: the stdout file's `logs/` parent, the
    stdout file's directory, the work dir, and `<work dir>/outputs/<id>` (srtctl's default base)."""
    out: list[Path] = []
    if stdout and "%" not in stdout:  # an unexpanded pattern names no real directory
        log = Path(stdout)
        if log.parent.name == "logs":
            out.append(log.parent.parent)
        out.append(log.parent)
    if work_dir:
        base = Path(work_dir)
        out += [base, base / job_id, base / "outputs" / job_id]
    return list(dict.fromkeys(out))


def find_output_dir(
    job_id: str, stdout: str = "", work_dir: str = "", indexed: Mapping[str, Path] | None = None
) -> FoundDir | None:
    """The output directory of Slurm job ``job_id``, from the paths Slurm reports for it; the job index
    (``indexed``) only when Slurm reports none: ids restart when a cluster is rebuilt, so an old index
    entry may name another job with the same id, while Slurm's paths are this job's."""
    tried: Iterable[Path] = candidates(job_id, stdout, work_dir)
    if not stdout and not work_dir and indexed and job_id in indexed:
        tried = [indexed[job_id]]
    for path in tried:
        kind = dir_kind(path, job_id)
        if kind is not None:
            return FoundDir(path, kind)
    return None


def srtctl_job_name(path: Path, job_id: str) -> str:
    """The `job_name` srtctl recorded in `<id>.json` ('' when it is missing or unreadable)."""
    try:
        doc = json.loads(read_bytes(path / f"{job_id}.json", "srtctl"))
    except (OSError, ValueError):
        return ""
    name = doc.get("job_name") if isinstance(doc, dict) else None
    return name if isinstance(name, str) else ""
