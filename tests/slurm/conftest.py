"""Fixtures of the Slurm transport tests: the real local cluster and the captured outputs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_REPO = str(Path(__file__).resolve().parents[2])
if _REPO not in sys.path:  # `tests.cluster` when only tests/slurm is collected
    sys.path.insert(0, _REPO)

from tests.cluster import ClusterInfo, ensure_local_slurm  # noqa: E402

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def local_slurm() -> ClusterInfo:
    """The running 3-node netns test cluster (started if needed); SLURM_CONF is exported."""
    return ensure_local_slurm(nodes=3)
