"""Monitor test fixtures: a Monitor with short timeouts and back-off, closed after the test; one real mock
worker per test module (`agg_0`), stopped after the module."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from srt_tui.monitor.snapshot.collect import Monitor
from tests.mock.mockprocs import Launcher, Worker


@pytest.fixture
async def monitor() -> AsyncIterator[Monitor]:
    """No Slurm; faults show within a second or two instead of the defaults' tens of seconds."""
    m = Monitor(None, http_timeout=2.0, connect_timeout=0.5, budget_s=1.0, backoff_base=0.2, backoff_cap=0.5)
    try:
        yield m
    finally:
        await m.aclose()


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    """A real mock engine worker (`agg_0`) the module's job directories point at."""
    launcher = Launcher(tmp_path_factory.mktemp("worker"))
    try:
        (w,) = launcher.workers(("regular", "agg_0"))
        yield w
    finally:
        launcher.close()
