"""An srtctl job directory (`outputs/<id>/`) seen by the monitor: it has no job.json or plan.json, so
the job is shown from Slurm's state, srtctl's `<id>.json` (its name) and the logs srtctl writes."""

from __future__ import annotations

from pathlib import Path

from ..core.jobdir_contract import JobMeta, PlanDoc
from ..core.jobdir_kind import SRTCTL, srtctl_job_name
from .context import JobFiles
from .jobfiles import Event
from .model import LogRef


def srtctl_job(job_id: str, job_dir: Path, events: list[Event]) -> JobFiles:
    """The monitor's view of an srtctl directory: Slurm-launched, named as srtctl named it."""
    meta = JobMeta(job_id, name=srtctl_job_name(job_dir, job_id), launcher="slurm")
    return JobFiles(job_id, job_dir, meta, PlanDoc(), None, events, (), written_by=SRTCTL)


def srtctl_logs(job_id: str, job_dir: Path) -> tuple[LogRef, ...]:
    """Every process log srtctl wrote (`logs/*.out`, by name) and its orchestrator log
    (`logs/sweep_<id>.log`, Slurm's stdout), which is the launch log here."""
    logs = job_dir / "logs"
    try:
        outs = sorted(p for p in logs.glob("*.out") if p.is_file())
    except OSError:
        outs = []
    refs = [LogRef(p.stem, "process", str(p)) for p in outs]
    refs.append(LogRef("launch", "job", str(logs / f"sweep_{job_id}.log")))
    return tuple(refs)
