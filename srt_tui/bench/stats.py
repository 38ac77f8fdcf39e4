"""Bench arithmetic and presentation: per-request outcomes, percentiles, level summaries, the table."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from srt_tui.bench.sa_bench import percentile as linear_percentile


@dataclass(frozen=True)
class Outcome:
    """One request as the client saw it."""

    ok: bool
    latency_s: float
    ttft_s: float | None = None
    output_tokens: int = 0
    answered_by: str | None = None
    error: str | None = None
    finished_at: float | None = None  # wall clock, so a reader can line requests up with other sources


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0..100) with linear interpolation between ranks, as sa-bench computes it;
    None for no values."""
    return linear_percentile(values, q) if values else None


def _ms(value: float | None) -> float | None:
    """Seconds to milliseconds, rounded for the report."""
    return None if value is None else round(value * 1000.0, 3)


def answered_by(outcomes: Iterable[Outcome]) -> dict[str, int]:
    """Successful requests per answering worker (the first generated token)."""
    counts = Counter(o.answered_by for o in outcomes if o.ok and o.answered_by)
    return dict(sorted(counts.items()))


def summarize_level(concurrency: int, outcomes: Sequence[Outcome], duration_s: float, stream: bool) -> dict[str, Any]:
    """One concurrency level's block of the results."""
    good = [o for o in outcomes if o.ok]
    latencies = [o.latency_s for o in good]
    tokens = sum(o.output_tokens for o in good)
    rate_base = duration_s if duration_s > 0 else math.inf
    block: dict[str, Any] = {
        "concurrency": concurrency,
        "requests": len(outcomes),
        "ok": len(good),
        "errors": len(outcomes) - len(good),
        "duration_s": round(duration_s, 4),
        "output_tokens": tokens,
        "request_throughput": round(len(good) / rate_base, 4),
        "output_token_throughput": round(tokens / rate_base, 4),
        "latency_ms": {
            "p50": _ms(percentile(latencies, 50)),
            "p90": _ms(percentile(latencies, 90)),
            "p99": _ms(percentile(latencies, 99)),
            "mean": _ms(sum(latencies) / len(latencies)) if latencies else None,
        },
        "answered_by": answered_by(outcomes),
        "error_samples": sorted(Counter(o.error for o in outcomes if o.error).items(), key=lambda kv: -kv[1])[:5],
        # every successful request as [finished at (wall clock), output tokens, TTFT ms]: a reader can take the
        # figures of any time window, e.g. the one a monitor's two scrapes spanned
        "finished": [[round(o.finished_at, 3), o.output_tokens, _ms(o.ttft_s)] for o in good if o.finished_at],
    }
    if stream:
        ttfts = [o.ttft_s for o in good if o.ttft_s is not None]
        block["ttft_ms"] = {
            "p50": _ms(percentile(ttfts, 50)),
            "p90": _ms(percentile(ttfts, 90)),
            "p99": _ms(percentile(ttfts, 99)),
        }
    return block


def totals(levels: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The totals block over every level."""
    duration = sum(level["duration_s"] for level in levels)
    ok = sum(level["ok"] for level in levels)
    tokens = sum(level["output_tokens"] for level in levels)
    return {
        "requests": sum(level["requests"] for level in levels),
        "ok": ok,
        "errors": sum(level["errors"] for level in levels),
        "duration_s": round(duration, 4),
        "output_tokens": tokens,
        "request_throughput": round(ok / duration, 4) if duration > 0 else 0.0,
        "output_token_throughput": round(tokens / duration, 4) if duration > 0 else 0.0,
    }


def _cell(value: Any, width: int, digits: int = 1) -> str:
    """A right-aligned table cell; missing values show as a dash."""
    if value is None:
        return "-".rjust(width)
    if isinstance(value, float):
        return f"{value:.{digits}f}".rjust(width)
    return str(value).rjust(width)


def format_table(result: dict[str, Any]) -> str:
    """Readable summary of a bench result."""
    header = [
        "conc",
        "reqs",
        "ok",
        "err",
        "dur_s",
        "req/s",
        "tok/s",
        "p50_ms",
        "p90_ms",
        "p99_ms",
        "ttft_p50",
    ]
    widths = [5, 6, 6, 5, 8, 8, 10, 9, 9, 9, 9]
    lines = [
        f"bench {result['url']}{result['endpoint']} model={result['model']} isl={result['isl']} "
        f"osl={result['osl']} stream={result['stream']}",
        " ".join(h.rjust(w) for h, w in zip(header, widths, strict=True)),
    ]
    for level in result["results"]:
        lat = level["latency_ms"]
        ttft = level.get("ttft_ms", {}).get("p50")
        cells = [
            level["concurrency"],
            level["requests"],
            level["ok"],
            level["errors"],
            float(level["duration_s"]),
            float(level["request_throughput"]),
            float(level["output_token_throughput"]),
            lat["p50"],
            lat["p90"],
            lat["p99"],
            ttft,
        ]
        lines.append(
            " ".join(_cell(c, w, 2 if i in (4, 5) else 1) for i, (c, w) in enumerate(zip(cells, widths, strict=True)))
        )
        for error, count in level["error_samples"]:
            lines.append(f"      {count}x {error}")
    tot = result["totals"]
    lines.append(
        f"total: {tot['ok']}/{tot['requests']} ok, {tot['errors']} errors, "
        f"{tot['request_throughput']:.2f} req/s, {tot['output_token_throughput']:.1f} tok/s"
    )
    served = result["answered_by"]
    lines.append("answered by: " + (" ".join(f"{k}={v}" for k, v in served.items()) or "-"))
    return "\n".join(lines)
