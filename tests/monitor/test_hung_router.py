"""A router that takes connections and sends no reply (s36 new-operator pass, `kill -STOP` of sglang-router): it read
`● down stale · registered P 0/1 D 0/2` and the stage `serving`. It reads `hung` as a worker does, keeps the
registrations it answered last (marked stale), and the job cannot serve without it: `degraded · router hung`. The
real router: tests/monitor/test_monitor_faults.py."""

from __future__ import annotations

from dataclasses import replace

from srt_tui.monitor import cells
from srt_tui.monitor.model import JobSnapshot
from srt_tui.monitor.role_health import health_json
from tests.monitor import frozen
from tests.monitor.tui_apps import router_panel_text


def _stopped_router() -> JobSnapshot:
    """The healthy H100 2P1D job with its router seen hung, its last registrations kept."""
    snap = frozen.nvidia("healthy")
    assert snap.router is not None and snap.router.registered
    detail = "not answering (stopped or overloaded?): connected, no reply within 2 s"
    return replace(snap, router=replace(snap.router, up=False, hung=True, stale=True, detail=detail))


def test_a_hung_router_degrades_the_stage_on_every_face() -> None:
    snap = _stopped_router()
    assert snap.stage == "serving"
    assert cells.stage_cell(snap) == cells.list_stage(snap) == "degraded · router hung"
    assert cells.stage_cell(snap, short=True) == "degraded"
    assert health_json(snap)["stage"] == "degraded"
    assert cells.router_cell(snap) == "hung"
    assert any(p.startswith("router sglang-router hung: not answering") for p in cells.problems(snap))
    down = replace(snap, router=replace(snap.router, hung=False))  # type: ignore[type-var]
    assert cells.stage_cell(down) == "degraded · router down"


async def test_the_panel_says_hung_and_keeps_the_registrations_stale() -> None:
    snap = _stopped_router()
    text = await router_panel_text(snap)
    lines = [x.strip() for x in text.splitlines()]
    assert lines[0] == "sglang-router ● hung", text  # not `● down stale`
    assert snap.router is not None and snap.router.registered == {"prefill": 2, "decode": 1}
    assert "registered P 2/2  D 1/1 (stale)" in lines, text  # its last answer, not `P 0/2  D 0/1`
