"""The result model as rows: one per job and concurrency, for the CLI's table, JSON and CSV (no styling)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any

from srt_tui.core.results.model import JobResults, Latency, LevelResult
from srt_tui.core.results.read import METRICS

#: the columns of --json/--csv, in order (latencies in ms: <metric>_<mean|p50|p90|p99>_ms)
FIELDS: tuple[str, ...] = (
    "job",
    "name",
    "run",
    "concurrency",
    "gpus",
    "requests_ok",
    "requests_failed",
    "request_throughput",
    "input_tok_s",
    "output_tok_s",
    "output_tok_s_per_gpu",
    "output_tok_s_per_user",
    *(f"{m}_{s}_ms" for m in METRICS for s in ("mean", "p50", "p90", "p99")),
)

TABLE_HEADER = (
    "JOB",
    "NAME",
    "CONC",
    "OK",
    "FAIL",
    "REQ/S",
    "IN TOK/S",
    "OUT TOK/S",
    "OUT/GPU",
    "OUT/USER",
    "TTFT p50/p99",
    "TPOT p50/p99",
    "ITL p50",
    "E2E p50",
)


@dataclass(frozen=True)
class LabelledResults:
    """A job's results with how the user knows it (its id and name)."""

    job: str
    name: str
    results: JobResults


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def row(job: LabelledResults, run: str, lv: LevelResult) -> dict[str, Any]:
    """One machine-readable row (every FIELDS key; None where the source has no value)."""
    out: dict[str, Any] = {
        "job": job.job,
        "name": job.name,
        "run": run,
        "concurrency": lv.concurrency,
        "gpus": lv.gpus,
        "requests_ok": lv.completed,
        "requests_failed": lv.failed,
        "request_throughput": _round(lv.request_throughput),
        "input_tok_s": _round(lv.input_throughput),
        "output_tok_s": _round(lv.output_throughput),
        "output_tok_s_per_gpu": _round(lv.output_per_gpu),
        "output_tok_s_per_user": _round(lv.output_per_user),
    }
    for metric in METRICS:
        lat: Latency = getattr(lv, metric)
        for stat in ("mean", "p50", "p90", "p99"):
            out[f"{metric}_{stat}_ms"] = _round(getattr(lat, stat))
    return out


def rows(jobs: list[LabelledResults]) -> list[dict[str, Any]]:
    """Every job's levels, jobs in the order given, levels by run then concurrency."""
    return [row(job, run.name, lv) for job in jobs for run in job.results.runs for lv in run.levels]


def to_json(jobs: list[LabelledResults]) -> str:
    """`results --json`: a list of rows."""
    return json.dumps(rows(jobs), indent=2) + "\n"


def to_csv(jobs: list[LabelledResults]) -> str:
    """`results --csv`: a header line and one line per row (empty cells where there is no value)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows(jobs))
    return buf.getvalue()


def number(value: float | None, digits: int = 1) -> str:
    """A result figure as the tables show it: thousands separated, `-` when unknown."""
    return "-" if value is None else f"{value:,.{digits}f}"


def _pair(lat: Latency) -> str:
    return f"{number(lat.p50)}/{number(lat.p99)}"


def table_rows(jobs: list[LabelledResults]) -> list[tuple[str, ...]]:
    """The text table's cells (latencies in ms)."""
    out: list[tuple[str, ...]] = []
    for job in jobs:
        for run in job.results.runs:
            for lv in run.levels:
                out.append(
                    (
                        job.job,
                        job.name,
                        str(lv.concurrency),
                        "-" if lv.completed is None else str(lv.completed),
                        "-" if lv.failed is None else str(lv.failed),
                        number(lv.request_throughput, 2),
                        number(lv.input_throughput),
                        number(lv.output_throughput),
                        number(lv.output_per_gpu),
                        number(lv.output_per_user),
                        _pair(lv.ttft),
                        _pair(lv.tpot),
                        number(lv.itl.p50),
                        number(lv.e2el.p50),
                    )
                )
    return out
