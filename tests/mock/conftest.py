"""Fixtures for the mocker tests: a per-module launcher of real worker and router processes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.mock.mockprocs import Launcher


@pytest.fixture(scope="module")
def launcher(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Launcher]:
    """A process launcher shared by one test module; everything it started is stopped afterwards."""
    launch = Launcher(tmp_path_factory.mktemp("mockprocs"))
    try:
        yield launch
    finally:
        launch.close()
