"""The local launcher runs a real plan on this machine without Slurm, with the real sglang-router."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.conftest import REPO
from tests.e2e.jobtools import apply, events, job_pids, send_requests, srt, status, wait_no_pids, wait_ready

pytestmark = pytest.mark.routers


def test_local_launcher_runs_2p1d_to_ready_and_cancels_cleanly() -> None:
    job_id, job_dir = apply(str(REPO / "recipes/mocker/mocker-2p1d.yaml"), "--launcher", "local", "-p", "local")
    try:
        assert job_id.startswith("local-")
        wait_ready(job_id)
        snap = status(job_id)
        assert snap["slurm_state"] == "RUNNING"
        assert snap["router"]["registered"] == {"prefill": 2, "decode": 1}
        assert {w["name"]: w["health"] for w in snap["workers"]} == {
            "prefill_0": "healthy",
            "prefill_1": "healthy",
            "decode_0": "healthy",
        }
        endpoints = json.loads((job_dir / "endpoints.json").read_text())
        answered = send_requests(endpoints["router"]["url"])
        assert set(answered) == {"decode_0"}  # P/D: the decode leg answers
        # each prefill worker really got its own half of node 0's GPUs
        urls = {w["name"]: w["url"] for w in endpoints["workers"]}
        assert (
            urls["prefill_0"].rsplit(":", 1)[0]
            == urls["prefill_1"].rsplit(":", 1)[0]
            != urls["decode_0"].rsplit(":", 1)[0]
        )  # two prefills share node 0's address, decode has node 1's
        for name, mask in (("prefill_0", "0,1,2,3"), ("prefill_1", "4,5,6,7")):
            info = httpx.get(f"{urls[name]}/server_info", timeout=5).json()["srt_mock"]
            assert info["name"] == name and info["visible_devices"] == mask
        order = events(job_dir)
        assert order.index("workers healthy") < order.index("router starting") < order.index("router ready")
    finally:
        srt("cancel", job_id)
    assert wait_no_pids(job_dir) == []
    assert status(job_id)["stage"] == "cancelled"


def test_failed_worker_fails_the_local_job_with_its_log(tmp_path: pytest.TempPathFactory) -> None:
    recipe = tmp_path / "dies.yaml"  # type: ignore[operator]
    recipe.write_text(
        "name: dies\nmodel: {path: mock-model}\nengine: mocker\n"
        "roles:\n  agg: {nodes: 1, workers: 1, args: {exit-after: 1}}\nfrontend: {type: none}\n"
    )
    job_id, job_dir = apply(str(recipe), "--launcher", "local", "-p", "local")
    proc = srt("wait", job_id, "--for", "done", "--timeout", "60", "-q", check=False, timeout=90)
    assert proc.returncode == 1
    snap = status(job_id)
    assert snap["stage"] == "failed"
    assert "agg_0" in snap["stage_detail"] and str(job_dir / "logs/agg_0.log") in snap["stage_detail"]
    assert job_pids(job_dir) == [] or wait_no_pids(job_dir) == []
