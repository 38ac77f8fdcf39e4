"""The Monitor's first open under load (s35, issue 21 leftovers): the first refresh (the monitor's process starting,
the job files, the Slurm query) took 3-7 s, and meanwhile the jobs list was empty under `No jobs yet`. A slow source
is shown, not waited on: the line says what is read, the job index's jobs are listed at once with their state and
stage `…`/`reading…`, and the first answer fills them in; a Slurm query that does not answer holds no row back."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from textual.widgets import DataTable, Static

from srt_tui.monitor.feeds.live import LiveFeed
from srt_tui.monitor.model import JobSnapshot
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.slurm.client import JobState
from srt_tui.state.jobindex import remember_job
from srt_tui.tui.monitor.screen import MonitorScreen
from tests.monitor import frozen
from tests.monitor.tui_apps import MonitorTestApp


class HeldFeed:
    """Answers the first refresh only once `go` is set (a monitor starting on a loaded machine), then at once."""

    def __init__(self, snapshots: Sequence[JobSnapshot]) -> None:
        self.snapshots = list(snapshots)
        self.go = asyncio.Event()
        self.asked: list[list[str]] = []

    async def refresh(self, jobs: Mapping[str, Path]) -> list[JobSnapshot]:
        self.asked.append(sorted(jobs))
        await self.go.wait()
        return [s for s in self.snapshots if s.job_id in jobs]

    async def aclose(self) -> None:
        """Nothing to release."""


class HeldSlurm:
    """A Slurm transport whose queries answer only once `go` is set (slurmctld busy): only `query` is used."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.asked = 0

    def query(self, job_ids: Sequence[str]) -> dict[str, JobState]:
        self.asked += 1
        self.go.wait(30)
        return {j: JobState(j, f"mocker-{j}", "RUNNING") for j in job_ids}


def _indexed(tmp_path: Path, job_id: str, stages: Sequence[str] = ()) -> Path:
    """A job directory as `apply` leaves it (job.json, plan.json, its events so far), in the job index."""
    job_dir = tmp_path / job_id
    job_dir.mkdir()
    (job_dir / "job.json").write_text(json.dumps({"job_id": job_id, "name": f"mocker-{job_id}", "launcher": "slurm"}))
    plan = {"version": 1, "name": f"mocker-{job_id}", "profile": "local", "topology": "agg1", "engine": "mocker",
            "frontend": "none", "nodes": 1, "gpus_per_node": 8, "processes": [], "router": None}  # fmt: skip
    (job_dir / "plan.json").write_text(json.dumps(plan))
    events = [json.dumps({"stage": s, "time": "2026-03-01T11:00:01Z", "detail": ""}) for s in stages]
    (job_dir / "status.jsonl").write_text("".join(e + "\n" for e in events))
    remember_job(job_id, job_dir)
    return job_dir


def _app(feed: Any) -> MonitorTestApp:
    """The Monitor as `srt-tui` opens it: every job of the job index, polled."""
    return MonitorTestApp(lambda hub: MonitorScreen(hub, feed, discover=True, poll_interval=0.2))


def _texts(app: Any) -> tuple[str, str, bool]:
    """The line under the list, the empty-list line and whether that one is shown."""
    status = str(app.screen.query_one("#jobs-status", Static).render())
    empty = app.screen.query_one("#jobs-empty", Static)
    return status, str(empty.render()), not empty.has_class("hidden")


def _rows(app: Any) -> dict[str, list[str]]:
    table: DataTable[Any] = app.screen.query_one("#jobs-table", DataTable)
    keys = [str(c.value) for c in table.columns]
    return {str(r.value): [str(v) for v in table.get_row(r)] for r in table.rows} | {"": keys}


async def test_the_index_jobs_are_listed_and_the_line_says_what_is_read_until_the_first_answer(
    tmp_path: Path,
) -> None:
    healthy = frozen.nvidia("healthy", "81234")
    _indexed(tmp_path, "81234")
    _indexed(tmp_path, "81240")
    feed = HeldFeed([healthy, frozen.amd("degraded", "81240")])
    app = _app(feed)
    async with app.run_test(size=(120, 36)) as pilot:
        for _ in range(50):  # the index read in its thread; the refresh it started is held
            await pilot.pause(0.05)
            if feed.asked:
                break
        await pilot.pause(0.1)
        status, empty, shown = _texts(app)
        rows = _rows(app)
        assert feed.asked == [["81234", "81240"]]
        assert not shown and "No jobs yet" not in empty, (empty, status)
        assert "reading their job files and Slurm's states…" in status, status
        keys = rows.pop("")
        assert sorted(rows) == ["81234", "81240"], rows
        for cells in rows.values():
            said = dict(zip(keys, cells))
            assert (said["slurm"], said["stage"], said["name"]) == ("…", "reading…", ""), said
        feed.go.set()
        for _ in range(50):
            await pilot.pause(0.05)
            if "reading" not in _texts(app)[0]:
                break
        status, _, _ = _texts(app)
        keys = _rows(app).pop("")
        said = dict(zip(keys, _rows(app)["81234"]))
        assert "reading" not in status and "Slurm ✓" in status, status
        assert (said["slurm"], said["stage"], said["name"]) == ("RUNNING", "serving", healthy.name), said


async def test_an_empty_index_says_no_jobs_once_it_is_read() -> None:
    feed = HeldFeed([])
    app = _app(feed)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(50):
            await pilot.pause(0.05)
            if feed.asked:
                break
        await pilot.pause(0.1)
        status, empty, shown = _texts(app)
        assert shown and empty.startswith("No jobs yet") and "reading" not in status, (empty, status)
        feed.go.set()


async def test_a_slurm_query_held_holds_no_row_back(tmp_path: Path) -> None:
    """The real Monitor (in this process) behind a Slurm transport that does not answer: within its budget the jobs
    are there with their stage from their files, and the line says Slurm has not answered; its answer fills STATE."""
    _indexed(tmp_path, "4242", ("submitted", "starting", "serving"))
    slurm = HeldSlurm()
    feed = LiveFeed(monitor_factory=lambda: Monitor(slurm, budget_s=0.3, backoff_base=0.1, backoff_cap=0.2))  # type: ignore[arg-type]
    app = _app(feed)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            said: dict[str, str] = {}
            for _ in range(100):
                await pilot.pause(0.05)
                rows = _rows(app)
                keys = rows.pop("")
                said = dict(zip(keys, rows.get("4242", [])))
                if said.get("stage") == "serving":
                    break
            status = _texts(app)[0]
            assert slurm.asked == 1 and not slurm.go.is_set()
            assert said.get("stage") == "serving" and said.get("name") == "mocker-4242", said
            assert "Slurm ✗" in status and "reading" not in status, status
            slurm.go.set()
            for _ in range(100):
                await pilot.pause(0.05)
                rows = _rows(app)
                keys = rows.pop("")
                said = dict(zip(keys, rows["4242"]))
                if said["slurm"] == "RUNNING":
                    break
            assert said["slurm"] == "RUNNING" and "Slurm ✓" in _texts(app)[0], (said, _texts(app)[0])
    finally:
        slurm.go.set()
