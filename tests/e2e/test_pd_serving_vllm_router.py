"""A P/D job behind the real vllm-router, whose flow is sequential (the prefill answers, then the decode starts):
the TTFT and E2E `srt-tui status --json` shows for the job add the prefill's time to answer to the decode's, and
so agree with what a streaming client through the router measured (each mean within 20 %). A vLLM decode's own
TTFT, the mock's as vLLM's, starts only when the router sends it the request: alone it reads about 0."""

from __future__ import annotations

import importlib.util
import json
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, require
from tests.e2e.jobtools import apply, job_story, srt, status, wait_no_pids, wait_ready

pytestmark = pytest.mark.routers

RECIPE = REPO / "recipes" / "mocker" / "mocker-2p1d-vllm-router.yaml"
#: the prefills' pretend compute: long against the router's hop and the mocks' own overhead (a few ms)
PREFILL_MS = 150
REQUESTS = 24


def _off(shown: float | None, measured_ms: float) -> float:
    assert shown is not None, "status shows no figure"
    return abs(shown * 1000 - measured_ms) / measured_ms


def test_a_vllm_router_jobs_ttft_adds_its_prefill(tmp_path: Path) -> None:
    require(importlib.util.find_spec("vllm_router") is not None, "vllm_router is not installed")
    recipe = tmp_path / "mocker-2p1d-vllm-router.yaml"
    text = RECIPE.read_text()
    assert text.count("args: {tp-size: 4}") == 1  # the prefill role's
    recipe.write_text(text.replace("args: {tp-size: 4}", f"args: {{tp-size: 4, latency-ms: {PREFILL_MS}}}"))
    job_id, job_dir = apply(str(recipe), "--launcher", "local", "-p", "local")
    try:
        plan = json.loads((job_dir / "plan.json").read_text())
        assert plan["router"]["pd_flow"] == "sequential"
        wait_ready(job_id)
        router = json.loads((job_dir / "endpoints.json").read_text())["router"]["url"]
        status(job_id)  # the first scrape: `status` keeps its samples for the next run
        out = tmp_path / "bench.json"
        argv = [sys.executable, "-m", "srt_tui.mock", "bench", "--url", router, "--isl", "16", "--osl", "4"]
        argv += ["--concurrencies", "2", "--num-prompts-mult", str(REQUESTS // 2), "--stream", "--out", str(out)]
        result = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        level = json.loads(out.read_text())["results"][0]
        assert level["ok"] == REQUESTS, level["error_samples"]
        snap = status(job_id)  # the window: every request of the load, and nothing else
        serving = snap["serving"]
        assert serving is not None, f"{snap}\n{job_story(job_dir)}"
        client_ttft = statistics.mean(ttft for _, _, ttft in level["finished"])
        client_e2e = level["latency_ms"]["mean"]
        decodes = [w["serving"] for w in snap["workers"] if w["role"] == "decode"]
        prefills = [w["serving"] for w in snap["workers"] if w["role"] == "prefill"]
        print(
            f"client TTFT mean {client_ttft:.1f} ms, E2E {client_e2e:.1f} ms; job TTFT mean "
            f"{serving['ttft_mean_s'] * 1000:.1f} ms p50 {serving['ttft_p50_s'] * 1000:.1f} ms p99 "
            f"{serving['ttft_p99_s'] * 1000:.1f} ms, E2E mean {serving['e2e_mean_s'] * 1000:.1f} ms; decode's own TTFT "
            f"mean {decodes[0]['ttft_mean_s'] * 1000:.3f} ms; prefills' E2E mean "
            f"{[round(p['e2e_mean_s'] * 1000, 1) for p in prefills]} ms"
        )
        assert decodes[0]["ttft_mean_s"] * 1000 < PREFILL_MS / 10  # the decode's own TTFT excludes the prefill
        assert _off(serving["ttft_mean_s"], client_ttft) <= 0.20, (serving, client_ttft)
        assert _off(serving["e2e_mean_s"], client_e2e) <= 0.20, (serving, client_e2e)
        # the quantiles are the two legs' convolution, said approximate; the median within the buckets holding it
        assert serving["prefill_added"] == ["ttft", "e2e"]
        assert PREFILL_MS / 1000 <= serving["ttft_p50_s"] <= 0.25 + 0.001
    finally:
        srt("cancel", job_id, check=False)
    assert wait_no_pids(job_dir) == []
