"""The data-parallel ranks of one mock worker: which rank serves each request, and what each rank served.

A DP-aware router names the rank it chose: smg and sglang-router put `routed_dp_rank` in the body (SGLang
before 0.5 read `data_parallel_rank`), vLLM's API server takes the `X-data-parallel-rank` header. A
request that names none is placed by the worker itself, round-robin as SGLang's DP controller does, so
every rank serves either way; the two are counted apart, so a test can tell the router's choice from
the worker's. A rank outside 0..dp_size-1 is refused (400), as the engine refuses it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: body fields that name the rank, the current SGLang spelling first
RANK_FIELDS = ("routed_dp_rank", "data_parallel_rank")
#: vLLM's header (headers arrive lower-cased)
RANK_HEADER = "x-data-parallel-rank"


@dataclass
class RankCounts:
    """What one rank served: answered, failed, how many the router placed here, and in flight now."""

    ok: int = 0
    failed: int = 0
    routed: int = 0
    running: int = 0
    running_tokens: int = 0

    def as_dict(self, rank: int) -> dict[str, int]:
        """JSON form, with the rank."""
        return {"rank": rank, "ok": self.ok, "failed": self.failed, "routed": self.routed, "running": self.running}


def _as_rank(value: Any, what: str) -> int:
    """An integer rank from a body field or header value, else a ValueError naming where it came from."""
    if isinstance(value, bool):
        raise ValueError(f"{what} must be an integer, not {value!r}")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be an integer, not {value!r}") from None


class DPRanks:
    """Per-rank counters of a worker with `dp_size` ranks, and the round-robin cursor for unnamed requests."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.ranks = [RankCounts() for _ in range(size)]
        self._next = 0

    def named(self, body: Any, headers: Mapping[str, str]) -> int | None:
        """The rank the request names (body field first, then header), None when it names none."""
        if isinstance(body, dict):
            for name in RANK_FIELDS:
                if body.get(name) is not None:
                    return _as_rank(body[name], name)
        raw = headers.get(RANK_HEADER)
        return _as_rank(raw.strip(), RANK_HEADER) if raw is not None and raw.strip() else None

    def place(self, body: Any, headers: Mapping[str, str]) -> tuple[int, bool]:
        """(rank, named by the router) for one request; ValueError when the named rank does not exist."""
        rank = self.named(body, headers)
        if rank is None:
            rank, self._next = self._next, (self._next + 1) % self.size
            return rank, False
        if not 0 <= rank < self.size:
            raise ValueError(f"data-parallel rank {rank} is out of range: this worker has ranks 0..{self.size - 1}")
        self.ranks[rank].routed += 1
        return rank, True

    def record(self, rank: int, ok: bool) -> None:
        """Count one finished request on its rank."""
        counts = self.ranks[rank]
        if ok:
            counts.ok += 1
        else:
            counts.failed += 1

    def as_list(self) -> list[dict[str, int]]:
        """Every rank's counters, in rank order."""
        return [counts.as_dict(rank) for rank, counts in enumerate(self.ranks)]
