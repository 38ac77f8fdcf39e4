"""Host programs a plan runs without a container (`container_runtime: none`): each process's program must be
on this machine's PATH, or the job fails in 0 s with exit 127 (issue 21, defect 10); a process started as
`python3 -m MODULE` (the engines, sglang-router, Dynamo, the mocker) needs that module importable by that Python,
or it fails at once with `No module named …`, and so does each package its adapter declares the module imports to
start (`dynamo.vllm` imports `vllm`, which ai-dynamo does not install: issue 21, op11). Checked by `dry-run`, the
wizard's Submit step and `apply`'s preflight before anything runs.

A container brings its own programs, so with pyxis nothing is checked here.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from srt_tui.core.errors import Problem
from srt_tui.core.plan.model import JobPlan, ProcessPlan

if TYPE_CHECKING:
    from srt_tui.core.spec.recipe import Recipe

#: how to install the programs the frontends and routers start (others: put it on PATH)
INSTALL_HINTS: dict[str, str] = {
    "nginx": "apt-get install nginx (it fronts the routers of a job that spans nodes with several frontends)",
    "nats-server": "install nats-server onto PATH (https://github.com/nats-io/nats-server/releases; Dynamo needs it)",
    "etcd": "apt-get install etcd-server, or put the etcd binary on PATH (Dynamo needs it)",
    "sglang-router": "pip install sglang-router",
    "vllm-router": "pip install vllm-router",
}

#: the package that provides a module a job starts with `python3 -m` (others: named by the module)
MODULE_PACKAGES: dict[str, str] = {
    "sglang": "sglang",
    "vllm": "vllm",
    "dynamo": "ai-dynamo ai-dynamo-runtime",
    "sglang_router": "sglang-router",
    "tensorrt_llm": "tensorrt-llm",
    "srt_tui": "srt-tui",
}

#: a Python interpreter as a command names it (`python`, `python3`, `python3.11`, `/opt/venv/bin/python3`)
_PYTHON = re.compile(r"(^|/)python(\d+(\.\d+)?)?$")

#: the variables that decide which Python runs and what it imports, taken from a process's own environment
_PYTHON_ENV = ("PATH", "PYTHONPATH", "PYTHONHOME", "PYTHONNOUSERSITE", "PYTHONUSERBASE", "VIRTUAL_ENV")

#: the answers per (interpreter, environment, module), with when they were given: found once, found for the session;
#: a missing one is asked again after MISSING_KEPT_S (one installed meanwhile stops being reported, and the wizard's
#: Submit step, which asks for each launcher as it draws, does not start the interpreter each time)
_ANSWERS: dict[tuple[str, tuple[tuple[str, str], ...], str], tuple[bool, float]] = {}
MISSING_KEPT_S = 5.0

#: what the interpreter runs: each top-level name and whether it is importable (find_spec imports nothing for one)
_FIND = (
    "import importlib.util, sys\n"
    "for name in sys.argv[1:]:\n"
    "    try:\n"
    "        found = importlib.util.find_spec(name) is not None\n"
    "    except (ImportError, ValueError):\n"
    "        found = False\n"
    "    print(name, int(found))\n"
)


@dataclass(frozen=True)
class MissingProgram:
    """A program the plan starts that this machine does not have (or, with ``module``, a Python that cannot import
    that module), and the processes that start it."""

    program: str
    processes: tuple[str, ...]
    #: the top-level module `program -m …` cannot import ('' : the program itself is missing)
    module: str = ""
    #: where the program was found (the interpreter that lacks ``module``)
    interpreter: str = ""
    #: the module the processes run that imports ``module`` ('' : they run ``module`` itself)
    needed_by: str = ""

    def problem(self) -> Problem:
        """The finding as a Problem: what is missing, who runs it, and the fix."""
        who = ", ".join(self.processes)
        if self.module:
            package = MODULE_PACKAGES.get(self.module)
            install = (
                f"`{self.interpreter} -m pip install {package}`"
                if package
                else f"install the package that provides `{self.module}` into {self.interpreter}"
            )
            by = f", which `{self.needed_by}` imports," if self.needed_by else ""
            return Problem(
                field="container_runtime: none",
                message=f"`{self.module}`{by} is not importable by `{self.program}` ({self.interpreter}); {who} "
                "would fail at once",
                hint=f"{install}, or put a Python that has it first on PATH, or run the job in a container "
                "(container_runtime: pyxis)",
                severity="warning",
            )
        hint = INSTALL_HINTS.get(self.program, f"install `{self.program}` on PATH")
        return Problem(
            field="container_runtime: none",
            message=f"`{self.program}` is not on this machine's PATH; {who} would fail at once",
            hint=f"{hint}, or run the job in a container (container_runtime: pyxis)",
            severity="warning",
        )


def said_missing(missing: list[MissingProgram]) -> str:
    """What is missing in a few words (the wizard's Submit status line): "`nginx` not on this machine's PATH;
    `sglang` not importable by python3"."""
    programs = [f"`{m.program}`" for m in missing if not m.module]
    parts = [f"{', '.join(programs)} not on this machine's PATH"] if programs else []
    modules: dict[str, list[str]] = {}
    for m in missing:
        if m.module:
            modules.setdefault(m.program, []).append(f"`{m.module}`")
    parts += [f"{', '.join(names)} not importable by {python}" for python, names in modules.items()]
    return "; ".join(parts)


def _processes(plan: JobPlan) -> list[ProcessPlan]:
    routers = [r.process for r in (plan.router, *plan.extra_routers) if r is not None]
    extra = [p for p in (plan.nginx, plan.benchmark, plan.profile_trigger) if p is not None]
    return [*plan.infra, *plan.workers, *routers, *extra, *plan.telemetry]


def _which(program: str, path: str | None = None) -> str | None:
    if "/" in program:
        return program if os.access(program, os.X_OK) else None
    return shutil.which(program, path=path)


def _python_module(process: ProcessPlan) -> tuple[str, str] | None:
    """(interpreter, module) of a process started as `… python3 -m pkg.mod …`, else None."""
    cmd = process.command
    for i, word in enumerate(cmd[:-2]):
        if _PYTHON.search(word) and cmd[i + 1] == "-m":
            return word, cmd[i + 2]
    return None


def _python_env(process: ProcessPlan) -> tuple[tuple[str, str], ...] | None:
    """The process's own values of the variables that choose the Python and its imports; None when one is not known
    before the job runs (it names a variable or a placeholder), so its modules cannot be checked from here."""
    own = tuple((k, v) for k, v in process.env if k in _PYTHON_ENV)
    if any(("$" in v or "<" in v or "{" in v) for _, v in own):
        return None
    return own


def _importable(interpreter: str, env: tuple[tuple[str, str], ...], modules: list[str]) -> dict[str, bool]:
    """Which of ``modules`` ``interpreter`` can import with the process's ``env`` over this one's (a module not in
    the answer could not be checked: the interpreter did not run or answer)."""
    now = time.monotonic()
    known: dict[str, bool] = {}
    for m in modules:
        found, when = _ANSWERS.get((interpreter, env, m), (False, -MISSING_KEPT_S - 1))
        if found or now - when <= MISSING_KEPT_S:
            known[m] = found
    ask = [m for m in modules if m not in known]
    if not ask:
        return known
    full: Mapping[str, str] = {**os.environ, **dict(env)}
    try:  # from `/`: the job does not run in this shell's directory, whose modules it would not see
        proc = subprocess.run(
            [interpreter, "-c", _FIND, *ask], env=full, cwd="/", capture_output=True, text=True, timeout=20
        )
    except (OSError, subprocess.SubprocessError):
        return known
    if proc.returncode != 0:
        return known
    for line in proc.stdout.splitlines():
        name, _, flag = line.partition(" ")
        if name in ask and flag in ("0", "1"):
            known[name] = flag == "1"
            _ANSWERS[interpreter, env, name] = (known[name], now)
    return known


def _missing_modules(processes: list[ProcessPlan], skip: set[str]) -> list[MissingProgram]:
    """The `python3 -m MODULE` processes whose Python (found here, with their environment) cannot import MODULE's
    top-level package, or a package their adapter says MODULE imports to start (``needs_packages``)."""
    users: dict[tuple[str, str, tuple[tuple[str, str], ...], str, str], list[str]] = {}
    for process in processes:
        started = _python_module(process)
        env = _python_env(process)
        if started is None or env is None or process.setup_script:  # a setup script may install or activate it
            continue
        program, module = started
        interpreter = _which(program, dict(env).get("PATH", os.environ.get("PATH")))
        if program in skip or interpreter is None:
            continue
        wanted = [(module.split(".")[0], ""), *((package, module) for package in process.needs_packages)]
        for package, needed_by in wanted:
            users.setdefault((program, interpreter, env, package, needed_by), []).append(process.name)
    asked: dict[tuple[str, tuple[tuple[str, str], ...]], list[str]] = {}
    for _, interpreter, env, package, _ in users:
        asked.setdefault((interpreter, env), [])
        if package not in asked[interpreter, env]:
            asked[interpreter, env].append(package)
    answers = {key: _importable(key[0], key[1], modules) for key, modules in asked.items()}
    return [
        MissingProgram(program, tuple(names), package, interpreter, needed_by)
        for (program, interpreter, env, package, needed_by), names in users.items()
        if answers[interpreter, env].get(package) is False
    ]


def missing_programs(plan: JobPlan) -> list[MissingProgram]:
    """Programs of a container-less plan not found here, in the order the job starts them, then the modules the
    `python3 -m` processes cannot import (none with pyxis)."""
    if plan.container_runtime != "none":
        return []
    processes = _processes(plan)
    users: dict[str, list[str]] = {}
    for process in processes:
        if process.command and not process.command[0].startswith(("$", "{")):
            users.setdefault(process.command[0], []).append(process.name)
    programs = [MissingProgram(p, tuple(names)) for p, names in users.items() if _which(p) is None]
    return [*programs, *_missing_modules(processes, {m.program for m in programs})]


def recipe_host_modules(recipe: Recipe) -> tuple[str, ...] | None:
    """The Python packages a recipe's workers start from on the host (`container_runtime: none`): its engine's, and
    Dynamo's when its router starts them under Dynamo; None when the engine declares none. Worked out as the recipe
    list reads a file, so a row is checked against this machine's `python3` (`importable_here`) with no model."""
    from srt_tui.core.engines import get_engine
    from srt_tui.core.frontends.routers import resolve_router
    from srt_tui.core.spec.resolved import topology_of

    engine = get_engine(recipe.engine.type)
    if engine.host_modules is None:
        return None
    workers = sum(spec.workers for spec in recipe.roles.values())
    router = resolve_router(recipe.frontend.type, topology_of(recipe).disaggregated, workers)
    if router.worker_launch == "dynamo":  # `dynamo.<engine>`: ai-dynamo, and the engine it wraps
        return ("dynamo", *engine.needs_packages("dynamo"))
    return engine.host_modules


def importable_here(modules: Sequence[str]) -> dict[str, bool]:
    """Which of ``modules`` the `python3` on this machine's PATH imports, as a container-less job's `python3 -m …`
    processes need (each False when there is no `python3`); one it could not be asked about is left out. The answers
    are kept as `missing_programs` keeps them: the Submit step asks the same interpreter."""
    interpreter = _which("python3")
    if interpreter is None:
        return dict.fromkeys(modules, False)
    return _importable(interpreter, (), list(dict.fromkeys(modules)))
