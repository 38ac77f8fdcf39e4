"""Setup tests: the real local Slurm (3 netns nodes) for probes; stand-in GPU tools on the job's PATH."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.cluster import ClusterInfo, ensure_local_slurm


@pytest.fixture
def cluster() -> ClusterInfo:
    """The running test cluster (started once per session)."""
    return ensure_local_slurm(nodes=3)


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    """A directory every node sees (the nodes share this machine's file system)."""
    folder = tmp_path / "shared"
    folder.mkdir()
    os.chmod(folder, 0o755)
    return folder
