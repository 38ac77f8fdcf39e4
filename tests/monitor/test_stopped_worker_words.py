"""A worker that stopped with its ended job is said one way (issue 21, new-operator pass op11): its detail read
`health  ended  the job has ended` over a history row `down  the job has ended` (and the Events view said `down` in
the fault's colour), while the workers table says `ended`. Now all say `ended  with the job`; the worker whose end
failed the job keeps its cause (`down  killed (signal 9)`)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from textual.widgets import DataTable

from srt_tui.monitor.model import JOB_ENDED, HealthChange, JobSnapshot
from srt_tui.monitor.timeline import timeline
from srt_tui.tui.monitor.events_view import EventsScreen
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app, highlighted_worker_detail
from tests.tui.scenarios import settle

HEALTHY = HealthChange("2026-03-01T11:20:00Z", "healthy", "HTTP 200")
ENDED = HealthChange("2026-03-01T11:40:01Z", "down", JOB_ENDED)


def _completed(job_dir: Path | None = None) -> JobSnapshot:
    """A completed job whose workers the Monitor saw healthy, then down because the job ended."""
    snap = frozen.nvidia("healthy")
    workers = tuple(replace(w, health="down", detail=JOB_ENDED, health_history=(HEALTHY, ENDED)) for w in snap.workers)
    done = replace(snap, stage="completed", slurm_state="COMPLETED", stage_detail="", ended_at="2026-03-01T11:40:00Z",
                   workers=workers)  # fmt: skip
    return replace(done, job_dir=str(job_dir)) if job_dir is not None else done


async def test_the_detail_says_ended_with_the_job_now_and_in_its_history() -> None:
    body = await highlighted_worker_detail(_completed())
    assert "health  ended  with the job" in body, body
    assert "2026-03-01 11:40:01 UTC  ended  with the job" in body, body
    assert JOB_ENDED not in body and "  down" not in body, body


async def test_the_worker_that_failed_the_job_keeps_its_cause() -> None:
    snap = frozen.frozen_job("81199", "nvidia/h100-2p1d-vllm-router.yaml", "nvidia-h100", scenario="failed",
                             started="2026-03-01T09:00:00Z", submitted="2026-03-01T08:59:00Z")  # fmt: skip
    killed = HealthChange("2026-03-01T11:40:00Z", "down", "killed (signal 9)")
    workers = (replace(snap.workers[0], detail="killed (signal 9)", health_history=(HEALTHY, killed)),
               *(replace(w, health_history=(HEALTHY, ENDED)) for w in snap.workers[1:]))  # fmt: skip
    failed = replace(snap, workers=workers, failure_log=workers[0].log)  # its log says why the job failed
    body = await highlighted_worker_detail(failed)  # the cursor is on the worker that failed it
    assert "health  down  killed (signal 9)" in body and "UTC  down  killed (signal 9)" in body, body


def test_the_events_say_it_too() -> None:
    snap = _completed()
    stopped = frozenset(w.name for w in snap.workers if snap.stopped_with_job(w.name))
    rows = [(e.who, e.what, e.detail, e.bad) for e in timeline([], snap.workers, None, stopped) if e.what != "healthy"]
    assert rows == [(w.name, "ended", "with the job", False) for w in snap.workers], rows


async def test_the_events_view_says_it(tmp_path: Path) -> None:
    (tmp_path / "status.jsonl").write_text(
        "".join(json.dumps({"stage": s, "time": t, "detail": ""}) + "\n"
                for s, t in (("submitted", "2026-03-01T11:00:00Z"), ("starting", "2026-03-01T11:00:05Z"),
                             ("completed", "2026-03-01T11:40:00Z")))
    )  # fmt: skip
    snap = _completed(tmp_path)
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        events = app.screen
        assert isinstance(events, EventsScreen)
        table: DataTable[object] = events.query_one(DataTable)
        rows = [" ".join(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]
        said = [r for r in rows if snap.workers[0].name in r]
        assert any("ended with the job" in r for r in said) and not any("down" in r for r in said), rows
