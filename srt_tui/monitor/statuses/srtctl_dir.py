"""An srtctl job directory (`outputs/<id>/`) seen by the monitor: it has no job.json, plan.json or
status.jsonl, so the job is shown from Slurm's state, srtctl's `<id>.json` (its name), the logs srtctl
writes, and the stage its orchestrator log (`logs/sweep_<id>.log`) tells, read as `srtctl monitor` reads it:
a line saying the run ended wins, else the latest line saying where it is."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

from srt_tui.core.jobdir.contract import JobMeta, PlanDoc
from srt_tui.core.jobdir.discovery import SRTCTL, srtctl_job_name
from srt_tui.monitor.files.jobfiles import Event, FileCache
from srt_tui.monitor.model import LogRef
from srt_tui.monitor.statuses.context import JobFiles

#: srtctl's orchestrator lines that end a run, and the stage each means (checked first, latest wins)
_ENDED: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"Benchmark completed successfully|Sweep completed successfully"), "completed"),
    (re.compile(r"Benchmark failed with exit code|Error during sweep:|Sweep failed \(exit code"), "failed"),
)
#: lines saying where a run is, mapped to srt-tui's stage names (the latest one wins)
_PROGRESS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"Server is healthy - starting benchmark|Running \S+ benchmark"), "benchmark"),
    (re.compile(r"Starting frontend"), "router starting"),
    (re.compile(r"Polling http://|Model is not ready|Waiting for server health"), "workers starting"),
    (re.compile(r"Starting backend workers"), "workers starting"),
    (re.compile(r"etcd is ready|NATS is ready|Starting infrastructure services"), "infra starting"),
    (re.compile(r"Sweep Orchestrator"), "starting"),
)
_STAMP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")
#: how much of the orchestrator log is read each refresh (its tail, as srtctl monitor reads it)
TAIL_LINES = 400


def _time(line: str) -> str:
    """The line's local `YYYY-mm-dd HH:MM:SS` stamp as ISO-8601 UTC ('' without one)."""
    match = _STAMP.match(line)
    if not match:
        return ""
    local = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S").astimezone()
    return local.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def sweep_events(lines: list[str]) -> list[Event]:
    """The stage the orchestrator log tells, as one event (none when no line says anything yet)."""
    for patterns in (_ENDED, _PROGRESS):
        for line in reversed(lines):
            for pattern, stage in patterns:
                if pattern.search(line):
                    detail = line.strip()[:200] if stage == "failed" else ""
                    return [Event(stage, _time(line), detail)]
    return []


def _recorded_name(path: Path, _data: bytes) -> str:
    """`FileCache.doc` parser of srtctl's `<id>.json`: the job name the core reads from it."""
    return srtctl_job_name(path.parent, path.stem)


def srtctl_job(job_id: str, job_dir: Path, files: FileCache) -> JobFiles:
    """The monitor's view of an srtctl directory: Slurm-launched, named and staged as srtctl would
    (`<id>.json` read again only when it changes, not on every refresh)."""
    name = files.doc(job_dir / f"{job_id}.json", _recorded_name)
    meta = JobMeta(job_id, name=name if isinstance(name, str) else "", launcher="slurm")
    events = sweep_events(files.tail(job_dir / "logs" / f"sweep_{job_id}.log", TAIL_LINES))
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
