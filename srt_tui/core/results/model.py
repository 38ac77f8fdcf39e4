"""The result model: one benchmark level, a run of levels, a job's results, and the JSON number reader they share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

JsonLoader = Callable[[Path], Any]


@dataclass(frozen=True)
class Latency:
    """One latency metric in milliseconds: mean and p50/p90/p99 (None where the source has no value)."""

    mean: float | None = None
    p50: float | None = None
    p90: float | None = None
    p99: float | None = None


@dataclass(frozen=True)
class LevelResult:
    """One concurrency level of one benchmark run."""

    concurrency: int
    completed: int | None
    failed: int | None
    duration_s: float | None
    request_throughput: float | None  # req/s
    input_throughput: float | None  # input tok/s
    output_throughput: float | None  # output tok/s
    total_token_throughput: float | None
    gpus: int | None
    ttft: Latency = field(default_factory=Latency)
    tpot: Latency = field(default_factory=Latency)
    itl: Latency = field(default_factory=Latency)
    e2el: Latency = field(default_factory=Latency)
    source: str = ""  # the file it was read from

    @property
    def output_per_gpu(self) -> float | None:
        """Output tok/s per GPU of the job (srtctl's Pareto x-axis)."""
        if self.output_throughput is None or not self.gpus:
            return None
        return self.output_throughput / self.gpus

    @property
    def output_per_user(self) -> float | None:
        """Output tok/s per user: 1000 / median TPOT, as srtctl's roll-up defines it."""
        tpot = self.tpot.p50
        return 1000.0 / tpot if tpot else None


@dataclass(frozen=True)
class BenchmarkRun:
    """The levels of one result directory (``sa-bench_isl_1024_osl_1024``; ``rollup`` for the roll-up)."""

    name: str
    levels: tuple[LevelResult, ...]


@dataclass(frozen=True)
class JobResults:
    """Everything a job directory holds of its benchmark: its runs, each in concurrency order."""

    job_dir: Path
    runs: tuple[BenchmarkRun, ...]

    @property
    def levels(self) -> tuple[LevelResult, ...]:
        """Every level of every run."""
        return tuple(level for run in self.runs for level in run.levels)

    def totals(self) -> tuple[int, int] | None:
        """(requests completed, requests failed) over every level; None without any count."""
        done = [lv.completed for lv in self.levels if lv.completed is not None]
        if not done:
            return None
        return sum(done), sum(lv.failed or 0 for lv in self.levels)


def json_number(value: Any) -> float | None:
    """A JSON number as a float; None for anything else (a boolean is not a number here)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)
