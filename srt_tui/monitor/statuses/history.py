"""Counter history kept across refreshes: the request rate of the last seconds and sparkline points.

A sparkline covers the figures' window (`WINDOW_S`) in `SPARK_POINTS` slots of `SPARK_SLOT_S` on the Monitor's
(injected) clock, each the counter's rate over the part of the slot its samples cover, the counter taken as linear
between two samples: not one point per refresh. So a relayed job read at its relay's slower cadence draws the same
line as a direct one (one point per refresh repeated or dropped a relayed reading: a sawtooth), and a slot no sample
covers is a gap (None): a worker that stopped answering shows blanks from when its readings stopped, not its last
line frozen. The slots are accumulated as samples arrive (a refresh reads ~70 series per worker of a job with
serving histograms: reading them again from the samples each time tripled its cost).
"""

from __future__ import annotations

import math
from array import array
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

WINDOW_S = 60.0
#: req/s is the increase over about this long: it falls to 0 within seconds once load stops (a minute's
#: average showed 35/s for 15 s after the load had ended)
RATE_WINDOW_S = 5.0
#: a sparkline's points: the figures' window in slots, as many as the sparklines are wide (12 of 5 s)
SPARK_POINTS = 12
SPARK_SLOT_S = WINDOW_S / SPARK_POINTS
#: two samples further apart than this are not joined: the time between them is a gap (nothing was read then). Above
#: the job's relay cadence (its health loop, every 10 s by default), below a stall worth seeing
SPARK_GAP_S = 20.0
#: a sample this soon after the previous one with the same total is the same reading again (a relayed one, read at
#: every refresh, its time `now - relay age` a few milliseconds off each time): it is not a new sample
SAME_READING_S = 0.5
#: samples kept per series at most (the window is shorter when refreshes come faster than one per
#: WINDOW_S / MAX_SAMPLES s): a job's serving histograms keep ~70 series per worker
MAX_SAMPLES = 120


@dataclass
class _Series:
    samples: deque[tuple[float, float]] = field(default_factory=lambda: deque(maxlen=MAX_SAMPLES))
    seen: float = 0.0
    #: the sparkline's slots: the index of the first (`floor(t / SPARK_SLOT_S)`), then per slot the increase and the
    #: seconds the samples cover in it
    slot0: int = 0
    inc: array[float] = field(default_factory=lambda: array("d"))
    cov: array[float] = field(default_factory=lambda: array("d"))

    def spread(self, t0: float, v0: float, t1: float, v1: float) -> None:
        """Share the increase from (t0, v0) to (t1, v1) among the slots it spans, in proportion to the time in each."""
        k0, k1 = math.floor(t0 / SPARK_SLOT_S), math.ceil(t1 / SPARK_SLOT_S) - 1
        keep = k1 - SPARK_POINTS  # older slots are out of every window now
        if not self.inc or keep >= self.slot0 + len(self.inc):
            self.slot0, self.inc, self.cov = max(k0, keep), array("d"), array("d")
        elif keep > self.slot0:  # slide: the window moved on
            del self.inc[: keep - self.slot0], self.cov[: keep - self.slot0]
            self.slot0 = keep
        grow = k1 - self.slot0 + 1 - len(self.inc)
        if grow > 0:
            self.inc.extend([0.0] * grow)
            self.cov.extend([0.0] * grow)
        slope = (v1 - v0) / (t1 - t0)
        for k in range(max(k0, self.slot0), k1 + 1):
            part = min(t1, (k + 1) * SPARK_SLOT_S) - max(t0, k * SPARK_SLOT_S)
            if part > 0:
                self.inc[k - self.slot0] += part * slope
                self.cov[k - self.slot0] += part

    def clear(self) -> None:
        """Start again (a restarted process's counter)."""
        self.samples.clear()
        self.inc, self.cov = array("d"), array("d")


