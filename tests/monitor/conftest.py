"""Monitor test fixtures: a Monitor with short timeouts and back-off, closed after the test."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from srt_tui.monitor.snapshot.collect import Monitor


@pytest.fixture
async def monitor() -> AsyncIterator[Monitor]:
    """No Slurm; faults show within a second or two instead of the defaults' tens of seconds."""
    m = Monitor(None, http_timeout=2.0, connect_timeout=0.5, budget_s=1.0, backoff_base=0.2, backoff_cap=0.5)
    try:
        yield m
    finally:
        await m.aclose()
