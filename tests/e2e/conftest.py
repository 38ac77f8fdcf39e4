"""End-to-end fixtures: the shared local Slurm, and the jobs a test starts (cancelled whatever happened)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.cluster import ClusterInfo, ensure_local_slurm
from tests.e2e.jobtools import srt


@pytest.fixture(scope="module")
def cluster() -> ClusterInfo:
    """The running test cluster (started once per session, SLURM_CONF exported)."""
    return ensure_local_slurm(nodes=3)


@pytest.fixture
def jobs(cluster: ClusterInfo) -> Iterator[list[str]]:
    """Job ids started by a test; cancelled afterwards whatever happened."""
    started: list[str] = []
    yield started
    for job_id in started:
        srt("cancel", job_id, check=False)
