"""A job failed by a process that is not a worker (issue 21, defect 10): Dynamo's nats-server missing on a
container-less host. The Problems panel shows the failing log's one line, and `l` opens that log — not a
worker's log that does not exist. The snapshot is built by the real Monitor from a job directory."""

from __future__ import annotations

import json
from pathlib import Path

from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.tui.logs.screen import LogViewerScreen
from srt_tui.tui.monitor.job_view import JobView
from tests.monitor.tui_apps import frozen_app

LINE = "setsid: failed to execute nats-server: No such file or directory"


def _failed_job(tmp_path: Path) -> Path:
    job = tmp_path / "local-7"
    (job / "logs").mkdir(parents=True)
    worker = {"name": "agg_0", "role": "agg", "kind": "worker", "node_index": 0, "gpus": [0], "port": 6100,
              "log": "logs/agg_0.log"}  # fmt: skip
    nats = {"name": "nats", "role": "infra", "kind": "infra", "node_index": 0, "gpus": [], "port": 4222,
            "log": "logs/nats.log"}  # fmt: skip
    plan = {"topology": "agg1", "nodes": 1, "gpus_per_node": 8, "processes": [worker], "infra": [nats],
            "router": None}  # fmt: skip
    (job / "plan.json").write_text(json.dumps(plan))
    (job / "logs" / "nats.log").write_text(f"{LINE}\n")
    events = [("submitted", "local launcher"), ("starting", ""),
              ("failed", f"infra nats exited with code 127; log: {job / 'logs' / 'nats.log'}")]  # fmt: skip
    (job / "status.jsonl").write_text(
        "".join(json.dumps({"stage": s, "time": "t", "detail": d}) + "\n" for s, d in events)
    )
    return job


async def test_problems_show_the_failing_line_and_l_opens_that_log(tmp_path: Path) -> None:
    job = _failed_job(tmp_path)
    monitor = Monitor(None, budget_s=0.5)
    try:
        snap = (await monitor.refresh({"local-7": job}))[0]
    finally:
        await monitor.aclose()
    assert snap.stage == "failed" and snap.failure_line == LINE
    app = frozen_app([snap], open_job="local-7")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        panel = str(app.screen.query_one("#job-problems").render())
        assert LINE in panel
        choice = app.screen.query_one(JobView).log_choice()
        assert choice is not None and choice[0][choice[1]].name == "nats"
        await pilot.press("l")
        await pilot.pause()
        assert isinstance(app.screen, LogViewerScreen) and app.screen.ref.name == "nats"
