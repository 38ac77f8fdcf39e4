"""Metric selectors from plan.json's metric contracts: `name` or `name{label="v",label!="v",label=~"re"}`.

Engines and routers declare which series hold their request counters (see `core.engines.base.Engine.
metrics`, `core.frontends.routers.base.Router.metrics`); the monitor reads those, whatever their prefix.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache

_SELECTOR = re.compile(r"^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?$")
_MATCHER = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*(?:,|$)')


@dataclass(frozen=True)
class Sample:
    """One parsed sample line."""

    name: str
    labels: tuple[tuple[str, str], ...]
    value: float

    def label(self, key: str) -> str:
        """A label value ('' when absent)."""
        return next((v for k, v in self.labels if k == key), "")


@dataclass(frozen=True)
class Selector:
    """A metric name and label matchers (`=`, `!=`, `=~` full-match regex)."""

    name: str
    matchers: tuple[tuple[str, str, str], ...] = ()

    def matches(self, sample: Sample) -> bool:
        """Does this sample belong to the selection."""
        if sample.name != self.name:
            return False
        for label, op, value in self.matchers:
            got = sample.label(label)
            if op == "=" and got != value or op == "!=" and got == value:
                return False
            if op == "=~" and re.fullmatch(value, got) is None:
                return False
        return True


@cache
def parse_selector(text: str) -> Selector | None:
    """The selector, or None when `text` is not one (a plan.json from elsewhere is read defensively)."""
    m = _SELECTOR.match(text.strip())
    if m is None:
        return None
    body, matchers, pos = m.group(2) or "", [], 0
    while pos < len(body):
        mm = _MATCHER.match(body, pos)
        if mm is None or mm.end() == pos:
            return None
        matchers.append((mm.group(1), mm.group(2), mm.group(3).replace('\\"', '"')))
        pos = mm.end()
    return Selector(m.group(1), tuple(matchers))


def names(contract: Mapping[str, object]) -> tuple[str, ...]:
    """Metric names a contract reads (to choose which exposition lines get parsed)."""
    out = []
    for value in contract.values():
        sel = parse_selector(value) if isinstance(value, str) else None
        if sel is not None:
            out.append(sel.name)
    return tuple(sorted(set(out)))


def total(samples: Iterable[Sample], contract: Mapping[str, object], key: str) -> float | None:
    """Sum of the samples the contract's `key` selects; None when the key is absent or nothing matched."""
    value = contract.get(key)
    sel = parse_selector(value) if isinstance(value, str) else None
    if sel is None:
        return None
    values = [s.value for s in samples if sel.matches(s)]
    return sum(values) if values else None
