"""Prometheus histograms as the monitor reads them: cumulative bucket counts by upper bound, their
increase over a window, and a quantile from that increase (as PromQL's `histogram_quantile` computes it:
linear interpolation inside the bucket that holds the rank)."""

from __future__ import annotations

import functools
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


# the sum of two latencies (a sequential P/D request: the prefill's answer, then the decode) -----------------

#: a bucket's observations spread over [lower, upper] (a point when equal): (lower, upper, observations)
_Spread = tuple[tuple[float, float, float], ...]


def _spread(counts: Buckets) -> _Spread:
    """The buckets that hold observations, each as `quantile` reads it: uniform from the previous bound to its
    own (from 0 for the first), the +Inf bucket at the largest finite bound, a bound at or below 0 at itself."""
    out: list[tuple[float, float, float]] = []
    high = below = lower = 0.0
    for le, count in counts:
        high = max(high, count)
        if math.isinf(le):
            lo = hi = lower
        elif le <= 0:
            lo = hi = le
        else:
            lo, hi = lower, le
        if high > below:
            out.append((lo, hi, high - below))
        below = high
        if not math.isinf(le):
            lower = le
    return tuple(out)


def _sum_cdf(s: float, w1: float, w2: float) -> float:
    """P(X + Y <= s) for X uniform on [0, w1] and Y on [0, w2] (a width 0: a point at 0)."""
    if s < 0:
        return 0.0
    if s >= w1 + w2:
        return 1.0
    if w1 == 0 or w2 == 0:
        return s / (w1 + w2)
    # the area of {x + y <= s} in the w1 x w2 rectangle: the triangle, less what falls beyond either side
    r = [max(x, 0.0) ** 2 for x in (s, s - w1, s - w2, s - w1 - w2)]
    return (r[0] - r[1] - r[2] + r[3]) / (2 * w1 * w2)


def _pairs(a: Buckets, b: Buckets) -> tuple[tuple[float, float, float, float, float], ...]:
    """Each pair of occupied buckets: (lower sum, upper sum, width in a, width in b, observations a x b)."""
    return tuple(
        (lo1 + lo2, hi1 + hi2, hi1 - lo1, hi2 - lo2, n1 * n2)
        for lo1, hi1, n1 in _spread(a)
        for lo2, hi2, n2 in _spread(b)
    )


@functools.lru_cache(maxsize=4096)
def sum_quantile(q: float, a: Buckets, b: Buckets) -> float | None:
    """The ``q`` quantile of X + Y for X distributed as histogram ``a`` and Y as ``b``, taken as independent: the
    quantile of the convolution of the two, each bucket uniform over its range as in `quantile` (so a histogram
    with all its observations in one bucket at or below 0 leaves the other's quantile as it was). None without
    observations on either side.

    Bisection on the convolution's distribution function, to 0.01 % (figures show 3 digits): a few hundred
    evaluations over the pairs of occupied buckets (a latency occupies a few), memoised (a sparkline asks for the
    same points on every refresh)."""
    if not 0.0 <= q <= 1.0:
        return None
    pairs = _pairs(a, b)
    total = sum(p[4] for p in pairs)
    if total <= 0:
        return None
    rank = q * total

    def below(t: float) -> float:
        return sum(n * _sum_cdf(t - lo, w1, w2) for lo, _, w1, w2, n in pairs)

    lo, hi = min(p[0] for p in pairs), max(p[1] for p in pairs)
    if below(lo) >= rank:
        return lo
    while hi - lo > 1e-4 * hi + 1e-12:
        mid = (lo + hi) / 2
        if below(mid) >= rank:
            hi = mid
        else:
            lo = mid
    return hi


def sum_first_bucket_bound(q: float, a: Buckets, b: Buckets) -> float | None:
    """What `first_bucket_bound` says of one histogram, said of the sum of two: when the ``q`` quantile of X + Y
    falls where both are in their first bucket (from 0 to its bound), the buckets know only that it is below the
    sum of those bounds' ``q`` quantile (every observation at its bucket's upper bound); else None."""
    if not 0.0 <= q <= 1.0:
        return None
    pairs = _pairs(a, b)
    total = sum(p[4] for p in pairs)
    if total <= 0 or sum(n for lo, _, _, _, n in pairs if lo <= 0) < q * total:
        return None
    seen = 0.0
    for _, upper, _, _, n in sorted(pairs, key=lambda p: p[1]):
        seen += n
        if seen >= q * total:
            return upper if upper > 0 else None
    return None
