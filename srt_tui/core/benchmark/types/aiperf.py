"""What the aiperf types (mooncake-router, trace-replay) share: srtctl's `aiperf_args` rule, millisecond values."""

from __future__ import annotations

from srt_tui.core.spec.recipe import BenchmarkSpec

#: the keys both aiperf types read
AIPERF = frozenset({"ttft_threshold_ms", "itl_threshold_ms", "aiperf_package", "aiperf_args"})


def aiperf_args(b: BenchmarkSpec) -> list[str]:
    """``aiperf_args`` as flags, srtctl's way: true -> ``--key``, false dropped, else ``--key value``."""
    out: list[str] = []
    for key, value in (b.aiperf_args or {}).items():
        if isinstance(value, bool):
            out += [f"--{key}"] if value else []
        else:
            out += [f"--{key}", str(value)]
    return out


def ms(value: float | None, default: int) -> str:
    """A threshold in milliseconds as aiperf's goodput reads it, srtctl's default when unset."""
    return f"{value:g}" if value else str(default)
