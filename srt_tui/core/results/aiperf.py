"""aiperf's results (srtctl's mooncake-router and trace-replay types): one run per artifact directory.

aiperf writes ``<logs>/artifacts/<run>/profile_export_aiperf.json``: each metric an object with ``unit``,
``avg`` and percentiles ``p50``/``p90``/``p99``. A run is one level of the result model; its concurrency
is the trace-replay directory's ``_c<N>_`` (0 for mooncake-router's fixed schedule, which has no cap).
The warm-up run (``artifacts/warmup``) is not a result.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from srt_tui.core.results.model import BenchmarkRun, JsonLoader, Latency, LevelResult, json_number

AIPERF_FILE = "profile_export_aiperf.json"
_CONCURRENCY = re.compile(r"_c(\d+)_")
#: the result model's latency -> aiperf's metric
_METRICS = {"ttft": "time_to_first_token", "itl": "inter_token_latency", "e2el": "request_latency"}


def aiperf_files(logs: Path) -> list[Path]:
    """Every aiperf result file of a job's logs directory but the warm-up's, in name order."""
    return [p for p in sorted(logs.glob(f"artifacts/*/{AIPERF_FILE}")) if p.parent.name != "warmup"]


def _stat(data: dict[str, Any], metric: str, key: str = "avg") -> float | None:
    entry = data.get(metric)
    return json_number(entry.get(key)) if isinstance(entry, dict) else None


def _latency(data: dict[str, Any], metric: str) -> Latency:
    return Latency(*(_stat(data, metric, key) for key in ("avg", "p50", "p90", "p99")))


def _failed(data: dict[str, Any]) -> int | None:
    """Failed requests: the counts of aiperf's error summary (empty when every request succeeded)."""
    summary = data.get("error_summary")
    if not isinstance(summary, list):
        return None
    return sum(int(e.get("count", 0) or 0) for e in summary if isinstance(e, dict))


def level_from_aiperf(data: dict[str, Any], concurrency: int, gpus: int | None, source: str) -> LevelResult:
    """One level from aiperf's export; TPOT is aiperf's inter-token latency (both are per output token)."""
    ok = _stat(data, "request_count")
    return LevelResult(
        concurrency=concurrency,
        completed=int(ok) if ok is not None else None,
        failed=_failed(data),
        duration_s=_stat(data, "benchmark_duration"),
        request_throughput=_stat(data, "request_throughput"),
        input_throughput=_stat(data, "input_token_throughput"),
        output_throughput=_stat(data, "output_token_throughput"),
        total_token_throughput=_stat(data, "total_token_throughput"),
        gpus=gpus,
        ttft=_latency(data, _METRICS["ttft"]),
        tpot=_latency(data, _METRICS["itl"]),
        itl=_latency(data, _METRICS["itl"]),
        e2el=_latency(data, _METRICS["e2el"]),
        source=source,
    )


def aiperf_runs(logs: Path, load: JsonLoader, gpus: int | None) -> list[BenchmarkRun]:
    """One run per aiperf artifact directory (a trace-replay job has one per concurrency)."""
    out = []
    for path in aiperf_files(logs):
        data = load(path)
        if not isinstance(data, dict):
            continue
        match = _CONCURRENCY.search(path.parent.name)
        level = level_from_aiperf(data, int(match[1]) if match else 0, gpus, str(path))
        out.append(BenchmarkRun(path.parent.name, (level,)))
    return out
