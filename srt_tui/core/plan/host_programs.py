"""Host programs a plan runs without a container (`container_runtime: none`): each process's program must be
on this machine's PATH, or the job fails in 0 s with exit 127 (issue 21, defect 10). Checked by `dry-run`,
the wizard's Submit step and `apply`'s preflight before anything runs.

A container brings its own programs, so with pyxis nothing is checked here.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

from srt_tui.core.errors import Problem
from srt_tui.core.plan.model import JobPlan, ProcessPlan

#: how to install the programs the frontends and routers start (others: put it on PATH)
INSTALL_HINTS: dict[str, str] = {
    "nginx": "apt-get install nginx (it fronts the routers of a job that spans nodes with several frontends)",
    "nats-server": "install nats-server onto PATH (https://github.com/nats-io/nats-server/releases; Dynamo needs it)",
    "etcd": "apt-get install etcd-server, or put the etcd binary on PATH (Dynamo needs it)",
    "sglang-router": "pip install sglang-router",
    "vllm-router": "pip install vllm-router",
}


@dataclass(frozen=True)
class MissingProgram:
    """A program the plan starts that this machine does not have, and the processes that start it."""

    program: str
    processes: tuple[str, ...]

    def problem(self) -> Problem:
        """The finding as a Problem: what is missing, who runs it, and the fix."""
        hint = INSTALL_HINTS.get(self.program, f"install `{self.program}` on PATH")
        return Problem(
            field="container_runtime: none",
            message=f"`{self.program}` is not on this machine's PATH; {', '.join(self.processes)} would fail at once",
            hint=f"{hint}, or run the job in a container (container_runtime: pyxis)",
            severity="warning",
        )


def _processes(plan: JobPlan) -> list[ProcessPlan]:
    routers = [r.process for r in (plan.router, *plan.extra_routers) if r is not None]
    extra = [p for p in (plan.nginx, plan.benchmark, plan.profile_trigger) if p is not None]
    return [*plan.infra, *plan.workers, *routers, *extra, *plan.telemetry]


def _found(program: str) -> bool:
    if "/" in program:
        return os.access(program, os.X_OK)
    return shutil.which(program) is not None


def missing_programs(plan: JobPlan) -> list[MissingProgram]:
    """Programs of a container-less plan not found here, in the order the job starts them (none with pyxis)."""
    if plan.container_runtime != "none":
        return []
    users: dict[str, list[str]] = {}
    for process in _processes(plan):
        if process.command and not process.command[0].startswith(("$", "{")):
            users.setdefault(process.command[0], []).append(process.name)
    return [MissingProgram(p, tuple(names)) for p, names in users.items() if not _found(p)]
