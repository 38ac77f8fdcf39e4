"""A step srun never started (issue 21, s34): srun refused it (a node, GPUs or memory the allocation lacks, an
`--mpi` plugin that does not load, a container option with no runtime), so its log was never written. The Problems
panel, `srt-tui status` and `l` said `no error in its log` and opened a log that does not exist; they now quote
srun's own lines from the job's Slurm output, those of that step only (the launch script names each step's srun
lines: `router: srun: error: …`). The snapshot is built by the real Monitor from a job directory as the launch
script leaves it; the real-Slurm twin is tests/e2e/test_slurm_refused_step.py."""

from __future__ import annotations

import json
from pathlib import Path

from srt_tui.monitor import cells
from srt_tui.monitor.model import JobSnapshot
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.tui.monitor.job_view import JobView
from tests.monitor.tui_apps import frozen_app

REFUSED = "router: srun: error: Unable to create step for job 12: Requested node configuration is not available"
#: the job's Slurm output as runtime.sh writes it: its own lines, each step's srun lines named by the step
SLURM_LOG = [
    "2026-03-01T11:40:00.001Z srt-tui: stage: workers starting 2 process(es) on 1 node(s)",
    "2026-03-01T11:40:00.010Z srt-tui: started worker agg_0 on node1 (pid 100, log /j/logs/agg_0.log)",
    "2026-03-01T11:40:09.000Z srt-tui: stage: router starting sglang-router",
    "2026-03-01T11:40:09.010Z srt-tui: started router router on node1 (pid 200, log /j/logs/router.log)",
    REFUSED,
    "2026-03-01T11:40:10.000Z srt-tui: stage: failed router router exited with code 1; log: /j/logs/router.log",
    "agg_0: srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",  # the cleanup stops agg_0
    "agg_0: srun: error: node1: task 0: Terminated",
]


def _refused_router(tmp_path: Path, slurm_log: list[str] = SLURM_LOG) -> Path:
    job = tmp_path / "12"
    (job / "logs").mkdir(parents=True)
    worker = {"name": "agg_0", "role": "agg", "kind": "worker", "node_index": 0, "gpus": [0], "port": 6100,
              "log": "logs/agg_0.log"}  # fmt: skip
    router = {"type": "sglang-router", "name": "router", "role": "router", "kind": "router", "node_index": 0,
              "port": 8000, "log": "logs/router.log", "expected": {"agg": 1}}  # fmt: skip
    plan = {"topology": "agg1", "nodes": 1, "gpus_per_node": 8, "processes": [worker], "router": router}
    (job / "plan.json").write_text(json.dumps(plan))
    (job / "logs" / "agg_0.log").write_text("ready: agg_0 serving on 10.0.0.1:6100\n")
    (job / "logs" / "slurm.log").write_text("\n".join(slurm_log) + "\n")  # router.log: never written
    events = [("submitted", "slurm"), ("starting", ""), ("workers healthy", "1/1"), ("router starting", ""),
              ("failed", f"router router exited with code 1; log: {job / 'logs' / 'router.log'}")]  # fmt: skip
    (job / "status.jsonl").write_text(
        "".join(json.dumps({"stage": s, "time": "2026-03-01T11:40:10Z", "detail": d}) + "\n" for s, d in events)
    )
    return job


async def _snapshot(job: Path) -> JobSnapshot:
    monitor = Monitor(None, budget_s=0.5)
    try:
        return (await monitor.refresh({job.name: job}))[0]
    finally:
        await monitor.aclose()


async def test_status_quotes_the_refused_steps_srun_lines_not_its_missing_log(tmp_path: Path) -> None:
    snap = await _snapshot(_refused_router(tmp_path))
    assert snap.stage == "failed" and snap.failure_log_missing
    lines = cells.problems(snap)  # what `srt-tui status` prints under its table, each after `12: `
    failed = lines.index(f"failed: router router exited with code 1; log: {tmp_path / '12' / 'logs' / 'router.log'}")
    assert lines[failed + 1 : failed + 3] == ["  its step never started, so it wrote no log; logs/slurm.log:",
                                              f"  {REFUSED}"], lines  # fmt: skip
    assert not any("agg_0: srun" in line or "no error in its log" in line for line in lines), lines


async def test_the_problems_panel_quotes_them_and_l_opens_the_slurm_output(tmp_path: Path) -> None:
    snap = await _snapshot(_refused_router(tmp_path))
    app = frozen_app([snap], open_job="12")
    async with app.run_test(size=(140, 36)) as pilot:
        await pilot.pause()
        panel = str(app.screen.query_one("#job-problems").render())
        assert f"router: {tmp_path / '12' / 'logs' / 'router.log'} (never written)" in panel, panel
        at = [panel.index(text) for text in ("its step never started, so it wrote no log; logs/slurm.log:", REFUSED)]
        assert at == sorted(at) and "no error in its log" not in panel and "agg_0: srun" not in panel, panel
        choice = app.screen.query_one(JobView).log_choice()
        assert choice is not None and choice[0][choice[1]].path == str(tmp_path / "12" / "logs" / "slurm.log")


async def test_a_refused_step_without_srun_lines_says_its_log_was_never_written(tmp_path: Path) -> None:
    """No line of the job's output names the step (its words lost, or an older launch script that did not name
    them): said so, never `no error in its log` about a log that does not exist, nor another step's srun line."""
    untagged = [line.removeprefix("router: ") for line in SLURM_LOG]
    snap = await _snapshot(_refused_router(tmp_path, untagged))
    assert cells.failure_lines(snap) == [
        "  its log was never written (srun exited with code 1), and logs/slurm.log has no srun line about its step"
    ]
