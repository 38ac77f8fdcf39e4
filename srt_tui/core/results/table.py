"""The result model as rows: one per job and concurrency, for the CLI's table, JSON and CSV (no styling). A sweep's
rows carry what it varies (`swept.py`: job.json's `group_values`), a column per varied parameter, as Results does."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from srt_tui.core.jobdir.contract import SweptValue
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


#: a member's results and its swept values (empty for a job outside a sweep, or one submitted before they were kept)
Swept = tuple[LabelledResults, Mapping[str, SweptValue]]


def table_header(params: Sequence[str] = ()) -> tuple[str, ...]:
    """The text table's header: a column per swept parameter (`OSL`) after the job's name."""
    return (*TABLE_HEADER[:2], *(p.upper() for p in params), *TABLE_HEADER[2:])


def csv_fields(params: Sequence[str] = ()) -> tuple[str, ...]:
    """`--csv`'s columns: FIELDS with `swept.<param>` after the name (a sweep of `concurrency` keeps its own)."""
    return (*FIELDS[:2], *(f"swept.{p}" for p in params), *FIELDS[2:])


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


def rows(jobs: Sequence[Swept], params: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Every job's levels, jobs in the order given, levels by run then concurrency; with ``params`` (what a sweep
    varies) each row's values of them under `swept` (None where the job has none)."""
    out = []
    for job, values in jobs:
        swept = {"swept": {p: values.get(p) for p in params}} if params else {}
        out += [row(job, run.name, lv) | swept for run in job.results.runs for lv in run.levels]
    return out


def to_json(jobs: Sequence[Swept], params: Sequence[str] = ()) -> str:
    """`results --json`: a list of rows."""
    return json.dumps(rows(jobs, params), indent=2) + "\n"


def to_csv(jobs: Sequence[Swept], params: Sequence[str] = ()) -> str:
    """`results --csv`: a header line and one line per row (empty cells where there is no value)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=csv_fields(params), lineterminator="\n")
    writer.writeheader()
    for r in rows(jobs, params):
        swept = r.pop("swept", {})
        writer.writerow(r | {f"swept.{p}": v for p, v in swept.items()})
    return buf.getvalue()


def number(value: float | None, digits: int = 1) -> str:
    """A result figure as the tables show it: thousands separated, `-` when unknown."""
    return "-" if value is None else f"{value:,.{digits}f}"


def _pair(lat: Latency) -> str:
    return f"{number(lat.p50)}/{number(lat.p99)}"


def table_rows(jobs: Sequence[Swept], params: Sequence[str] = ()) -> list[tuple[str, ...]]:
    """The text table's cells (latencies in ms), under `table_header(params)`."""
    out: list[tuple[str, ...]] = []
    for job, values in jobs:
        swept = tuple(str(values.get(p, "-")) for p in params)
        for run in job.results.runs:
            for lv in run.levels:
                out.append(
                    (
                        job.job,
                        job.name,
                        *swept,
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
