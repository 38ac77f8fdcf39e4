"""The job view's stage never lags what its router panel shows (issue 21, new-operator pass op11): the header said
`stage router starting` for seconds while the router panel already read `● up, registered P 1/1 D 2/2`. The launch
script writes `router ready` when its own wait next asks the router (at the job's health-check interval, after
relaying every worker's figures); the Monitor asks every 2 s. Measured on the local Slurm (mocker-1p2d behind
sglang-router, the real Monitor refreshing every 2 s): at srtctl's default interval, 10 s, five refreshes in a row
(10 s) said `router starting` with every worker registered; at the demo profiles' 1 s the job wrote it 0.3-1.1 s
after the router listed every worker, and 1 run in 5 showed one such refresh. The stage shown is now the further of
the two, `router ready  P 1/1 D 2/2 (seen by the Monitor)`, until the job's own event replaces it."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from srt_tui.cli.jobs import ready_by_its_word, snapshot_json
from srt_tui.monitor import cells
from srt_tui.monitor.model import JobSnapshot, ProxyStatus, RouterStatus
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.monitor.statuses.stage import seen_ready
from tests.conftest import require
from tests.monitor.jobdirs import PdJob, refresh_until, start_pd_job

UP = RouterStatus("sglang-router", "http://r:8000", up=True, expected={"prefill": 1, "decode": 2},
                  registered={"decode": 2, "prefill": 1}, registration="router-workers")  # fmt: skip


def test_the_monitor_s_own_view_moves_the_stage_on_only_when_it_sees_all_the_job_waits_for() -> None:
    assert seen_ready("router starting", (UP,), None) == ("router ready", "P 1/1 D 2/2 (seen by the Monitor)")
    for later in ("router ready", "serving", "workers healthy", "failed"):  # only the stage the job waits in
        assert seen_ready(later, (UP,), None) is None
    missing = replace(UP, registered={"prefill": 1, "decode": 1})
    for not_yet in (missing, replace(UP, up=None), replace(UP, up=False), replace(UP, stale=True)):
        assert seen_ready("router starting", (not_yet,), None) is None, not_yet
    assert seen_ready("router starting", (), None) is None  # no router: the job says when it is ready
    health_only = replace(UP, registration="worker-health", registered={})
    assert seen_ready("router starting", (health_only,), None) == ("router ready", "health 200 (seen by the Monitor)")
    # behind nginx: every router registered and nginx answering, as the job's last wait is nginx's
    two = (UP, replace(UP, name="router_1"))
    nginx = ProxyStatus("nginx", "http://n:8080", up=True)
    assert seen_ready("router starting", two, nginx) == (
        "router ready",
        "2 routers registered their workers, nginx answers (seen by the Monitor)",
    )
    assert seen_ready("router starting", two, replace(nginx, up=None)) is None
    assert seen_ready("router starting", (UP, replace(UP, name="router_1", registered={})), nginx) is None


def test_the_job_s_own_stage_and_the_one_shown_are_chosen_in_one_place() -> None:
    """Every face shows `stage` (the Monitor's `router ready` a poll ahead); `wait --for ready` asks
    `stage_by(seen_by_monitor=False)`, the job's own word; `status --json` says which one `stage` is."""
    seen = JobSnapshot(
        job_id="7", job_dir="/j/7", name="j", profile="p", topology="1P2D", launcher="slurm", slurm_state="RUNNING",
        slurm_reason="", stage="router ready", stage_time="t", stage_detail="P 1/1 D 2/2 (seen by the Monitor)",
        router=UP, own_stage="router starting",
    )  # fmt: skip
    assert seen.is_ready and seen.stage_by(seen_by_monitor=True) == "router ready"
    assert seen.stage_by(seen_by_monitor=False) == "router starting" and not ready_by_its_word(seen)
    assert snapshot_json(seen)["stage_seen"] is True
    own = replace(seen, stage_detail="P 1/1 D 2/2", own_stage="")
    assert own.stage_by(seen_by_monitor=False) == "router ready" and ready_by_its_word(own)
    assert snapshot_json(own)["stage_seen"] is False


@pytest.fixture(scope="module")
def job(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PdJob]:
    """A 1P2D job of real mock workers behind the real sglang-router, its last event `router starting` (the
    script's wait has not asked the router again yet)."""
    require(importlib.util.find_spec("sglang_router") is not None, "sglang-router is not installed")
    pd = start_pd_job(tmp_path_factory.mktemp("jobs") / "local-rs", "local-rs")
    events = [("submitted", ""), ("starting", ""), ("workers healthy", "3/3"),
              ("router starting", "sglang-router router on node 0")]  # fmt: skip
    _write_events(pd.dir, events)
    try:
        yield pd
    finally:
        pd.launcher.close()


def _write_events(job_dir: Path, events: list[tuple[str, str]]) -> None:
    with open(job_dir / "status.jsonl", "w") as fh:
        for stage, detail in events:
            fh.write(json.dumps({"stage": stage, "time": "2026-03-01T11:00:01Z", "detail": detail}) + "\n")


@pytest.mark.routers
async def test_the_header_says_router_ready_once_the_router_panel_shows_every_worker_registered(job: PdJob) -> None:
    monitor = Monitor(None, http_timeout=2.0, connect_timeout=0.5, budget_s=1.0, backoff_base=0.2, backoff_cap=0.5)
    try:
        jobs = {job.dir.name: job.dir}
        snap, _ = await refresh_until(lambda: monitor.refresh(jobs), lambda s: s.router is not None and
                                      s.router.up is True and s.router.all_registered, 30)  # fmt: skip
        assert snap.stage == "router ready" and snap.is_ready, (snap.stage, snap.stage_detail)
        assert cells.stage_cell(snap) == "router ready"
        assert snap.stage_detail == "P 1/1 D 2/2 (seen by the Monitor)"
        assert snap.serving_url == job.router.url  # `b` and the URL line follow the stage shown
        assert snap.stage_seen and not ready_by_its_word(snap)  # `wait --for ready` waits for the job's own word
        # the job's own event, when its wait writes it, is what the header says from then on
        with open(job.dir / "status.jsonl", "a") as fh:
            fh.write(json.dumps({"stage": "router ready", "time": "t", "detail": "P 1/1 D 2/2 A 0/0"}) + "\n")
        snap = (await monitor.refresh(jobs))[0]
        assert (snap.stage, snap.stage_detail) == ("router ready", "P 1/1 D 2/2 A 0/0")
        assert not snap.stage_seen and ready_by_its_word(snap)
    finally:
        await monitor.aclose()
