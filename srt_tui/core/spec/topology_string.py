"""Topology strings (`1P1D`, `2P1D`, `4P8D`, `agg`, `agg2`): a compact view of role worker counts."""

from __future__ import annotations

import re
from dataclasses import dataclass

from srt_tui.core.errors import config_error

_PD = re.compile(r"^\s*(\d+)\s*[pP]\s*(\d+)\s*[dD]\s*$")
_AGG = re.compile(r"^\s*agg\s*(\d*)\s*$", re.I)


@dataclass(frozen=True)
class TopologySpec:
    """Worker counts per role; agg > 0 means aggregated serving."""

    prefill: int = 0
    decode: int = 0
    agg: int = 0

    @property
    def disaggregated(self) -> bool:
        """True when prefill and decode run as separate workers."""
        return self.agg == 0

    def __str__(self) -> str:
        return f"agg{self.agg}" if self.agg else f"{self.prefill}P{self.decode}D"


#: digits of one role's worker count: a longer number is no topology (and `int()` of thousands of digits
#: is slow and then refused by Python itself); the job's real bound is checked when it is resolved
_MAX_DIGITS = 6


def parse_topology(text: str) -> TopologySpec:
    """Parse `xPyD` or `aggN`; anything else is a clear error."""
    if len(text) > 64 or any(len(run) > _MAX_DIGITS for run in re.findall(r"\d+", text)):
        raise config_error(
            f"topology `{text[:40]}{'…' if len(text) > 40 else ''}` asks for more workers than any cluster has",
            field="--topology",
            hint="write xPyD or aggN with the worker counts of one job, e.g. 2P1D or agg4",
        )
    m = _PD.match(text)
    if m:
        p, d = int(m.group(1)), int(m.group(2))
        if p < 1 or d < 1:
            raise config_error(
                f"topology `{text}` needs at least one prefill and one decode worker",
                field="--topology",
                hint="e.g. 1P1D, 2P1D or agg2",
            )
        return TopologySpec(prefill=p, decode=d)
    m = _AGG.match(text)
    if m:
        n = int(m.group(1) or 1)
        if n < 1:
            raise config_error(
                "aggregated topology needs at least one worker", field="--topology", hint="e.g. agg or agg2"
            )
        return TopologySpec(agg=n)
    raise config_error(
        f"cannot read topology `{text}`",
        field="--topology",
        hint="write xPyD (1P1D, 2P1D, 1P2D, 4P8D) or aggN (agg, agg2)",
    )


#: a topology written inside a name, e.g. `h100-1p1d-sglang`, `mocker-agg2`
_IN_NAME = re.compile(r"(?<![A-Za-z0-9])(\d+[pP]\d+[dD]|[aA][gG][gG]\d+)(?![A-Za-z0-9])")


def rename_for(name: str, old: TopologySpec, new: TopologySpec) -> str:
    """`name` with the topology it spells replaced by `new`, when it spells `old` (same case).

    A recipe named `mocker-1p1d` run as 2P1D becomes job `mocker-2p1d`, so `squeue` and the
    Monitor do not show a job under a topology it does not have. Names that spell no topology,
    or one other than the recipe's own (srtctl names sometimes count nodes), are kept.
    """

    def swap(m: re.Match[str]) -> str:
        if parse_topology(m.group(0)) != old:
            return m.group(0)
        return str(new).lower() if m.group(0) == m.group(0).lower() else str(new)

    return name if new == old else _IN_NAME.sub(swap, name)
