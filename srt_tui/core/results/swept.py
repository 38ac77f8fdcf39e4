"""What a sweep's members vary, and what its latency is plotted against (headless: the Results view draws it).

Each member's job.json holds the values the sweep filled it with (`group_values`, e.g. `{"osl": 1024}`). A sweep
of concurrencies keeps latency against concurrency, one line per member; a sweep whose members all ran one and the
same concurrency (an osl or isl sweep) plots latency against the swept parameter instead: against concurrency all
its points would stand at one x.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from srt_tui.core.jobdir.contract import SweptValue
from srt_tui.core.results.model import LevelResult
from srt_tui.core.results.table import Swept

CONCURRENCY = "concurrency"


def number_of(value: SweptValue | None) -> float | None:
    """A swept value as a number (`1024`, `"1024"`), None when it is not one (`"fp8"`, a list's text)."""
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def varied(values: Sequence[Mapping[str, SweptValue]]) -> tuple[str, ...]:
    """The swept parameters whose values differ between the members, in the sweep's order."""
    keys = dict.fromkeys(k for v in values for k in v)
    return tuple(k for k in keys if len({str(v.get(k)) for v in values}) > 1)


def order_key(values: Mapping[str, SweptValue], params: Sequence[str]) -> tuple[tuple[int, float, str], ...]:
    """Members ordered by their values of ``params``: numbers by size (128 before 1024), before text."""
    key = []
    for p in params:
        n = number_of(values.get(p))
        key.append((0, n, "") if n is not None else (1, 0.0, str(values.get(p, ""))))
    return tuple(key)


def by_swept(jobs: Sequence[Swept]) -> tuple[tuple[str, ...], list[Swept]]:
    """What the jobs vary (`varied`) and the jobs ordered by it, in the order given where their values are equal:
    `srt-tui results GROUP`'s columns and rows, as the Results view's."""
    params = varied([values for _, values in jobs])
    return params, sorted(jobs, key=lambda j: order_key(j[1], params))


@dataclass(frozen=True)
class Series:
    """One line of the latency plot: its label (a member's job id, or the other swept values) and its points."""

    label: str
    points: tuple[tuple[float, LevelResult], ...]


@dataclass(frozen=True)
class LatencyAxis:
    """What the latency plot draws: its x axis (`concurrency` or a swept parameter) and its lines. ``per_job``:
    one line per member, in the members' order (their colours are their JOB cells')."""

    name: str
    series: tuple[Series, ...]
    per_job: bool

    @property
    def xs(self) -> set[float]:
        """Every x drawn."""
        return {x for s in self.series for x, _ in s.points}


def latency_axis(jobs: Sequence[Swept]) -> LatencyAxis:
    """Latency against concurrency, one line per member, unless every level of every member ran one concurrency
    and a swept parameter with a number for every member varies: then against the first such parameter, one line
    per value of the other varied parameters (one line for a sweep of one parameter)."""
    params = varied([values for _, values in jobs])
    concurrencies = {lv.concurrency for job, _ in jobs for lv in job.results.levels}
    numeric = [p for p in params if all(number_of(values.get(p)) is not None for _, values in jobs)]
    if len(concurrencies) != 1 or not numeric:
        lines = (Series(job.job, tuple((float(lv.concurrency), lv) for lv in job.results.levels)) for job, _ in jobs)
        return LatencyAxis(CONCURRENCY, tuple(lines), per_job=True)
    x, others = numeric[0], [p for p in params if p != numeric[0]]
    groups: dict[str, list[tuple[float, LevelResult]]] = {}
    for job, values in sorted(jobs, key=lambda j: order_key(j[1], others)):
        label = " ".join(f"{p}={values.get(p, '-')}" for p in others)
        groups.setdefault(label, []).extend((number_of(values[x]) or 0.0, lv) for lv in job.results.levels)
    series = (Series(label, tuple(sorted(points, key=lambda p: p[0]))) for label, points in groups.items())
    return LatencyAxis(x, tuple(series), per_job=False)
