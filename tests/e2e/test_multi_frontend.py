"""srtctl's multi-frontend layout on the real local Slurm: Debian's nginx on the head node in front of two
real sglang-routers on the other nodes, mocker workers behind them; requests through nginx's public
port spread over both routers with zero failures, and the monitor shows every router and nginx."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from tests.cluster import ClusterInfo
from tests.conftest import REPO, require
from tests.e2e.jobtools import apply, events, send_requests, srt, status, wait_no_pids, wait_ready

pytestmark = [pytest.mark.routers]
RECIPE = str(REPO / "recipes" / "mocker" / "mocker-agg3-nginx.yaml")


@pytest.fixture
def jobs() -> Iterator[list[str]]:
    """Job ids started by a test, cancelled afterwards whatever happened."""
    require(shutil.which("nginx") is not None, "nginx on PATH (Debian package `nginx`)")
    started: list[str] = []
    yield started
    for job_id in started:
        srt("cancel", job_id, check=False)


def _counter_total(metrics_url: str, name: str) -> float:
    """A frontend's own counter `name` summed over all its labels, read independently of srt-tui."""
    text = httpx.get(metrics_url, timeout=5).text
    return sum(s.value for family in text_string_to_metric_families(text) for s in family.samples if s.name == name)


def _router_requests(metrics_url: str) -> float:
    """sglang-router's own request counter (`smg_router_requests_total`, all labels)."""
    return _counter_total(metrics_url, "smg_router_requests_total")


@pytest.mark.slurm
def test_requests_through_nginx_spread_over_the_routers(cluster: ClusterInfo, jobs: list[str]) -> None:
    job_id, job_dir = apply(RECIPE, "-p", "local", "--launcher", "slurm")
    jobs.append(job_id)
    wait_ready(job_id, timeout=300)  # the shared test cluster may be busy
    assert events(job_dir).count("router ready") == 1 and events(job_dir)[-1] == "serving"  # after nginx answered
    endpoints: dict[str, Any] = json.loads((job_dir / "endpoints.json").read_text())
    ips = {n["index"]: n["ip"] for n in endpoints["nodes"]}
    assert endpoints["public_url"] == f"http://{ips[0]}:8000" == endpoints["nginx"]["url"]
    routers = endpoints["routers"]
    assert [(r["node_index"], r["url"]) for r in routers] == [
        (1, f"http://{ips[1]}:8180"),
        (2, f"http://{ips[2]}:8180"),
    ]
    conf = (job_dir / "logs" / "nginx.conf").read_text()
    assert f"server {ips[1]}:8180 max_fails=0;" in conf and f"server {ips[2]}:8180 max_fails=0;" in conf
    before = [_router_requests(r["metrics_url"]) for r in routers]
    answered = send_requests(endpoints["public_url"], 40)  # asserts every answer is HTTP 200
    assert len(answered) == 40 and set(answered) <= {"agg_0", "agg_1", "agg_2"}
    served = [_router_requests(r["metrics_url"]) - b for r, b in zip(routers, before, strict=True)]
    assert all(n > 0 for n in served), f"requests per router: {served}"
    assert sum(served) >= 40
    errors = (job_dir / "logs" / "nginx" / "error.log").read_text().splitlines()
    assert not [e for e in errors if "[error]" in e and "POST" in e]  # start-up /health probes may have been refused
    # the monitor shows nginx as a process and every router with its registrations and own counter
    snap = _status_until(job_id, lambda s: all((r["requests"] or 0) > 0 for r in s["routers"]))
    assert snap["nginx"]["up"] is True and snap["nginx"]["node_index"] == 0
    assert [(r["name"], r["node_index"], r["up"], r["registered"]) for r in snap["routers"]] == [
        ("router", 1, True, {"agg": 3}),
        ("router_1", 2, True, {"agg": 3}),
    ]
    assert snap["requests"] == sum(r["requests"] for r in snap["routers"]) >= 40
    assert not snap["degraded"]
    assert {ref["name"] for ref in snap["logs"]} >= {"nginx", "router", "router_1"}
    text = srt("status", job_id).stdout
    assert "×2" in text  # the router cell counts the routers behind nginx