class CounterHistory:
    """(time, total) samples per key; a counter that goes down (a restarted worker) starts a new series."""

    def __init__(self, window_s: float = WINDOW_S) -> None:
        self.window_s = window_s
        self._series: dict[tuple[str, str], _Series] = {}

    def observe(self, key: tuple[str, str], t: float, total: float) -> None:
        """Record a total seen at time ``t`` (monotonic seconds); repeated times (and readings) are ignored."""
        s = self._series.get(key)
        if s is None:
            s = self._series[key] = _Series()
        s.seen = t
        if s.samples:
            last_t, last_v = s.samples[-1]
            if t <= last_t or (total == last_v and t - last_t < SAME_READING_S):
                return
            if total < last_v:
                s.clear()
            elif t - last_t <= SPARK_GAP_S:
                s.spread(last_t, last_v, t, total)
        s.samples.append((t, total))
        while len(s.samples) > 2 and s.samples[1][0] <= t - self.window_s:
            s.samples.popleft()

    def rate(self, key: tuple[str, str]) -> float | None:
        """Requests per second over the last ``RATE_WINDOW_S`` (or since the sample before the newest, when
        samples are further apart); None until two samples exist."""
        s = self._series.get(key)
        if s is None or len(s.samples) < 2:
            return None
        t1, v1 = s.samples[-1]
        t0, v0 = s.samples[-2]
        for t, v in s.samples:
            if t >= t1 - RATE_WINDOW_S:
                if t < t0:
                    t0, v0 = t, v
                break
        return (v1 - v0) / (t1 - t0) if t1 > t0 else None

    def window(self, key: tuple[str, str]) -> tuple[float, float, float, float] | None:
        """(t0, total0, t1, total1): the oldest sample kept (about ``window_s`` back) and the newest; None
        until two samples exist. Histogram buckets kept as counters give their increase over the window."""
        s = self._series.get(key)
        if s is None or len(s.samples) < 2:
            return None
        (t0, v0), (t1, v1) = s.samples[0], s.samples[-1]
        return t0, v0, t1, v1

    def first(self, key: tuple[str, str]) -> float | None:
        """When the oldest sample kept was taken (None: none yet)."""
        s = self._series.get(key)
        return s.samples[0][0] if s is not None and s.samples else None

    def forget(self, key: tuple[str, str]) -> None:
        """Drop a series (a histogram whose other buckets were reset starts all of them again)."""
        self._series.pop(key, None)

    def last(self, key: tuple[str, str], now: float) -> float | None:
        """The newest total seen; asking at ``now`` keeps the series from being pruned (an ended job's
        workers no longer answer, but the Monitor still shows what they served)."""
        s = self._series.get(key)
        if s is None or not s.samples:
            return None
        s.seen = max(s.seen, now)
        return s.samples[-1][1]

    def spark(self, key: tuple[str, str], end: float | None = None) -> tuple[float | None, ...]:
        """The rate in each slot of the window that ends at ``end`` (None: at the newest sample), oldest first: the
        slots up to the one ``end`` falls in; None where no samples cover it (before the first, after the last, in a
        gap); () for a series never seen."""
        s = self._series.get(key)
        if s is None or not s.samples:
            return ()
        last = math.ceil((s.samples[-1][0] if end is None else end) / SPARK_SLOT_S) - 1
        first = last - SPARK_POINTS + 1
        out: list[float | None] = [None] * SPARK_POINTS
        lo, hi = max(first, s.slot0) - s.slot0, min(last + 1, s.slot0 + len(s.cov)) - s.slot0
        for at, inc, covered in zip(range(lo + s.slot0 - first, SPARK_POINTS), s.inc[lo:hi], s.cov[lo:hi]):
            if covered > 0:
                out[at] = inc / covered
        return tuple(out)

    def export(self, wall_minus_mono: float) -> dict[str, tuple[float, float]]:
        """The newest sample of each series as `"job\\tname": (wall time, total)`, for a later process."""
        return {
            "\t".join(key): (s.samples[-1][0] + wall_minus_mono, s.samples[-1][1])
            for key, s in self._series.items()
            if s.samples
        }

    def seed(self, saved: Mapping[str, Sequence[float]], wall_minus_mono: float, now: float) -> None:
        """Start series from samples another process exported; ones older than the window are ignored."""
        for name, sample in saved.items():
            job, sep, worker = name.partition("\t")
            if not sep or len(sample) != 2:
                continue
            t = float(sample[0]) - wall_minus_mono
            if now - self.window_s <= t < now:
                self.observe((job, worker), t, float(sample[1]))

    def prune(self, older_than: float) -> None:
        """Forget series not observed since ``older_than``."""
        for key in [k for k, s in self._series.items() if s.seen < older_than]:
            del self._series[key]
