"""What a job relays into its directory for monitors that cannot reach its nodes (see runtime.sh
`srt_relay`): `relay/health.json` {"time", "workers": {name: http_code}}, `relay/<worker>.metrics`,
`relay/router.metrics` and `relay/router_workers.http` (the router's registrations: `/workers`, or
Dynamo's `/health`; raw HTTP responses, CRs stripped)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from srt_tui.core.isotime import parse_time
from srt_tui.monitor.files.jobfiles import FileCache, split_http
from srt_tui.monitor.statuses.context import as_dict


@dataclass(frozen=True)
class Relay:
    """Relayed health codes per worker (0: no answer) and how old they are: ``age_s`` since the job wrote them,
    ``read_age_s`` since it began reading them (its round probes every worker, with a timeout each, before it
    writes: a worker's code may be seconds older than the file)."""

    job_dir: Path
    age_s: float
    health: dict[str, int]
    read_age_s: float = 0.0


def read_relay(files: FileCache, job_dir: Path, wall_now: float, fresh_s: float) -> Relay | None:
    """The relayed health, or None when there is none or it is older than ``fresh_s``."""
    path = job_dir / "relay" / "health.json"
    mtime = files.mtime(path)
    if mtime is None:
        return None
    age = max(0.0, wall_now - mtime)
    doc = files.json(path, "relay")
    if not isinstance(doc, dict) or age > fresh_s:
        return None
    codes: dict[str, int] = {}
    for name, code in as_dict(doc.get("workers")).items():
        try:
            codes[str(name)] = int(code)
        except (TypeError, ValueError):
            codes[str(name)] = 0
    began = parse_time(doc["time"]) if isinstance(doc.get("time"), str) else None
    read_age = max(age, wall_now - began.timestamp()) if began is not None else age
    return Relay(job_dir, age, codes, read_age)


def relayed_http(
    files: FileCache, relay: Relay, name: str, wall_now: float, fresh_s: float
) -> tuple[int, bytes] | None:
    """(status, body) of a relayed raw response (`<worker>.metrics`, `router.metrics`, `router_workers.http`)."""
    got = files.raw(relay.job_dir / "relay" / name)
    if got is None or wall_now - got[1] > fresh_s or not got[0]:
        return None
    return split_http(got[0])


def final_http(files: FileCache, job_dir: Path, name: str) -> tuple[int, bytes] | None:
    """(status, body) of what an ended job relayed last, whatever its age: the job scrapes its workers and
    router once more before it stops them, so these are its final counters and registrations."""
    got = files.raw(job_dir / "relay" / name)
    if got is None or not got[0]:
        return None
    return split_http(got[0])
