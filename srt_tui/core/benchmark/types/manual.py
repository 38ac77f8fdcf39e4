"""`manual`: no benchmark step; the job serves until the operator is done with it."""

from __future__ import annotations

from typing import ClassVar

from srt_tui.core.benchmark.types.base import BenchmarkType


class Manual(BenchmarkType):
    """Runs nothing: its env and image would go nowhere, so it reads only its type."""

    name: ClassVar[str] = "manual"
    reads: ClassVar[frozenset[str]] = frozenset({"type"})
    runs: ClassVar[bool] = False