def _status_until(job_id: str, ok: Any, timeout: float = 20) -> dict[str, Any]:
    """`srt-tui status --json` until ``ok(snapshot)`` (the monitor's first probes may still be running)."""
    deadline = time.monotonic() + timeout
    snap = status(job_id)
    while not ok(snap) and time.monotonic() < deadline:
        time.sleep(1)
        snap = status(job_id)
    return snap


def test_local_launcher_runs_nginx_in_front_of_both_routers(jobs: list[str]) -> None:
    """Without Slurm too: nginx on the head node's own address, each router on its node's."""
    job_id, job_dir = apply(RECIPE, "-p", "local", "--launcher", "local")
    jobs.append(job_id)
    wait_ready(job_id, timeout=120)
    endpoints: dict[str, Any] = json.loads((job_dir / "endpoints.json").read_text())
    routers = endpoints["routers"]
    before = [_router_requests(r["metrics_url"]) for r in routers]
    assert len(send_requests(endpoints["nginx"]["url"], 20)) == 20
    served = [_router_requests(r["metrics_url"]) - b for r, b in zip(routers, before, strict=True)]
    assert all(n > 0 for n in served), f"requests per router: {served}"
    srt("cancel", job_id)
    assert wait_no_pids(job_dir) == []  # nginx's master and workers end with the job


@pytest.mark.slurm
def test_dynamo_frontends_behind_nginx_as_srtctl_runs_its_mocker_recipe(
    cluster: ClusterInfo, jobs: list[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """srtctl's `recipes/mocker/agg.yaml` on 3 nodes with srtctl's default layout: NATS/etcd and nginx on
    the head node, a real `dynamo.frontend` on each other node, requests through nginx reach both."""
    from tests.e2e.test_dynamo_jobs import RECIPE as DYNAMO_RECIPE
    from tests.e2e.test_dynamo_jobs import _require_dynamo_parts, tiny_model

    _require_dynamo_parts()
    tmp = tmp_path_factory.mktemp("dynamo-nginx")
    model = tiny_model(tmp / "tiny-model")
    profile = yaml.safe_load((REPO / "profiles" / "local.yaml").read_text())
    profile["model_paths"] = {"hf:Qwen/Qwen3-0.6B": str(model)}
    profile["containers"] = {"dynamo-sglang": "unused-engines-run-on-the-host"}
    (tmp / "local-dynamo.yaml").write_text(yaml.safe_dump(profile))
    recipe = yaml.safe_load(DYNAMO_RECIPE.read_text())
    recipe["resources"] |= {"agg_nodes": 3, "agg_workers": 3}
    recipe["frontend"] = {"type": "dynamo", "enable_multiple_frontends": True}  # srtctl's default layout
    recipe["benchmark"] = {"type": "manual"}
    (tmp / "agg3.yaml").write_text(yaml.safe_dump(recipe))
    job_id, job_dir = apply(str(tmp / "agg3.yaml"), "-p", str(tmp / "local-dynamo.yaml"), "--launcher", "slurm")
    jobs.append(job_id)
    wait_ready(job_id, timeout=300)
    endpoints: dict[str, Any] = json.loads((job_dir / "endpoints.json").read_text())
    routers = endpoints["routers"]
    assert [r["node_index"] for r in routers] == [1, 2] and endpoints["nginx"]["node_index"] == 0
    before = [_dynamo_requests(r["metrics_url"]) for r in routers]
    answered = send_requests(endpoints["public_url"], 40, model=model.name)  # every answer HTTP 200
    assert len(answered) == 40
    served = [_dynamo_requests(r["metrics_url"]) - b for r, b in zip(routers, before, strict=True)]
    assert all(n > 0 for n in served) and sum(served) >= 40, f"requests per frontend: {served}"
    snap = _status_until(job_id, lambda s: all((r["requests"] or 0) > 0 for r in s["routers"]))
    assert [(r["name"], r["up"], r["registered"]) for r in snap["routers"]] == [
        ("router", True, {"agg": 3}),
        ("router_1", True, {"agg": 3}),
    ]
    assert snap["nginx"]["up"] is True


def _dynamo_requests(metrics_url: str) -> float:
    """dynamo.frontend's own request counter (`dynamo_frontend_requests_total`, all labels)."""
    return _counter_total(metrics_url, "dynamo_frontend_requests_total")
