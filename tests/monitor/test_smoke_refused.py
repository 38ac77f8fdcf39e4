"""`b` (smoke test) says why when it cannot run (issue 21, new-operator pass op11): on a job at stage `router
starting`, and on a cancelled or ended job, `b` showed nothing (no toast, no smoke line), where `srt-tui bench`
refuses with the reason. Now a toast says it in `bench`'s words (`job 81234 is not serving yet (stage router
starting)`, `job 81234 has ended (cancelled at …)`), no smoke test is sent, and the footer of an ended job's view
offers `C Clone`, not `b Smoke`."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

import pytest

from srt_tui.monitor.model import JobSnapshot
from srt_tui.monitor.probes.smoke import not_serving
from srt_tui.tui.monitor.job_view import JobView
from srt_tui.tui.monitor.screen import MonitorScreen
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import settle

RUNNING = frozen.nvidia("healthy", "81234")
CASES = {
    "router-starting": (
        replace(RUNNING, stage="router starting", stage_detail="sglang-router router on node 0"),
        "No smoke test: job 81234 is not serving yet (stage router starting).",
    ),
    "queued": (
        replace(RUNNING, stage="pending", slurm_state="PENDING", started_at=""),
        "No smoke test: job 81234 is not serving yet (stage pending).",
    ),
    "cancelled": (
        replace(RUNNING, stage="cancelled", slurm_state="CANCELLED", ended_at="2026-03-01T11:58:00Z"),
        "No smoke test: job 81234 has ended (cancelled at ",
    ),
}


def _footer_keys(screen: MonitorScreen) -> set[str]:
    """The keys the footer offers (a hidden binding, as `b` where no smoke test runs, is not offered)."""
    return {key for key, active in screen.active_bindings.items() if active.binding.show}


@pytest.mark.parametrize("case", list(CASES))
async def test_b_says_why_no_smoke_test_runs(case: str) -> None:
    snap, said = CASES[case]
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MonitorScreen) and screen.in_job_view
        await pilot.press("b")
        await settle(pilot)
        toasts = [(str(n.message), n.severity) for n in app._notifications]
        assert len(toasts) == 1 and toasts[0][0].startswith(said) and toasts[0][1] == "warning", toasts
        assert not screen.query_one(JobView).smoke  # nothing was sent: no smoke line
        assert not [w for w in app.workers if w.name == "smoke"]
        if snap.is_final:  # an ended job's view offers Clone, never Smoke
            assert "C" in _footer_keys(screen) and "b" not in _footer_keys(screen)


async def test_b_on_the_jobs_list_says_where_it_runs() -> None:
    app = frozen_app([RUNNING])
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        assert [str(n.message) for n in app._notifications] == [
            "The smoke test (b) runs from a job's view: Enter opens the highlighted job."
        ]


def test_not_serving_is_bench_s_reason_from_the_snapshot_alone() -> None:
    now = datetime.now().astimezone()
    snaps: dict[str, JobSnapshot] = {name: snap for name, (snap, _) in CASES.items()}
    assert not_serving(RUNNING, now) is None
    starting = not_serving(snaps["router-starting"], now)
    assert starting is not None and starting.message == "job 81234 is not serving yet (stage router starting)"
    assert starting.fix == "srt-tui wait 81234 --for ready"
    ended: Any = not_serving(snaps["cancelled"], now)
    assert ended.message.startswith("job 81234 has ended (cancelled at ") and "submit it again" in ended.fix
