"""A benchmark type: the keys it reads, its checks, its command, and what it declares of the step around it.

One module per type under this package holds a `BenchmarkType` subclass; `__init__.py` registers the built-ins
in one table. Shared checks are in `checks.py`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from srt_tui.core.errors import Problem
from srt_tui.core.spec.recipe import BenchmarkSpec

if TYPE_CHECKING:
    from srt_tui.core.benchmark.context import BenchContext
    from srt_tui.core.engines.base import Engine
    from srt_tui.core.frontends.routers.base import Router

#: keys every type that runs a step reads: its name, extra environment, and own image
COMMON = frozenset({"type", "env", "container_image"})


class BenchmarkType:
    """One `benchmark.type`: a subclass states its name, its keys, its checks and its command."""

    name: ClassVar[str]
    #: the `benchmark.*` keys its command reads; a key it does not read is refused (a warning when nothing runs)
    reads: ClassVar[frozenset[str]]
    #: runs a step once the router is ready (`manual` runs nothing: the job just serves)
    runs: ClassVar[bool] = True
    #: the step gets srtctl's `SRT_{PREFILL,DECODE,AGG}_{IPS,ENDPOINTS}` of every logical worker
    worker_endpoints_env: ClassVar[bool] = False
    #: the step scrapes the workers' /metrics while it runs (aiperf's `AIPERF_SERVER_METRICS_URLS`)
    scrapes_worker_metrics: ClassVar[bool] = False

    def job_end(self) -> str:
        """When a job with this benchmark ends, in one short line for the screens that show it: a step that runs
        ends the job when it finishes (the launch script returns then), `manual` leaves it serving."""
        if self.runs:
            return f"{self.name} ends the job when done"
        return f"{self.name} runs nothing: the job serves until cancelled"

    def problems(self, b: BenchmarkSpec, engine: Engine, router: Router, disaggregated: bool) -> list[Problem]:
        """Its own refusals for values it reads (beyond the keys it does not read), for this job."""
        return []

    def command(self, ctx: BenchContext, b: BenchmarkSpec) -> tuple[str, ...]:
        """The step's argv."""
        raise NotImplementedError(type(self).__name__)

    def support_files(self) -> dict[str, str]:
        """Files the step needs in the job directory (path relative to it -> text)."""
        return {}
