"""How fast the deployment serves, as `srt-tui status --json` shows it, agrees with what the load generator
itself measured: a mocker job on the real local Slurm behind the real sglang-router, under the mock bench's
closed-loop streaming load (TTFT p50 within 20 %, output tokens per second within 10 %)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.e2e.jobtools import apply, status, wait_ready

pytestmark = [pytest.mark.slurm, pytest.mark.routers]
AGG2 = REPO / "recipes" / "mocker" / "mocker-agg2.yaml"


def _agreement(shown: float | None, measured: float) -> float:
    assert shown is not None, "status shows no figure"
    return abs(shown - measured) / measured


def test_serving_figures_agree_with_the_load_generator(cluster: Any, jobs: list[str], tmp_path: Path) -> None:
    recipe = tmp_path / "mocker-agg2.yaml"
    # 300 ms to the first token and 8 ms per token after it: a latency SGLang's TTFT buckets resolve, and few
    # enough tokens a second that the figures follow the engines, not the CPU left by the tests beside this one
    args = "args: {tp-size: 4, latency-ms: 300, token-latency-ms: 8}"
    recipe.write_text(AGG2.read_text().replace("args: {tp-size: 4}", args))
    job_id, job_dir = apply(str(recipe), "-p", "local", "--launcher", "slurm")
    job = str(job_dir)  # by directory: job ids of other users of this login node may collide
    jobs.append(job_id)
    wait_ready(job_id)
    router = json.loads((job_dir / "endpoints.json").read_text())["router"]["url"]
    out = tmp_path / "bench.json"
    bench = subprocess.Popen(
        [sys.executable, "-m", "srt_tui.mock", "bench", "--url", router, "--concurrencies", "8", "--isl", "32"]
        + ["--osl", "64", "--num-prompts-mult", "100", "--stream", "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # 800 requests of 0.81 s, 8 at a time: at least 81 s of load; the window is 40 s of it (with 57 s, two
        # `status` runs on a loaded CI machine once took the rest: the load ended before the second scrape)
        time.sleep(5)
        first = status(job)  # the first scrape: `status` keeps its samples for the next run
        assert first["serving"] is not None, first
        time.sleep(40)
        snap = status(job)
        assert bench.poll() is None, "the load ended before the second scrape: the window would hold idle time"
        _, err = bench.communicate(timeout=240)
    finally:
        if bench.poll() is None:
            bench.kill()
    assert bench.returncode == 0, err
    measured: dict[str, Any] = json.loads(out.read_text())["results"][0]
    serving = snap["serving"]
    ttft_off = _agreement(serving["ttft_p50_s"], measured["ttft_ms"]["p50"] / 1000)
    tok_off = _agreement(serving["output_tok_per_s"], measured["output_token_throughput"])
    print(
        f"TTFT p50 shown {serving['ttft_p50_s'] * 1000:.1f} ms, measured {measured['ttft_ms']['p50']:.1f} ms "
        f"({ttft_off:.1%}); output shown {serving['output_tok_per_s']:.1f} tok/s, measured "
        f"{measured['output_token_throughput']:.1f} tok/s ({tok_off:.1%}); window {serving['window_s']:.1f} s"
    )
    assert ttft_off <= 0.20
    assert tok_off <= 0.10
    # the per-worker figures add up to the job's, and the queues and KV use are read
    per_worker = [w["serving"] for w in snap["workers"]]
    assert all(s is not None for s in per_worker)
    assert sum(s["output_tok_per_s"] for s in per_worker) == pytest.approx(serving["output_tok_per_s"])
    assert serving["running"] is not None and serving["waiting"] == 0
    assert serving["kv_usage"] is not None and 0 <= serving["kv_usage"] <= 1
    assert serving["itl_p50_s"] is not None and serving["e2e_p50_s"] is not None
