"""The benchmark step: srtctl's benchmark types rendered into one command, its environment and image.

sa-bench runs srt-tui's own client (``srt_tui/bench/sa_bench.py``, shipped into the job directory);
the accuracy and aiperf types run the same tools srtctl's scripts run; ``custom`` runs the recipe's
command with srtctl's ``SRT_*`` variables. Which keys each type reads, and the refusals: keys.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from srt_tui.core.benchmark.context import BenchContext
from srt_tui.core.benchmark.keys import READS, benchmark_problems
from srt_tui.core.benchmark.runners import RUNNERS
from srt_tui.core.benchmark.sabench import client_files
from srt_tui.core.spec.recipe import BenchmarkSpec

__all__ = ["READS", "BenchContext", "BenchLaunch", "benchmark_launch", "benchmark_problems", "support_files"]


@dataclass(frozen=True)
class BenchLaunch:
    """The benchmark step's command, extra environment (before the recipe's) and image of its own."""

    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...]
    image: str | None


_SRTCTL_FRONTEND = {"sglang-router": "sglang"}
AIPERF_CLIENTS = ("mooncake-router", "trace-replay", "custom")


def benchmark_launch(ctx: BenchContext, b: BenchmarkSpec) -> BenchLaunch | None:
    """The step for ``b`` (None for manual: the job just serves); validation has refused what cannot run."""
    runner = RUNNERS.get(b.type)
    if runner is None:
        return None
    env = [
        ("SRTCTL_FRONTEND_TYPE", _SRTCTL_FRONTEND.get(ctx.frontend, ctx.frontend)),
        ("SRT_FRONTEND_HOST", ctx.frontend_host),
        ("SRT_FRONTEND_PORT", ctx.frontend_port),
    ]
    endpoints = ctx.endpoints or ctx.leaders
    if b.type == "custom":
        env += worker_endpoint_env(endpoints)
    if b.type in AIPERF_CLIENTS and endpoints:  # aiperf scrapes the workers during the run, as under srtctl
        env.append(("AIPERF_SERVER_METRICS_URLS", ",".join(f"{url}/metrics" for _, url in endpoints)))
    return BenchLaunch(runner(ctx, b), tuple(env), b.container_image)


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
    return dict(client_files()) if b.type == "sa-bench" else {}
