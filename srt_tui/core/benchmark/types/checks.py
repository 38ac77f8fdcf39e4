"""Checks several benchmark types share: required keys, positive values, concurrencies, request rate."""

from __future__ import annotations

from srt_tui.core.errors import Problem
from srt_tui.core.spec.recipe import BenchmarkSpec


def need(b: BenchmarkSpec, keys: tuple[str, ...], why: str, example: str) -> list[Problem]:
    """A refusal for each of `keys` the recipe left unset."""
    return [Problem(f"benchmark.{k}", why, f"set benchmark.{k}: {example}") for k in keys if getattr(b, k) is None]


def positive(b: BenchmarkSpec, keys: tuple[str, ...]) -> list[Problem]:
    """A refusal for each of `keys` set to zero or less."""
    out = []
    for k in keys:
        value = getattr(b, k)
        if value is not None and value <= 0:
            out.append(Problem(f"benchmark.{k}", f"must be positive, not {value}", f"set benchmark.{k} above 0"))
    return out


def concurrencies(b: BenchmarkSpec) -> list[Problem]:
    """`concurrencies` present, as positive integers (a list or srtctl's `4x8x16`)."""
    if b.concurrencies is None:
        return [
            Problem("benchmark.concurrencies", f"{b.type} needs concurrencies", "set benchmark.concurrencies: [8, 32]")
        ]
    try:
        levels = b.concurrency_list()
    except ValueError:
        levels = []
    if not levels or any(c < 1 for c in levels):
        return [
            Problem(
                "benchmark.concurrencies",
                f"must be positive integers as a list or `4x8x16`, not {b.concurrencies!r}",
                "set benchmark.concurrencies: [8, 32]",
            )
        ]
    return []


def req_rate(b: BenchmarkSpec) -> list[Problem]:
    """`req_rate` a positive number or `inf`."""
    rate = str(b.req_rate if b.req_rate is not None else "inf").strip().lower()
    if rate == "inf":
        return []
    try:
        ok = float(rate) > 0
    except ValueError:
        ok = False
    return (
        []
        if ok
        else [
            Problem(
                "benchmark.req_rate",
                f"must be a positive number or inf, not {b.req_rate!r}",
                "set benchmark.req_rate: inf",
            )
        ]
    )
