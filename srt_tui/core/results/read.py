"""What a job measured: sa-bench's per-concurrency results (and aiperf's runs, results_aiperf.py), read from
srt-tui's and srtctl's job directories.

Both write srtctl's layout (``sa-bench_isl_<isl>_osl_<osl>/results_concurrency_<c>_gpus_<n>[_ctx_<p>_gen_<d>].json``
with benchmark_serving.py's field names, plus ``benchmark-rollup.json``), in ``<job>/logs/`` or, as srtctl's
flat layout has it, in the directory itself. Per-concurrency files are preferred; the roll-up is the
fallback (it lacks p50/p90 and failed counts). Derived values follow srtctl's roll-up: output tok/s per
user is 1000 / median TPOT, per GPU divides by the job's GPU count (the file name's ``gpus_<n>``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from srt_tui.core.jobdir.bounded import read_bytes
from srt_tui.core.jobdir.contract import JOB_FILE, PLAN_FILE, JobDirError, read_job_meta, read_plan
from srt_tui.core.results.aiperf import AIPERF_FILE, aiperf_files, aiperf_runs
from srt_tui.core.results.model import BenchmarkRun, JobResults, JsonLoader, Latency, LevelResult, json_number

#: srtctl's per-concurrency file name (ctx/gen only for disaggregated runs)
RESULT_NAME = re.compile(r"results_concurrency_(\d+)_gpus_(\d+)(?:_ctx_(\d+)_gen_(\d+))?\.json$")
ROLLUP = "benchmark-rollup.json"
METRICS = ("ttft", "tpot", "itl", "e2el")


#: how a JSON file is read (the Monitor passes its (mtime, size)-keyed cache); None when missing or invalid
def load_json(path: Path) -> Any:
    """A JSON file's value, None when it is missing, unreadable or not JSON."""
    try:
        return json.loads(read_bytes(path, "results"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None


def logs_dir(job_dir: Path) -> Path:
    """Where a job's benchmark results live: ``<job>/logs`` (both tools' job layout), else the directory itself."""
    logs = job_dir / "logs"
    return logs if logs.is_dir() else job_dir


def _int(value: Any) -> int | None:
    number = json_number(value)
    return int(number) if number is not None else None


def _percentile(data: dict[str, Any], metric: str, p: int) -> float | None:
    """``p<p>_<metric>_ms``, else the older ``percentiles_<metric>_ms`` [[p, v], …] list (srtctl reads both)."""
    value = json_number(data.get(f"p{p}_{metric}_ms"))
    if value is not None:
        return value
    for entry in data.get(f"percentiles_{metric}_ms") or []:
        if isinstance(entry, (list, tuple)) and len(entry) == 2 and json_number(entry[0]) == p:
            return json_number(entry[1])
    return None


def _latency(data: dict[str, Any], metric: str) -> Latency:
    median = json_number(data.get(f"median_{metric}_ms"))
    return Latency(
        mean=json_number(data.get(f"mean_{metric}_ms")),
        p50=median if median is not None else _percentile(data, metric, 50),
        p90=_percentile(data, metric, 90),
        p99=_percentile(data, metric, 99),
    )


def level_from_file(data: dict[str, Any], concurrency: int, gpus: int | None, source: str) -> LevelResult:
    """One level from benchmark_serving.py's result fields (srtctl's aliases ``total_input`` / ``total_output``)."""
    duration = json_number(data.get("duration"))
    total_input = json_number(data.get("total_input_tokens", data.get("total_input")))
    input_tput = total_input / duration if total_input is not None and duration else None
    return LevelResult(
        concurrency=_int(data.get("max_concurrency")) or concurrency,
        completed=_int(data.get("completed")),
        failed=_int(data.get("failed")) if "failed" in data else _failed_from_errors(data),
        duration_s=duration,
        request_throughput=json_number(data.get("request_throughput")),
        input_throughput=input_tput,
        output_throughput=json_number(data.get("output_throughput")),
        total_token_throughput=json_number(data.get("total_token_throughput")),
        gpus=gpus,
        ttft=_latency(data, "ttft"),
        tpot=_latency(data, "tpot"),
        itl=_latency(data, "itl"),
        e2el=_latency(data, "e2el"),
        source=source,
    )


def _failed_from_errors(data: dict[str, Any]) -> int | None:
    """srtctl's files have no ``failed``: the non-empty ``errors`` entries (else num_prompts - completed)."""
    errors = data.get("errors")
    if isinstance(errors, list):
        return sum(1 for e in errors if e)
    prompts, completed = _int(data.get("num_prompts")), _int(data.get("completed"))
    return prompts - completed if prompts is not None and completed is not None else None


def level_from_rollup(run: dict[str, Any], gpus: int | None, source: str) -> LevelResult | None:
    """One level from a ``benchmark-rollup.json`` run (srtctl's names: throughput_toks, ttft_mean_ms, …)."""
    concurrency = _int(run.get("concurrency"))
    if concurrency is None:
        return None

    def lat(metric: str) -> Latency:
        return Latency(mean=json_number(run.get(f"{metric}_mean_ms")), p99=json_number(run.get(f"{metric}_p99_ms")))

    return LevelResult(
        concurrency=concurrency,
        completed=_int(run.get("completed_requests")),
        failed=None,
        duration_s=None,
        request_throughput=json_number(run.get("request_throughput")),
        input_throughput=None,
        output_throughput=json_number(run.get("throughput_toks")),
        total_token_throughput=None,
        gpus=gpus,
        ttft=lat("ttft"),
        tpot=lat("tpot"),
        itl=lat("itl"),
        e2el=lat("e2el"),
        source=source,
    )


def _rollup_gpus(logs: Path, load: JsonLoader) -> int | None:
    """The job's GPU count for a roll-up without per-level files: srtctl's submit metadata (resources)."""
    for where in (logs, logs.parent):
        for path in sorted(where.glob("*.json")):
            data = load(path)
            resources = data.get("resources") if isinstance(data, dict) else None
            if isinstance(resources, dict):
                per_node = _int(resources.get("gpus_per_node")) or 0
                nodes = sum(_int(resources.get(f"{r}_nodes")) or 0 for r in ("prefill", "decode", "agg"))
                return per_node * nodes or None
    return None


def result_files(job_dir: Path) -> list[Path]:
    """The files results are read from: every run's per-concurrency files, else the roll-up (a cache's key)."""
    logs = logs_dir(job_dir)
    files = sorted(logs.glob("sa-bench_*/results_concurrency_*.json")) + aiperf_files(logs)
    return files or [logs / ROLLUP]


def read_results(job_dir: Path, load: JsonLoader = load_json) -> JobResults:
    """Every benchmark result under ``job_dir`` (an empty JobResults when there is none yet)."""
    files = result_files(job_dir)
    by_run: dict[str, list[LevelResult]] = {}
    for path in files:
        match = RESULT_NAME.search(path.name)
        data = load(path) if match is not None else None
        if match is None or not isinstance(data, dict):
            continue
        by_run.setdefault(path.parent.name, []).append(
            level_from_file(data, int(match[1]), int(match[2]) or None, str(path))
        )
    runs = [BenchmarkRun(name, tuple(sorted(lvs, key=lambda lv: lv.concurrency))) for name, lvs in by_run.items()]
    if any(p.name == AIPERF_FILE for p in files):
        runs += aiperf_runs(logs_dir(job_dir), load, _rollup_gpus(logs_dir(job_dir), load))
    if not runs:
        logs = logs_dir(job_dir)
        rollup = load(logs / ROLLUP)
        entries = rollup.get("runs") if isinstance(rollup, dict) else None
        if isinstance(entries, list):
            gpus = _rollup_gpus(logs, load)
            found = [level_from_rollup(r, gpus, str(logs / ROLLUP)) for r in entries if isinstance(r, dict)]
            levels = sorted((lv for lv in found if lv is not None), key=lambda lv: lv.concurrency)
            if levels:
                runs.append(BenchmarkRun("rollup", tuple(levels)))
    return JobResults(job_dir, tuple(runs))


def runs_no_benchmark(job_dir: Path) -> bool:
    """Whether the job's plan has no benchmark step (`benchmark: manual`): it serves until cancelled and will
    never have results (False when srt-tui did not write the directory or its plan cannot be read)."""
    if not (job_dir / PLAN_FILE).is_file():
        return False
    try:
        return read_plan(job_dir).benchmark is None
    except JobDirError:
        return False


def no_results_reason(job_id: str, job_dir: Path) -> str:
    """Why a job shows no results, and what to do: a manual benchmark never writes any (a smoke test then
    says how fast it serves); another job's benchmark has not written its files yet."""
    if runs_no_benchmark(job_dir):
        return (
            f"its benchmark is manual: no benchmark runs, so there are no results "
            f"(`srt-tui bench {job_id}` or `b` in its job view sends a smoke test)"
        )
    return (
        f"no benchmark results yet in {logs_dir(job_dir)} "
        "(no sa-bench_*/results_concurrency_*.json nor benchmark-rollup.json; is its benchmark done?)"
    )


def job_identity(job_dir: Path, load: JsonLoader = load_json) -> tuple[str, str]:
    """(job id, name) of a job directory: srt-tui's job.json, else srtctl's submit metadata, else the folder name."""
    if (job_dir / JOB_FILE).is_file():
        try:
            meta = read_job_meta(job_dir)
            return meta.job_id, meta.name
        except JobDirError:
            pass  # a damaged job.json: named by `status`; here the folder name serves
    for path in sorted(job_dir.glob("*.json")):
        data = load(path)
        if isinstance(data, dict) and ("job_id" in data or "resources" in data):
            return str(data.get("job_id") or job_dir.name), str(data.get("job_name") or data.get("name") or "")
    return job_dir.name, ""
