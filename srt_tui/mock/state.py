"""Mutable runtime state of one mock worker: test controls, request counters and in-flight work."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from srt_tui.mock.config import WorkerConfig
from srt_tui.mock.dpranks import DPRanks
from srt_tui.mock.latency import LatencyHistogram, histograms_for

GENERATION_PATHS = ("/generate", "/v1/completions", "/v1/chat/completions")
KV_CAPACITY_TOKENS = 65536
RECENT_REQUESTS = 256
KEEP_TEXT_CHARS = 200
KEEP_LIST_ITEMS = 32


def compact(value: Any) -> Any:
    """A copy of a JSON value with long strings and lists cut, so recent-request memory stays small."""
    if isinstance(value, str) and len(value) > KEEP_TEXT_CHARS:
        return f"{value[:KEEP_TEXT_CHARS]}... ({len(value)} chars)"
    if isinstance(value, list):
        items = [compact(v) for v in value[:KEEP_LIST_ITEMS]]
        return items + [f"... ({len(value)} items)"] if len(value) > KEEP_LIST_ITEMS else items
    if isinstance(value, dict):
        return {key: compact(v) for key, v in value.items()}
    return value


@dataclass
class Counts:
    """Requests answered successfully and not."""

    ok: int = 0
    failed: int = 0

    def as_dict(self) -> dict[str, int]:
        """JSON form."""
        return {"ok": self.ok, "failed": self.failed}


@dataclass
class WorkerState:
    """What changes while a worker runs; controls start from the launch configuration."""

    healthy: bool = True
    latency_ms: float = 0.0
    token_latency_ms: float = 2.0
    fail_rate: float = 0.0
    load_override: int | None = None
    load_tokens_override: int | None = None
    running: int = 0
    running_tokens: int = 0
    prompt_tokens_total: int = 0
    generation_tokens_total: int = 0
    generation_success_total: int = 0
    disconnects: int = 0
    bootstrap_seen: int = 0
    bootstrap_mismatch: int = 0
    #: a decode's waits for its prefill's KV (P/D bootstrap rendezvous), and those that failed
    kv_waits: int = 0
    kv_wait_failures: int = 0
    kv_from: dict[str, int] = field(default_factory=dict)
    paths: dict[str, Counts] = field(default_factory=dict)
    recent: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=RECENT_REQUESTS))
    started_at: float = field(default_factory=time.time)
    dp: DPRanks = field(default_factory=lambda: DPRanks(1))
    #: TTFT / inter-token / end-to-end latency of successful generations ("ttft", "itl", "e2e")
    latency: dict[str, LatencyHistogram] = field(default_factory=lambda: histograms_for("sglang"))

    @classmethod
    def from_config(cls, config: WorkerConfig) -> WorkerState:
        """Initial state with the launch-time controls."""
        return cls(
            latency_ms=config.latency_ms,
            token_latency_ms=config.token_latency_ms,
            fail_rate=config.fail_rate,
            dp=DPRanks(config.dp_size),
            latency=histograms_for(config.flavor),
        )

    def record(self, path: str, ok: bool) -> None:
        """Count one finished request under its path."""
        counts = self.paths.setdefault(path, Counts())
        if ok:
            counts.ok += 1
        else:
            counts.failed += 1

    def totals(self) -> Counts:
        """Counts over every path."""
        return Counts(sum(c.ok for c in self.paths.values()), sum(c.failed for c in self.paths.values()))

    def generation(self) -> Counts:
        """Counts over the generation paths only (what a router sends work to)."""
        chosen = [self.paths[p] for p in GENERATION_PATHS if p in self.paths]
        return Counts(sum(c.ok for c in chosen), sum(c.failed for c in chosen))

    @property
    def token_usage(self) -> float:
        """Fraction of the pretend KV cache held by in-flight requests."""
        return min(1.0, self.running_tokens / KV_CAPACITY_TOKENS)

    def load(self) -> tuple[int, int]:
        """(requests, tokens) reported as load: the override when set, else live in-flight work."""
        if self.load_override is not None:
            tokens = self.load_tokens_override if self.load_tokens_override is not None else self.load_override
            return self.load_override, tokens
        return self.running, self.running_tokens

    def stats(self, config: WorkerConfig) -> dict[str, Any]:
        """The ``/mock/stats`` document."""
        totals = self.totals()
        return {
            "worker": config.name,
            "role": config.role,
            "flavor": config.flavor,
            "uptime_s": round(time.time() - self.started_at, 3),
            "healthy": self.healthy,
            "latency_ms": self.latency_ms,
            "token_latency_ms": self.token_latency_ms,
            "fail_rate": self.fail_rate,
            "load_override": self.load_override,
            "ok": totals.ok,
            "failed": totals.failed,
            "generation": self.generation().as_dict(),
            "paths": {path: counts.as_dict() for path, counts in sorted(self.paths.items())},
            "running": self.running,
            "prompt_tokens": self.prompt_tokens_total,
            "generation_tokens": self.generation_tokens_total,
            "disconnects": self.disconnects,
            "pd": {
                "bootstrap_seen": self.bootstrap_seen,
                "bootstrap_mismatch": self.bootstrap_mismatch,
                "kv_from": dict(self.kv_from),
                "kv_waits": self.kv_waits,
                "kv_wait_failures": self.kv_wait_failures,
            },
            "dp_ranks": self.dp.as_list(),
        }
