"""srtctl's custom benchmark: the recipe's command verbatim, with srtctl's `SRT_*` variables."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from srt_tui.core.benchmark.types.base import COMMON, BenchmarkType
from srt_tui.core.errors import Problem
from srt_tui.core.spec.recipe import BenchmarkSpec

if TYPE_CHECKING:
    from srt_tui.core.benchmark.context import BenchContext
    from srt_tui.core.engines.base import Engine
    from srt_tui.core.frontends.routers.base import Router


class Custom(BenchmarkType):
    """The recipe's `command`; it gets every worker's endpoints and, like aiperf, their metrics URLs."""

    name: ClassVar[str] = "custom"
    reads: ClassVar[frozenset[str]] = COMMON | {"command"}
    worker_endpoints_env: ClassVar[bool] = True
    scrapes_worker_metrics: ClassVar[bool] = True

    def command(self, ctx: BenchContext, b: BenchmarkSpec) -> tuple[str, ...]:
        """The recipe's command verbatim under ``bash -lc`` (srtctl substitutes nothing in it)."""
        return ("bash", "-lc", b.command or "")

    def problems(self, b: BenchmarkSpec, engine: Engine, router: Router, disaggregated: bool) -> list[Problem]:
        """A command to run."""
        return (
            []
            if b.command
            else [Problem("benchmark.command", "a custom benchmark needs a command", "set benchmark.command")]
        )
