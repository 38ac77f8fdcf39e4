"""Latency histograms a mock worker keeps, with the bucket bounds of the engine it imitates, so its
/metrics carry the same TTFT, inter-token and end-to-end families a real SGLang or vLLM server exports."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from srt_tui.core.engines.serving import BUCKETS_BY_API, HISTOGRAM_KEYS


@dataclass
class LatencyHistogram:
    """A Prometheus histogram: per-bucket counts (the last one is +Inf), their sum and count."""

    bounds: tuple[float, ...]
    counts: list[int] = field(default_factory=list)
    total: float = 0.0

    def __post_init__(self) -> None:
        if not self.counts:
            self.counts = [0] * (len(self.bounds) + 1)

    def observe(self, seconds: float, times: int = 1) -> None:
        """Count ``times`` observations of ``seconds`` (SGLang observes a batch of tokens at once too)."""
        self.counts[bisect.bisect_left(self.bounds, seconds)] += times
        self.total += seconds * times

    def cumulative(self) -> list[tuple[str, int]]:
        """(le, cumulative count) lines of the exposition, +Inf last."""
        out, running = [], 0
        for bound, count in zip((*self.bounds, float("inf")), self.counts):
            running += count
            out.append(("+Inf" if bound == float("inf") else repr(float(bound)), running))
        return out

    @property
    def count(self) -> int:
        """Observations so far."""
        return sum(self.counts)


def histograms_for(flavor: str) -> dict[str, LatencyHistogram]:
    """Empty TTFT / ITL / E2E histograms with ``flavor``'s (SGLang's or vLLM's) default buckets."""
    buckets = BUCKETS_BY_API.get(flavor, BUCKETS_BY_API["sglang"])
    return {key: LatencyHistogram(buckets[key]) for key in HISTOGRAM_KEYS}
