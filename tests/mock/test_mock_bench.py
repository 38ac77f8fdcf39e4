"""The mock bench: argument parsing and statistics, then real runs against a worker and a dead port."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from srt_tui.bench.load import BenchConfig, build_payload, parse_concurrencies
from srt_tui.bench.stats import Outcome, format_table, percentile, summarize_level, totals
from tests.mock.mockprocs import Launcher, Worker, child_env, free_port


def test_parse_concurrencies() -> None:
    assert parse_concurrencies("4x8") == (4, 8)
    assert parse_concurrencies("4,8, 16") == (4, 8, 16)
    assert parse_concurrencies("1") == (1,)
    for bad in ("", "0", "4x-1", "a"):
        with pytest.raises(ValueError):
            parse_concurrencies(bad)


def test_percentile_interpolates() -> None:
    assert percentile([], 50) is None
    assert percentile([5.0], 99) == 5.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile([float(i) for i in range(1, 101)], 90) == pytest.approx(90.1)


def test_level_summary_and_table() -> None:
    outcomes = [Outcome(True, 0.1 * i, 0.01 * i, 4, f"w{i % 2}") for i in range(1, 5)]
    outcomes.append(Outcome(False, 0.5, error="HTTP 500: boom"))
    level = summarize_level(2, outcomes, 2.0, stream=True)
    assert (level["requests"], level["ok"], level["errors"]) == (5, 4, 1)
    assert level["request_throughput"] == 2.0 and level["output_token_throughput"] == 8.0
    assert level["latency_ms"]["p50"] == 250.0 and level["ttft_ms"]["p50"] == 25.0
    assert level["answered_by"] == {"w0": 2, "w1": 2}
    assert level["error_samples"] == [("HTTP 500: boom", 1)]
    result = {
        "url": "http://x",
        "endpoint": "/v1/completions",
        "model": "m",
        "isl": 1,
        "osl": 4,
        "stream": True,
        "results": [level],
        "totals": totals([level]),
        "answered_by": level["answered_by"],
    }
    table = format_table(result)
    assert "1x HTTP 500: boom" in table and "answered by: w0=2 w1=2" in table
    assert "ttft_ms" not in summarize_level(1, outcomes, 1.0, stream=False)


@pytest.mark.parametrize("endpoint", ["/v1/completions", "/v1/chat/completions", "/generate"])
def test_payloads_ask_for_osl_tokens(endpoint: str) -> None:
    config = BenchConfig(url="http://x", concurrencies=(1,), isl=5, osl=7, endpoint=endpoint, stream=True)
    body = build_payload(config, 3)
    if endpoint == "/generate":
        assert body["sampling_params"]["max_new_tokens"] == 7 and len(body["text"].split()) == 5
    else:
        assert body["max_tokens"] == 7 and body["stream_options"] == {"include_usage": True}
    assert build_payload(config, 3) != build_payload(config, 4)


def _bench(*args: str, out: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """Run the bench command line; returns the process and its JSON report."""
    argv = [sys.executable, "-m", "srt_tui.mock", "bench", *args, "--out", str(out)]
    result = subprocess.run(argv, env=child_env(), capture_output=True, text=True, timeout=60)
    return result, json.loads(out.read_text())


@pytest.fixture(scope="module")
def worker(launcher: Launcher) -> Worker:
    """One worker to bench directly."""
    return launcher.wait_worker(launcher.start_worker("regular", name="b0"))


@pytest.mark.parametrize("endpoint", ["/v1/completions", "/generate"])
@pytest.mark.parametrize("stream", [False, True])
def test_bench_against_a_worker(worker: Worker, tmp_path: Path, endpoint: str, stream: bool) -> None:
    args = ["--url", worker.url, "--isl", "4", "--osl", "3", "--concurrencies", "3", "--num-prompts-mult", "2"]
    args += ["--endpoint", endpoint, *(["--stream"] if stream else [])]
    result, report = _bench(*args, out=tmp_path / "r.json")
    assert result.returncode == 0, result.stderr
    (level,) = report["results"]
    assert level["requests"] == level["ok"] == 6
    assert level["output_tokens"] == 18
    assert report["answered_by"] == {"b0": 6}
    assert ("ttft_ms" in level) is stream


def test_bench_keeps_sa_benchs_progress_file_for_status_and_the_monitor(worker: Worker, tmp_path: Path) -> None:
    from srt_tui.core.results.progress import parse_progress

    args = ["--url", worker.url, "--concurrencies", "1x2", "--num-prompts-mult", "3", "--progress-dir", str(tmp_path)]
    result, _ = _bench(*args, out=tmp_path / "r.json")
    assert result.returncode == 0, result.stderr
    done = parse_progress(json.loads((tmp_path / "benchmark-progress.json").read_text()))
    assert done is not None and (done.phase, done.steps, done.done_all, done.total_all) == ("done", 2, 9, 9)


def test_bench_exits_nonzero_when_everything_fails(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    result, report = _bench("--url", url, "--concurrencies", "2", "--num-prompts-mult", "2", out=tmp_path / "r.json")
    assert result.returncode == 1
    assert report["totals"] == {
        "requests": 4,
        "ok": 0,
        "errors": 4,
        "duration_s": report["totals"]["duration_s"],
        "output_tokens": 0,
        "request_throughput": 0.0,
        "output_token_throughput": 0.0,
    }
    assert report["results"][0]["error_samples"][0][0].startswith("ClientError: connect to 127.0.0.1")


def test_bench_counts_server_errors(worker: Worker, tmp_path: Path) -> None:
    worker.post("/mock/fail", rate="1")
    try:
        result, report = _bench("--url", worker.url, "--num-prompts-mult", "2", out=tmp_path / "r.json")
    finally:
        worker.post("/mock/fail", rate="0")
    assert result.returncode == 1
    ((message, count),) = report["results"][0]["error_samples"]
    assert message.startswith("HTTP 500:") and "injected" in message and count == 2


def test_bench_rejects_a_url_without_scheme(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "srt_tui.mock", "bench", "--url", "127.0.0.1:30000"]
    result = subprocess.run(argv, env=child_env(), capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "http" in result.stderr
