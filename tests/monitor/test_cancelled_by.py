"""A job srt-tui cancelled reads so in the Monitor and `status` (operator report: `stopped by a signal (scancel,
srt-tui cancel or time limit)` after a cancel from the TUI): the job's cancel.json, read by the real Monitor,
names what cancelled it and when; the job view's state line and `status` say it once."""

from __future__ import annotations

import json
from pathlib import Path

from srt_tui.core.jobdir.contract import CancelDoc, JobMeta, write_cancel, write_job_meta
from srt_tui.monitor import cells
from srt_tui.monitor.snapshot.collect import Monitor
from tests.monitor.tui_apps import frozen_app

GUESS = "stopped by a signal (scancel, srt-tui cancel or time limit)"


def _cancelled_job(tmp_path: Path, record: bool) -> Path:
    job = tmp_path / "local-11"
    (job / "logs").mkdir(parents=True)
    write_job_meta(job, JobMeta("local-11", name="mocker-agg", launcher="local"))
    worker = {"name": "agg_0", "role": "agg", "kind": "worker", "node_index": 0, "gpus": [0], "port": 6100,
              "log": "logs/agg_0.log"}  # fmt: skip
    plan = {"topology": "agg1", "nodes": 1, "gpus_per_node": 8, "processes": [worker], "router": None}
    (job / "plan.json").write_text(json.dumps(plan))
    events = [("submitted", "local launcher"), ("starting", ""), ("cancelled", GUESS)]
    (job / "status.jsonl").write_text(
        "".join(json.dumps({"stage": s, "time": "2026-03-01T12:03:10Z", "detail": d}) + "\n" for s, d in events)
    )
    if record:
        write_cancel(job, CancelDoc("the srt-tui Monitor", "2026-03-01T12:03:09Z"))
    return job


async def test_a_job_srt_tui_cancelled_says_so(tmp_path: Path) -> None:
    monitor = Monitor(None, budget_s=0.5)
    try:
        (guessed,) = await monitor.refresh({"local-11": _cancelled_job(tmp_path / "a", record=False)})
        (said,) = await monitor.refresh({"local-11": _cancelled_job(tmp_path / "b", record=True)})
    finally:
        await monitor.aclose()
    assert guessed.stage == "cancelled" and guessed.stage_detail == GUESS  # cancelled elsewhere: the guess
    words = "cancelled with the srt-tui Monitor at 12:03 UTC"
    assert said.stage == "cancelled" and said.stage_detail == words
    assert cells.problems(said)[0] == words  # `status`: once, not `cancelled: cancelled with …`
    app = frozen_app([said], open_job="local-11")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        summary = str(app.screen.query_one("#job-summary").render())
        assert "stage cancelled with the srt-tui Monitor at 12:03 UTC" in summary, summary
        assert "signal" not in summary, summary
