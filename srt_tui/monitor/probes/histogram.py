"""Prometheus histograms as the monitor reads them: cumulative bucket counts by upper bound, their
increase over a window, and a quantile from that increase (as PromQL's `histogram_quantile` computes it:
linear interpolation inside the bucket that holds the rank)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from srt_tui.monitor.probes.selectors import Sample

#: (upper bound, cumulative count) pairs, sorted by bound; the last bound may be +Inf
Buckets = tuple[tuple[float, float], ...]


def buckets(samples: Iterable[Sample], family: str) -> Buckets:
    """``family``'s buckets summed over its series (a worker's engines, a job's workers); empty when absent."""
    wanted = family + "_bucket"
    by_le: dict[float, float] = {}
    for s in samples:
        if s.name != wanted:
            continue
        try:
            le = float(s.label("le"))
        except ValueError:
            continue
        by_le[le] = by_le.get(le, 0.0) + s.value
    return tuple(sorted(by_le.items()))


def increase(new: Mapping[float, float], old: Mapping[float, float] | None) -> Buckets:
    """Per-bucket increase from ``old`` to ``new``. A bucket that went down means the process restarted:
    then everything counted since the restart (``new`` itself) is the increase. Buckets missing from
    either side are left out (a quantile over the rest stays correct up to their resolution)."""
    if old is None:
        return ()
    shared = sorted(le for le in new if le in old)
    if any(new[le] < old[le] for le in shared):
        return tuple(sorted(new.items()))
    return tuple((le, new[le] - old[le]) for le in shared)


def quantile(q: float, counts: Buckets) -> float | None:
    """The ``q`` quantile (0..1) of cumulative bucket counts; None without observations.

    Counts that decrease from one bound to the next (buckets read at slightly different moments) are
    raised to the running maximum, as Prometheus does. A rank in the +Inf bucket answers the largest
    finite bound; the first bucket's lower bound is 0 (latencies are not negative).
    """
    if not counts or not 0.0 <= q <= 1.0:
        return None
    monotone: list[tuple[float, float]] = []
    high = 0.0
    for le, count in counts:
        high = max(high, count)
        monotone.append((le, high))
    total = monotone[-1][1]
    if total <= 0:
        return None
    rank = q * total
    lower, below = 0.0, 0.0
    for le, cumulative in monotone:
        if cumulative >= rank and cumulative > below:
            if math.isinf(le):
                return lower
            if le <= 0:
                return le
            return lower + (le - lower) * (rank - below) / (cumulative - below)
        lower, below = (le if not math.isinf(le) else lower), cumulative
    return lower


def first_bucket_bound(q: float, counts: Buckets) -> float | None:
    """The first bucket's upper bound when the ``q`` quantile falls in that bucket (0 to its bound), else None.

    There the quantile is an interpolation the buckets cannot back: observations of 3 ms in SGLang's first
    TTFT bucket (0–100 ms) read `p50 50 ms p99 99 ms`, as PromQL computes them. The figure is then only
    known to be below that bound, and is shown so (`<100 ms`)."""
    if not counts or not 0.0 <= q <= 1.0:
        return None
    total = max(count for _, count in counts)
    le, first = counts[0]
    if total <= 0 or first <= 0 or math.isinf(le) or le <= 0:
        return None
    return le if first >= q * total else None
