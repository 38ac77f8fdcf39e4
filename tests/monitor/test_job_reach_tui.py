"""The job view's reach keys against a real mock worker's job (the real Monitor polling it): `b` runs the
smoke test in a worker and shows its figures, `y` copies the SSH port-forward line, the worker detail's
`s` runs a shell on the worker's node with the app suspended; Ctrl-C quits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App

from srt_tui.monitor.feeds.live import LiveFeed
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.slurm.reach import ShellCommand
from srt_tui.tui.monitor.job_view import JobView
from srt_tui.tui.monitor.screen import MonitorScreen
from srt_tui.tui.monitor.worker_detail import WorkerDetail
from tests.mock.mockprocs import Worker
from tests.monitor import frozen
from tests.monitor.jobdirs import write_agg_job
from tests.monitor.tui_apps import fed_app, frozen_app


async def _open_serving(app: Any, pilot: Any, job: str) -> MonitorScreen:
    screen = app.screen
    assert isinstance(screen, MonitorScreen)
    for _ in range(50):
        await pilot.pause(0.1)
        snap = screen.snapshot_of(job)
        if snap is not None and snap.is_ready and snap.workers[0].health == "healthy":
            break
    screen.open_job(job)
    await pilot.pause()
    return screen


def _feed() -> LiveFeed:
    return LiveFeed(monitor_factory=lambda: Monitor(None, connect_timeout=0.5, budget_s=0.5, backoff_cap=0.5))


async def test_b_smoke_tests_the_job_and_y_copies_the_forward_line(worker: Worker, tmp_path: Path) -> None:
    job = write_agg_job(tmp_path / "job", "local-rt1", [(worker, 0)], nodes=1)
    app = fed_app(_feed(), {"local-rt1": job}, interval=0.3)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open_serving(app, pilot, "local-rt1")
        await pilot.press("b")
        view = screen.query_one(JobView)
        for _ in range(100):
            await pilot.pause(0.1)
            if view.smoke["local-rt1"].startswith(("✓", "✗")):  # while it runs: its live line
                break
        line = view.smoke["local-rt1"]
        assert line.startswith("✓ 20/20 ok, 0 failed · latency p50 "), line
        assert "smoke test ✓ 20/20 ok" in str(view.query_one("#job-summary").render())
        await pilot.press("y")
        port = worker.url.rsplit(":", 1)[1]
        assert app.clipboard == f"ssh -N -L {port}:127.0.0.1:{port} me@login"


async def test_b_on_a_job_that_does_not_serve_says_why() -> None:
    snap = frozen.nvidia("healthy")
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("b")
        view = app.screen.query_one(JobView)
        for _ in range(50):
            await pilot.pause(0.1)
            if view.smoke[snap.job_id].startswith(("✓", "✗")):
                break
        # the frozen job's directory does not exist: no endpoints.json to read its URL from
        assert view.smoke[snap.job_id].startswith(f"✗ job {snap.job_id}: endpoints.json: missing")


async def test_s_in_the_worker_detail_runs_a_shell_in_the_job_directory(
    worker: Worker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[ShellCommand] = []

    def record(app: App[object], shell: ShellCommand) -> int:
        ran.append(shell)
        return 0

    monkeypatch.setattr(WorkerDetail, "run_shell", staticmethod(record))
    job = write_agg_job(tmp_path / "job", "local-rt2", [(worker, 0)], nodes=1)
    app = fed_app(_feed(), {"local-rt2": job}, interval=0.3)
    async with app.run_test(size=(120, 36)) as pilot:
        await _open_serving(app, pilot, "local-rt2")
        await pilot.press("enter")
        detail = app.screen
        assert isinstance(detail, WorkerDetail)
        for _ in range(30):
            await pilot.pause(0.1)
            if detail.shell is not None:
                break
        assert "bash -i" in " ".join(str(detail.query_one("#worker-detail-text").render()).split())  # maybe wrapped
        await pilot.press("s")
        await pilot.pause()
    assert [(s.argv, s.cwd, s.env["SRT_JOB_ID"]) for s in ran] == [(("bash", "-i"), str(job), "local-rt2")]


async def test_s_where_the_terminal_cannot_be_handed_over_copies_the_command(worker: Worker, tmp_path: Path) -> None:
    """The headless test driver cannot suspend, like Textual Web: the command is copied and said instead."""
    job = write_agg_job(tmp_path / "job", "local-rt3", [(worker, 0)], nodes=1)
    app = fed_app(_feed(), {"local-rt3": job}, interval=0.3)
    async with app.run_test(size=(120, 36)) as pilot:
        await _open_serving(app, pilot, "local-rt3")
        await pilot.press("enter")
        for _ in range(30):
            await pilot.pause(0.1)
            if isinstance(app.screen, WorkerDetail) and app.screen.shell is not None:
                break
        await pilot.press("s")
        await pilot.pause()
        assert app.clipboard.endswith("bash -i") and "SRT_JOB_ID=local-rt3" in app.clipboard


async def test_ctrl_c_quits_even_from_a_text_field() -> None:
    app = frozen_app(frozen.fleet())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("slash")  # the jobs filter field has the focus
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.return_code == 0 and not app.is_running


def test_the_summarys_requests_say_whose_counters_they_are() -> None:
    """Issue 21 item 12: the job line's `req N` and the router panel's `requests N` were unlabelled."""
    from dataclasses import replace

    from srt_tui.tui.monitor.job_view import requests_origin

    snap = frozen.nvidia("healthy")
    assert requests_origin(snap) == "router" and snap.serving_url == snap.router.url  # type: ignore[union-attr]
    no_router = replace(snap, router=None, routers=())
    assert requests_origin(no_router) == "workers" and no_router.serving_url is None  # three workers, no front
    assert requests_origin(replace(snap, stage="completed")) == ""  # no results, nothing kept
    assert replace(snap, stage="starting").serving_url is None


def test_an_ended_jobs_requests_and_the_routers_total_are_named_apart() -> None:
    """Issue 21 polish: an ended job read `requests 30` in its summary and `requests 43` in its router panel (the
    benchmark's measured requests vs the router's total with warm-up and smoke), with nothing saying which."""
    from dataclasses import replace
    from datetime import datetime, timezone

    from rich.style import Style

    from srt_tui.tui.monitor.job_view import summary

    snap = frozen.nvidia("healthy")
    ended = replace(snap, stage="completed", slurm_state="COMPLETED", requests=30.0, requests_from="benchmark")
    text = summary(ended, datetime.now(timezone.utc), lambda _: Style()).plain
    # the benchmark's own: completed of its total (its 4 failures); the router's 3650 (warm-up and smoke too) is its
    # panel's, never beside it (`benchmark 30 of 3.6k routed` read as two counts of one thing)
    assert "benchmark 26/30 completed, 4 failed" in text and "3.6k" not in text and "routed" not in text, text
    clean = replace(ended, errors=0.0)
    assert "benchmark 30/30 completed ·" in summary(clean, datetime.now(timezone.utc), lambda _: Style()).plain
    kept = replace(ended, requests_from="last seen")
    assert "requests 30, errors 4 (last seen)" in summary(kept, datetime.now(timezone.utc), lambda _: Style()).plain


async def test_read_only_hides_the_shell(worker: Worker, tmp_path: Path) -> None:
    from textual.widgets import DataTable

    job = write_agg_job(tmp_path / "job", "local-rt4", [(worker, 0)], nodes=1)
    snap = frozen.frozen_job("local-rt4", "mocker/mocker-agg2.yaml", "local", job_dir=job)
    app = frozen_app([snap], open_job="local-rt4", read_only=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        app.screen.query_one("#job-workers", DataTable).focus()
        await pilot.press("enter")
        detail = app.screen
        assert isinstance(detail, WorkerDetail) and detail.read_only
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "shell" not in {b.binding.action for b in detail.active_bindings.values() if b.enabled}
        assert "bash -i" not in str(detail.query_one("#worker-detail-text").render())
