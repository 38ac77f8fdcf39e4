"""The benchmark step: srtctl's benchmark types rendered into one command, its environment and image.

One module per type under ``types/`` (its keys, checks and command), registered in ``types/__init__.py``:
sa-bench runs srt-tui's own client (``srt_tui/bench/sa_bench.py``, shipped into the job directory); the
accuracy and aiperf types run the same tools srtctl's scripts run; ``custom`` runs the recipe's command with
srtctl's ``SRT_*`` variables. The refusals every type shares: keys.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from srt_tui.core.benchmark.context import BenchContext
from srt_tui.core.benchmark.keys import benchmark_problems
from srt_tui.core.benchmark.types import BENCHMARKS, register_benchmark
from srt_tui.core.spec.frontend_types import FRONTEND_TYPES
from srt_tui.core.spec.recipe import BenchmarkSpec

__all__ = [
    "BENCHMARKS",
    "BenchContext",
    "BenchLaunch",
    "benchmark_launch",
    "benchmark_problems",
    "register_benchmark",
    "support_files",
]


@dataclass(frozen=True)
class BenchLaunch:
    """The benchmark step's command, extra environment (before the recipe's) and image of its own."""

    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...]
    image: str | None


def benchmark_launch(ctx: BenchContext, b: BenchmarkSpec) -> BenchLaunch | None:
    """The step for ``b`` (None for manual: the job just serves); validation has refused what cannot run."""
    kind = BENCHMARKS.get(b.type)
    if kind is None or not kind.runs:
        return None
    env = [
        ("SRTCTL_FRONTEND_TYPE", _srtctl_frontend(ctx.frontend)),
        ("SRT_FRONTEND_HOST", ctx.frontend_host),
        ("SRT_FRONTEND_PORT", ctx.frontend_port),
    ]
    endpoints = ctx.endpoints or ctx.leaders
    if kind.worker_endpoints_env:
        env += worker_endpoint_env(endpoints)
    if kind.scrapes_worker_metrics and endpoints:  # aiperf scrapes the workers during the run, as under srtctl
        env.append(("AIPERF_SERVER_METRICS_URLS", ",".join(f"{url}/metrics" for _, url in endpoints)))
    return BenchLaunch(kind.command(ctx, b), tuple(env), b.container_image)


def _srtctl_frontend(written: str) -> str:
    """srtctl's name of a written `frontend.type` (srt-tui's older aliases have one)."""
    spelling = FRONTEND_TYPES.get(written)
    return spelling.srtctl_name if spelling is not None else written


def worker_endpoint_env(leaders: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    """srtctl's ``SRT_{PREFILL,DECODE,AGG}_IPS`` / ``_ENDPOINTS``: one entry per logical worker, in order."""
    out: list[tuple[str, str]] = []
    for role in ("prefill", "decode", "agg"):
        hostports = [url.split("://", 1)[-1].split("/")[0] for r, url in leaders if r == role]
        if hostports:
            out.append((f"SRT_{role.upper()}_IPS", ",".join(hp.rpartition(":")[0] for hp in hostports)))
            out.append((f"SRT_{role.upper()}_ENDPOINTS", ",".join(hostports)))
    return out


def support_files(b: BenchmarkSpec) -> dict[str, str]:
    """Files the benchmark step needs in the job directory (path relative to it -> text)."""
    kind = BENCHMARKS.get(b.type)
    return kind.support_files() if kind is not None else {}
