"""Counter history kept across refreshes: the request rate of the last seconds and sparkline points."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

WINDOW_S = 60.0
#: req/s is the increase over about this long: it falls to 0 within seconds once load stops (a minute's
#: average showed 35/s for 15 s after the load had ended)
RATE_WINDOW_S = 5.0
SPARK_POINTS = 30
#: samples kept per series at most (the window is shorter when refreshes come faster than one per
#: WINDOW_S / MAX_SAMPLES s): a job's serving histograms keep ~70 series per worker
MAX_SAMPLES = 120


@dataclass
class _Series:
    samples: deque[tuple[float, float]] = field(default_factory=lambda: deque(maxlen=MAX_SAMPLES))
    spark: deque[float] = field(default_factory=lambda: deque(maxlen=SPARK_POINTS))
    seen: float = 0.0


class CounterHistory:
    """(time, total) samples per key; a counter that goes down (a restarted worker) starts a new series."""

    def __init__(self, window_s: float = WINDOW_S) -> None:
        self.window_s = window_s
        self._series: dict[tuple[str, str], _Series] = {}

    def observe(self, key: tuple[str, str], t: float, total: float) -> None:
        """Record a total seen at time ``t`` (monotonic seconds); repeated times are ignored."""
        s = self._series.get(key)
        if s is None:
            s = self._series[key] = _Series()
        s.seen = t
        if s.samples:
            last_t, last_v = s.samples[-1]
            if t <= last_t:
                return
            if total < last_v:
                s.samples.clear()
                s.spark.clear()
            else:
                s.spark.append((total - last_v) / (t - last_t))
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

    def spark(self, key: tuple[str, str]) -> tuple[float, ...]:
        """Per-refresh rates, oldest first."""
        s = self._series.get(key)
        return tuple(s.spark) if s is not None else ()

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
