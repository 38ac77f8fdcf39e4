"""What the plan says about one worker, for its detail view: command, environment (secrets masked),
placement and mask, ports, and the last lines of its log (any secret value that slipped in masked).

Read from the job directory through the core's contract, off the UI thread; nothing here knows Textual.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from srt_tui.core.jobdir.bounded import read_bytes
from srt_tui.core.jobdir.contract import PLAN_FILE, JobDirError, parse_plan, read_endpoints
from srt_tui.core.placeholders import with_nodes
from srt_tui.core.plan.document import PlanProcess
from srt_tui.core.spec.secrets import MASK, masked_env, redact, secret_names
from srt_tui.monitor.files.jobfiles import tail

LOG_LINES = 12


@dataclass(frozen=True)
class WorkerFacts:
    """One worker process as planned (every value safe to show), or why the plan could not say."""

    name: str
    problem: str = ""
    role: str = ""
    node_index: int = 0
    nnodes: int = 1
    gpus: tuple[int, ...] = ()
    #: the variable the mask is set in (`CUDA_VISIBLE_DEVICES`, `ROCR_VISIBLE_DEVICES`) and its value
    mask_var: str = ""
    mask: str | None = None
    #: (label, port): http first, then bootstrap/system/… as the plan names them
    ports: tuple[tuple[str, int], ...] = ()
    urls: tuple[tuple[str, str], ...] = ()
    command: str = ""
    env: tuple[tuple[str, str], ...] = ()
    container_image: str = ""
    log: str = ""
    log_tail: tuple[str, ...] = ()


def _ports(proc: PlanProcess) -> tuple[tuple[str, int], ...]:
    ports: dict[str, int] = {} if proc.port is None else {"http": proc.port}
    for label, port in proc.ports.items():
        ports.setdefault(label, port)
    return tuple(ports.items())


def read_worker_facts(job_dir: Path, name: str, log_lines: int = LOG_LINES) -> WorkerFacts:
    """The facts of process ``name`` in ``job_dir``'s plan.json; a missing or damaged plan is said, not guessed."""
    path = job_dir / PLAN_FILE
    try:
        plan = parse_plan(path, read_bytes(path, "plan"))
    except FileNotFoundError:
        return WorkerFacts(name, problem=f"{PLAN_FILE} is missing: the job directory has no plan to show")
    except OSError as exc:
        return WorkerFacts(name, problem=f"{PLAN_FILE} cannot be read ({exc.strerror or exc})")
    except JobDirError as exc:
        return WorkerFacts(name, problem=exc.short)
    proc = next((p for p in plan.processes if p.name == name), None)
    if proc is None:
        return WorkerFacts(name, problem=f"{PLAN_FILE} has no process named {name!r}")
    # the addresses and host names the running job wrote, in place of their placeholders (`<ip:node0>`)
    try:
        endpoints = read_endpoints(job_dir)
        ips, hosts = list(endpoints.node_ips()), list(endpoints.hostnames())
    except JobDirError:  # not written yet (or damaged): the plan's placeholders stay
        ips, hosts = [], []
    env = {k: with_nodes(v, ips, hosts) for k, v in proc.env.items()}
    declared = [*plan.secret_env, *proc.secret_env]
    names = secret_names(declared)
    # a value set for a secret name (a hand-edited or older plan) is masked wherever it would show
    secret_values = [v for k, v in env.items() if k in names and v != MASK]
    shown = masked_env(env, declared)
    for secret in declared:
        shown.setdefault(secret, MASK)  # set from secrets.env at launch: named, never valued
    log = job_dir / (proc.log or f"logs/{name}.log")
    planned = (("url", proc.url), ("health_url", proc.health_url), ("metrics_url", proc.metrics_url))
    urls = tuple((k, url) for k, url in planned if url)
    return WorkerFacts(
        name=name,
        role=proc.role,
        node_index=proc.node_index,
        nnodes=proc.nnodes or 1,
        gpus=proc.gpus,
        mask_var=plan.visible_devices_env,
        mask=proc.visible_devices,
        ports=_ports(proc),
        urls=urls,
        command=redact(shlex.join(with_nodes(arg, ips, hosts) for arg in proc.command), secret_values),
        env=tuple(sorted(shown.items())),
        container_image=proc.container_image or "",
        log=str(log),
        log_tail=tuple(redact(line, secret_values) for line in tail(log, log_lines)),
    )
