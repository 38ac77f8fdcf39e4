"""A job failed by a process that is not a worker (issue 21, defect 10): Dynamo's nats-server missing on a
container-less host. The Problems panel shows the failing log's one line, and `l` opens that log — not a
worker's log that does not exist. A job failed by a worker whose log goes on after its error (an engine's
shutdown lines): the panel and `srt-tui status` show that error line, not only the worker detail. The snapshot
is built by the real Monitor from a job directory."""

from __future__ import annotations

import json
from pathlib import Path

from srt_tui.monitor import cells
from srt_tui.monitor.files.jobfiles import error_line
from srt_tui.monitor.model import JobSnapshot
from srt_tui.monitor.snapshot.build import failing_tail
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


ARGPARSE = "main.py: error: unrecognized arguments: --bogus-flag"
#: what an engine may still print after the line that says why it stops
SHUTDOWN = [
    "[2026-03-01 11:40:01] INFO shutting down the scheduler",
    "[2026-03-01 11:40:01] INFO releasing 8 TP ranks",
    "[2026-03-01 11:40:02] INFO tokenizer manager stopped",
    "[2026-03-01 11:40:02] INFO bye",
]


def _failed_by_a_worker(tmp_path: Path) -> Path:
    job = tmp_path / "local-8"
    (job / "logs").mkdir(parents=True)
    worker = {"name": "decode_0", "role": "decode", "kind": "worker", "node_index": 0, "gpus": [0], "port": 6100,
              "log": "logs/decode_0.log"}  # fmt: skip
    plan = {"topology": "agg1", "nodes": 1, "gpus_per_node": 8, "processes": [worker], "router": None}
    (job / "plan.json").write_text(json.dumps(plan))
    usage = "usage: main.py [-h] [--model-path MODEL_PATH] [--tp-size TP_SIZE]"
    (job / "logs" / "decode_0.log").write_text("\n".join([usage, ARGPARSE, *SHUTDOWN]) + "\n")
    events = [("submitted", "local launcher"), ("starting", ""),
              ("failed", f"worker decode_0 exited with code 2; log: {job / 'logs' / 'decode_0.log'}")]  # fmt: skip
    (job / "status.jsonl").write_text(
        "".join(json.dumps({"stage": s, "time": "t", "detail": d}) + "\n" for s, d in events)
    )
    return job


async def _snapshot(job_id: str, job: Path) -> JobSnapshot:
    monitor = Monitor(None, budget_s=0.5)
    try:
        return (await monitor.refresh({job_id: job}))[0]
    finally:
        await monitor.aclose()


async def test_the_failing_workers_error_line_is_in_the_problems_panel(tmp_path: Path) -> None:
    """The panel showed the failing worker's last three lines: the engine's shutdown chatter, the error above it
    only in the worker detail. Its error line now comes first, in the panel, with the last lines under it."""
    snap = await _snapshot("local-8", _failed_by_a_worker(tmp_path))
    assert snap.failing_worker == "decode_0" and snap.failure_line == ARGPARSE
    app = frozen_app([snap], open_job="local-8")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        panel = str(app.screen.query_one("#job-problems").render())
        assert ARGPARSE in panel, panel
        assert panel.index("decode_0:") < panel.index(ARGPARSE) < panel.index(SHUTDOWN[-1]), panel
        assert panel.count(ARGPARSE) == 1, panel


async def test_status_says_the_failing_workers_error_line(tmp_path: Path) -> None:
    """`srt-tui status JOB` prints `cells.problems`: the failure's sentence, then the log's line that says why."""
    snap = await _snapshot("local-8", _failed_by_a_worker(tmp_path))
    lines = cells.problems(snap)
    failed = next(i for i, line in enumerate(lines) if line.startswith("failed: worker decode_0 exited with code 2"))
    assert lines[failed + 1] == f"  {ARGPARSE}", lines
    assert ARGPARSE not in "".join(cells.problems(snap, with_log=False)), "the panel adds it itself"


def test_the_failure_line_is_plain_text(tmp_path: Path) -> None:
    """An engine's coloured log line: the failure line keeps its words, not its escape sequences."""
    log = tmp_path / "decode_0.log"
    log.write_text(f"\x1b[1;31mERROR\x1b[0m {ARGPARSE}\nbye\n")
    from srt_tui.monitor.model import LogRef

    assert error_line(failing_tail(str(log), (LogRef("decode_0", "worker", str(log)),))) == f"ERROR {ARGPARSE}"
