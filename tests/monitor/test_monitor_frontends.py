"""srtctl's multi-frontend layout in the monitor: nginx as a process and every router behind it, each with
its registrations and request counter, in the job view's router panel, the problems and the totals."""

from __future__ import annotations

from dataclasses import replace

from rich.console import Console

from srt_tui.monitor import cells
from srt_tui.monitor.model import JobSnapshot, ProxyStatus
from srt_tui.monitor.snapshot.build import job_totals
from srt_tui.tui.monitor.router_panel import RouterPanel
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app


def _nginx_job(second_up: bool = True) -> JobSnapshot:
    snap = frozen.frozen_job("90001", "mocker/mocker-agg3-nginx.yaml", "local")
    first = snap.router
    assert first is not None
    first = replace(first, name="router", node_index=1, requests=30.0, errors=0.0)
    second = replace(first, name="router_1", node_index=2, requests=12.0, up=second_up)
    if not second_up:
        second = replace(second, detail="down: connection refused", registered={})
    nginx = ProxyStatus("nginx", "http://10.1.0.11:8000", 0, True, upstreams=("http://10.1.0.12:8180",))
    requests, errors, rate = job_totals(snap.workers, first, (first, second))
    return replace(snap, router=first, routers=(first, second), nginx=nginx, requests=requests, errors=errors)


def test_totals_sum_the_routers_and_a_down_router_is_a_problem() -> None:
    snap = _nginx_job()
    assert snap.requests == 42.0 and not snap.degraded
    assert cells.router_cell(snap) == "up A3/3 ×2"
    down = _nginx_job(second_up=False)
    assert down.degraded and cells.router_cell(down).startswith("down")
    assert any(p.startswith("router_1 sglang-router down: down: connection refused") for p in cells.problems(down))


async def test_router_panel_lists_nginx_and_each_router() -> None:
    snap = _nginx_job()
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        panel = app.screen.query_one(RouterPanel)
        console = Console(width=60, record=True, color_system=None)
        console.print(panel.render())
        text = console.export_text()
    assert "nginx ● node0 → 2 routers" in text
    lines = [x.strip() for x in text.splitlines()]
    assert any(x.startswith("router ● node1") and x.endswith("routed 30") for x in lines), text
    assert any(x.startswith("router_1 ● node2") and x.endswith("routed 12") for x in lines), text
