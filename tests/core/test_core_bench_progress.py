"""The headless readers of what a benchmark writes while and after it runs: sa-bench's progress file
(ETA, one status line) and aiperf's export (mooncake-router, trace-replay) in the result model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from srt_tui.core.results.progress import format_eta, parse_progress
from srt_tui.core.results.read import read_results


def progress(**over: Any) -> dict[str, Any]:
    doc = {"benchmark": "sa-bench", "started": 1000.0, "time": 1020.0, "phase": "measure", "step": 2, "steps": 3,
           "concurrency": 4, "done": 10, "total": 40, "done_all": 20, "total_all": 100}  # fmt: skip
    return doc | over


def test_progress_eta_is_the_time_per_measured_request_times_those_left() -> None:
    p = parse_progress(progress())
    assert p is not None and (p.step, p.steps, p.done, p.total) == (2, 3, 10, 40)
    assert p.eta_s == 80.0  # 20 s for 20 requests, 80 left
    assert p.text() == "c=4 (2/3) 10/40 req, ETA 1 min 20 s"


def test_progress_while_warming_up_before_any_request_and_when_done() -> None:
    warm = parse_progress(progress(phase="warmup", step=1, done=0, done_all=0))
    assert warm is not None and warm.eta_s is None and warm.text() == "c=4 (1/3) warm-up"
    done = parse_progress(progress(phase="done", step=3, done_all=100))
    assert done is not None and done.eta_s is None and done.text() == "c=4 (3/3) done, 100/100 req"


def test_progress_refuses_what_is_not_one() -> None:
    docs: tuple[object, ...] = (None, [], {"phase": "measure"}, progress(steps=0), progress(started="x"))
    for doc in docs:
        assert parse_progress(doc) is None
    assert parse_progress(progress(step=9)).step == 3  # type: ignore[union-attr]


def test_eta_format() -> None:
    assert [format_eta(s) for s in (4.4, 65, 3725)] == ["4 s", "1 min 05 s", "1 h 02 min"]


def aiperf_export(requests: int, errors: int) -> dict[str, Any]:
    """aiperf 0.13's profile_export_aiperf.json, the fields the reader uses."""
    lat = {"unit": "ms", "avg": 8.0, "p50": 7.0, "p90": 9.0, "p99": 10.0}
    return {
        "request_count": {"unit": "requests", "avg": float(requests)},
        "request_throughput": {"unit": "requests/sec", "avg": 11.5},
        "output_token_throughput": {"unit": "tokens/sec", "avg": 46.0},
        "input_token_throughput": {"unit": "tokens/sec", "avg": 460.0},
        "total_token_throughput": {"unit": "tokens/sec", "avg": 506.0},
        "benchmark_duration": {"unit": "sec", "avg": 0.5},
        "time_to_first_token": lat, "inter_token_latency": lat | {"p50": 2.0}, "request_latency": lat,
        "error_summary": [{"error_details": {"code": 503}, "count": errors}] if errors else [],
    }  # fmt: skip


def test_aiperf_runs_are_levels_and_the_warmup_is_not(tmp_path: Path) -> None:
    art = tmp_path / "logs" / "artifacts"
    runs = {
        "warmup": aiperf_export(5, 0),
        "m_trace_c1_20261201_1": aiperf_export(6, 0),
        "m_trace_c2_20261201_1": aiperf_export(5, 1),
        "m_conversation_20261201_1": aiperf_export(6, 0),
    }
    for name, doc in runs.items():
        (art / name).mkdir(parents=True)
        (art / name / "profile_export_aiperf.json").write_text(json.dumps(doc))
    results = read_results(tmp_path)
    assert [(r.name, lv.concurrency, lv.completed, lv.failed) for r in results.runs for lv in r.levels] == [
        ("m_conversation_20261201_1", 0, 6, 0),
        ("m_trace_c1_20261201_1", 1, 6, 0),
        ("m_trace_c2_20261201_1", 2, 5, 1),
    ]
    level = results.runs[1].levels[0]
    assert level.output_per_user == 500.0 and level.ttft.p99 == 10.0 and level.request_throughput == 11.5
    assert results.totals() == (17, 1)
