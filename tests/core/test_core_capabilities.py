"""The capability vocabulary is closed: every value an adapter declares or a job script matches is one of the
Literal's, so a new value has to be named in core/capabilities.py (and handled where it is matched)."""

from __future__ import annotations

import re
from typing import get_args

from srt_tui.core.capabilities import (
    LaunchStyle,
    PdFlow,
    Registration,
    WorkerApi,
    WorkerHealth,
    WorkerPort,
    WorkerStart,
)
from srt_tui.core.engines import ENGINES
from srt_tui.core.frontends.routers import ROUTERS
from srt_tui.core.template_files import template


def test_every_adapter_declares_values_of_the_vocabulary() -> None:
    for router in ROUTERS.values():
        assert router.registration in get_args(Registration), router.name
        assert router.worker_launch in get_args(WorkerStart), router.name
        assert router.worker_health in get_args(WorkerHealth), router.name
        assert router.worker_api in get_args(WorkerApi), router.name
        assert router.worker_port in get_args(WorkerPort), router.name
        assert router.pd_flow in get_args(PdFlow), router.name
    for engine in ENGINES.values():
        assert engine.launch_style in get_args(LaunchStyle), engine.name


def test_the_job_script_matches_only_registrations_that_exist() -> None:
    """runtime.sh's readiness wait branches on SRT_ROUTER_REGISTRATION: a branch for a value no router can
    declare is dead, a renamed value would fall through to the default wait."""
    runtime = template("runtime.sh")
    block = runtime[runtime.index("case $SRT_ROUTER_REGISTRATION in") :]
    block = block[: block.index("esac")]
    branches = set(re.findall(r"^\s+([a-z-]+)\)", block, re.M))
    assert branches and branches <= set(get_args(Registration)), branches
