"""srtctl's multi-frontend layout on the real local Slurm: Debian's nginx on the head node in front of two
real sglang-routers on the other nodes, mocker workers behind them; requests through nginx's public
port spread over both routers with zero failures, and the monitor shows every router and nginx."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import REPO, require
from tests.e2e.jobtools import apply, send_requests, srt, wait_ready

pytestmark = [pytest.mark.slurm, pytest.mark.routers]
RECIPE = str(REPO / "recipes" / "mocker" / "mocker-agg3-nginx.yaml")


@pytest.fixture
def jobs() -> Iterator[list[str]]:
    """Job ids started by a test, cancelled afterwards whatever happened."""
    from tests.cluster import ensure_local_slurm

    require(shutil.which("nginx") is not None, "nginx on PATH (Debian package `nginx`)")
    ensure_local_slurm(nodes=3)
    started: list[str] = []
    yield started
    for job_id in started:
        srt("cancel", job_id, check=False)


def _router_requests(metrics_url: str) -> float:
    """sglang-router's own request counter (`smg_router_requests_total`, all labels), read independently."""
    text = httpx.get(metrics_url, timeout=5).text
    return sum(
        s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if s.name == "smg_router_requests_total"
    )


def test_requests_through_nginx_spread_over_the_routers(jobs: list[str]) -> None:
    job_id, job_dir = apply(RECIPE, "-p", "local", "--launcher", "slurm")
    jobs.append(job_id)
    wait_ready(job_id, timeout=300)  # the shared test cluster may be busy
    endpoints: dict[str, Any] = json.loads((job_dir / "endpoints.json").read_text())
    ips = {n["index"]: n["ip"] for n in endpoints["nodes"]}
    assert endpoints["public_url"] == f"http://{ips[0]}:8000" == endpoints["nginx"]["url"]
    routers = endpoints["routers"]
    assert [(r["node_index"], r["url"]) for r in routers] == [
        (1, f"http://{ips[1]}:8180"),
        (2, f"http://{ips[2]}:8180"),
    ]
    conf = (job_dir / "logs" / "nginx.conf").read_text()
    assert f"server {ips[1]}:8180;" in conf and f"server {ips[2]}:8180;" in conf
    before = [_router_requests(r["metrics_url"]) for r in routers]
    answered = send_requests(endpoints["public_url"], 40)  # asserts every answer is HTTP 200
    assert len(answered) == 40 and set(answered) <= {"agg_0", "agg_1", "agg_2"}
    served = [_router_requests(r["metrics_url"]) - b for r, b in zip(routers, before, strict=True)]
    assert all(n > 0 for n in served), f"requests per router: {served}"
    assert sum(served) >= 40
    assert not (job_dir / "logs" / "nginx" / "error.log").read_text().count("[error]")
