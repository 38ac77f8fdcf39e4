"""srtctl's multi-frontend layout in the monitor: nginx as a process and every router behind it, each with
its registrations and request counter, in the job view's router panel, the problems and the totals."""

from __future__ import annotations

from dataclasses import replace

from rich.console import Console

from srt_tui.monitor import cells
from srt_tui.monitor.model import JobSnapshot, ProxyStatus
from srt_tui.monitor.snapshot.build import job_totals
from srt_tui.monitor.statuses.router import nginx_behind
from srt_tui.tui.monitor.router_panel import RouterPanel
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app, router_panel_text


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
    # the nodes as the GPU grid and slurm.log name them (s36 new-operator pass: the panel said the plan's `node0`)
    host = [cells.node_label(snap, i) for i in range(3)]
    assert host == ["local-017", "local-018", "local-019"]
    assert f"nginx ● {host[0]} → 2 routers" in text
    lines = [x.strip() for x in text.splitlines()]
    assert any(x.startswith(f"router ● {host[1]}") and x.endswith("routed 30") for x in lines), text
    assert any(x.startswith(f"router_1 ● {host[2]}") and x.endswith("routed 12") for x in lines), text


def _hung_second() -> JobSnapshot:
    """router_1 stopped (`kill -STOP`): it takes connections and never replies, and so does nginx's /health when
    it passes the request to router_1."""
    snap = _nginx_job()
    first, second = snap.routers
    second = replace(second, up=False, hung=True, stale=True, detail="not answering (stopped or overloaded?): x")
    assert snap.nginx is not None
    silent = replace(snap.nginx, up=False, hung=True, stale=True, detail="not answering (stopped or overloaded?): y")
    nginx, problem = nginx_behind(silent, "nginx: connected, no reply within 2 s", (first, second))
    return replace(snap, routers=(first, second), nginx=nginx)


def test_a_hung_router_behind_nginx_is_blamed_not_nginx() -> None:
    """s36 new-operator pass: with router_1 stopped the panel said nginx `unreachable` and router_1 `down`."""
    snap = _hung_second()
    assert snap.nginx is not None and snap.nginx.state == "unknown"
    assert snap.nginx.detail == "no reply through nginx: router_1 hung behind it"
    assert nginx_behind(snap.nginx, "nginx: x", snap.routers)[1] == ""  # the router's own problem says it
    said = cells.problems(snap)
    assert any(p.startswith("router_1 sglang-router hung: not answering") for p in said), said
    assert not any(p.startswith("nginx") for p in said), said
    assert cells.stage_cell(snap) == "serving · router_1 hung"  # router serves: fewer, not degraded
    both = replace(snap, routers=tuple(replace(r, up=False, hung=True) for r in snap.routers))
    assert cells.stage_cell(both) == "degraded · router hung, router_1 hung"
    refused = replace(snap.nginx, up=False, hung=False, detail="down: connection refused")
    assert nginx_behind(refused, "nginx: refused", snap.routers) == (refused, "nginx: refused")  # its own fault


async def test_the_panel_says_a_hung_router_behind_nginx() -> None:
    snap = _hung_second()
    text = await router_panel_text(snap)
    lines = [x.strip() for x in text.splitlines()]
    assert any(x.startswith("router_1 ● local-019  hung  routed") for x in lines), text
    assert "nginx ● local-017 → 2 routers  no reply through nginx: router_1 hung behind it" in lines, text
