"""How fast the deployment serves, as `srt-tui status --json` shows it, agrees with what the load generator
itself measured: a mocker job on the real local Slurm behind the real sglang-router, under the mock bench's
closed-loop streaming load (TTFT p50 within 20 %, output tokens over the window within 10 % of the client's count)."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.e2e.jobtools import apply, status, wait_ready

pytestmark = [pytest.mark.slurm, pytest.mark.routers]
AGG2 = REPO / "recipes" / "mocker" / "mocker-agg2.yaml"


@dataclass(frozen=True)
class _Timed:
    """A call's result with the wall-clock times around it."""

    value: Any
    started: float
    ended: float


def _timed(call: Callable[[], Any]) -> _Timed:
    started = time.time()
    value = call()
    return _Timed(value, started, time.time())


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
        first_run = _timed(lambda: status(job))  # the first scrape: `status` keeps its samples for the next run
        assert first_run.value["serving"] is not None, first_run.value
        time.sleep(40)
        second_run = _timed(lambda: status(job))
        assert bench.poll() is None, "the load ended before the second scrape: the window would hold idle time"
        _, err = bench.communicate(timeout=240)
    finally:
        if bench.poll() is None:
            bench.kill()
    assert bench.returncode == 0, err
    measured: dict[str, Any] = json.loads(out.read_text())["results"][0]
    snap = second_run.value
    serving = snap["serving"]
    # The figures of the window the two scrapes spanned, from the load generator's own requests: on a CI machine
    # the load's pace changes with the tests beside it, so the whole run's average is not the window's. Each scrape
    # happened somewhere inside its `status` run; the window's requests are those finished between the scrapes.
    done = [(t, tokens, ttft) for t, tokens, ttft in measured["finished"]]
    inside = [r for r in done if first_run.ended <= r[0] <= second_run.started]
    around = [r for r in done if first_run.started <= r[0] <= second_run.ended]
    # the engines count tokens as they generate them, the client when a request ends: the requests in flight at
    # either end of the window (8 of at most 64 tokens) are counted on different sides of it
    in_flight = 8 * 64
    counted = serving["output_tok_per_s"] * serving["window_s"]
    low, high = sum(r[1] for r in inside) - in_flight, sum(r[1] for r in around) + in_flight
    ttft_off = _agreement(serving["ttft_p50_s"], statistics.median(r[2] for r in inside) / 1000)
    print(
        f"TTFT p50 shown {serving['ttft_p50_s'] * 1000:.1f} ms, measured in the window "
        f"{statistics.median(r[2] for r in inside):.1f} ms ({ttft_off:.1%}); output tokens counted by the engines "
        f"{counted:.0f}, by the client {low}..{high}; window {serving['window_s']:.1f} s; whole run "
        f"{measured['output_token_throughput']:.1f} tok/s, shown {serving['output_tok_per_s']:.1f}"
    )
    assert ttft_off <= 0.20
    # the window's mean, from the histogram's `_sum`/`_count` (shown when the buckets cannot resolve a quantile)
    mean_off = _agreement(serving["ttft_mean_s"], statistics.mean(r[2] for r in inside) / 1000)
    assert mean_off <= 0.20, (serving["ttft_mean_s"], statistics.mean(r[2] for r in inside))
    assert low * 0.9 <= counted <= high * 1.1
    # the per-worker figures add up to the job's, and the queues and KV use are read
    per_worker = [w["serving"] for w in snap["workers"]]
    assert all(s is not None for s in per_worker)
    assert sum(s["output_tok_per_s"] for s in per_worker) == pytest.approx(serving["output_tok_per_s"])
    assert serving["running"] is not None and serving["waiting"] == 0
    assert serving["kv_usage"] is not None and 0 <= serving["kv_usage"] <= 1
    assert serving["itl_p50_s"] is not None and serving["e2e_p50_s"] is not None
