"""An ended job's workers `ended with the job` at the time the job ended, never when the Monitor first looked (s36
operator pass: the Events view stamped them at the look time, minutes after the job's `cancelled`); with no end time
known (neither Slurm's nor the job's own final event), the history says so and has no time. The real processes:
tests/e2e/test_local_degraded.py."""

from __future__ import annotations

import json
from pathlib import Path

from srt_tui.monitor import cells
from srt_tui.monitor.model import END_UNTIMED, JobSnapshot
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.monitor.statuses.health_log import HealthLog
from srt_tui.monitor.timeline import timeline

ENDED = "2026-03-01T12:00:05Z"
#: the Monitor first looks an hour after the job ended
LOOKED = 1772370000.0 + 3600


def _ended_job(tmp_path: Path, end_time: str) -> Path:
    """A two-worker job that served, then was cancelled at ``end_time`` (its `status.jsonl`)."""
    job = tmp_path / "local-77"
    (job / "logs").mkdir(parents=True)
    workers = [
        {"name": f"agg_{i}", "role": "agg", "kind": "worker", "node_index": 0, "gpus": [i], "port": 6100 + i,
         "log": f"logs/agg_{i}.log"}
        for i in range(2)
    ]  # fmt: skip
    plan = {"topology": "agg2", "nodes": 1, "gpus_per_node": 8, "processes": workers, "router": None}
    (job / "plan.json").write_text(json.dumps(plan))
    events = [("serving", "2026-03-01T11:58:00Z"), ("cancelled", end_time)]
    lines = (json.dumps({"stage": s, "time": t, "detail": ""}) + "\n" for s, t in events)
    (job / "status.jsonl").write_text("".join(lines))
    return job


async def _look(job: Path) -> JobSnapshot:
    monitor = Monitor(None, budget_s=0.5, wall=lambda: LOOKED)
    try:
        return (await monitor.refresh({job.name: job}))[0]
    finally:
        await monitor.aclose()


async def test_workers_that_stopped_with_the_job_are_stamped_when_it_ended(tmp_path: Path) -> None:
    snap = await _look(_ended_job(tmp_path, ENDED))
    assert snap.stage == "cancelled" and snap.ended_at == ENDED
    assert [[(c.at, c.health) for c in w.health_history] for w in snap.workers] == [[(ENDED, "down")]] * 2
    rows = timeline([], snap.workers, stopped=frozenset(w.name for w in snap.workers))
    assert {(r.at.isoformat() if r.at else "", r.what, r.detail) for r in rows} == {
        ("2026-03-01T12:00:05+00:00", "ended", "with the job")
    }


def test_an_end_with_no_known_time_is_recorded_without_one_and_said_so() -> None:
    log = HealthLog()
    log.note(("j", "agg_0"), 1000.0, "healthy", "")
    log.note(("j", "agg_0"), LOOKED, "down", "the job has ended" + END_UNTIMED, untimed=True)
    (_, ended) = log.changes(("j", "agg_0"))
    assert ended.at == ""  # not the look time
    assert cells.health_words(ended.health, ended.detail, stopped=True) == ("ended", "with the job (when is not known)")
