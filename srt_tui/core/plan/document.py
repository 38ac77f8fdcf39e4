"""`plan.json` as typed records (`records.py`): one definition of each field, used to write it (from a
JobPlan, see `model.py`) and to read it back (the monitor, through `core/jobdir/contract.py`, which turns
a `DocError` into a `JobDirError` naming the file).

A record's fields are the document's keys, in the order they are written; a key that is absent or null
takes the field's default, so plans written before a key existed still read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from srt_tui.core.plan.records import FLAT, OMIT_EMPTY, REQUIRED, Record
from srt_tui.core.spec.resolved import Mount

#: the newest `plan.json` format this srt-tui writes and reads (a file without `version` is 1)
PLAN_VERSION = 1


@dataclass(frozen=True)
class Deviation(Record):
    """A deliberate difference from srtctl: its id in `core/plan/deviations.py` and what it is."""

    id: str
    what: str = ""


@dataclass(frozen=True)
class PlanProcess(Record):
    """One srun step's entry: a worker rank, a router, an infra service, an exporter or the benchmark."""

    name: str = ""
    role: str = ""
    #: worker | router | infra | telemetry | benchmark
    kind: str = ""
    node_index: int = 0
    gpus: tuple[int, ...] = ()
    visible_devices: str | None = None
    port: int | None = None
    ports: dict[str, int] = field(default_factory=dict)
    url: str | None = None
    health_url: str | None = None
    metrics_url: str | None = None
    command: tuple[str, ...] = ()
    #: its environment, secret variables left out (their names are in `secret_env`)
    env: dict[str, str] = field(default_factory=dict)
    log: str = ""
    node_rank: int = 0
    nnodes: int = 1
    worker: str | None = None
    #: the names of the files written next to its command
    config_files: tuple[str, ...] = ()
    container_image: str | None = None
    secret_env: tuple[str, ...] = ()
    setup_script: tuple[str, ...] = ()
    step_nodes: tuple[int, ...] = ()
    tasks: int = 1
    tasks_per_node: int = 1
    mpi: str | None = None
    launched_by: str | None = None
    install: str | None = None
    #: its request counters on /metrics: ok, failed, running, queued → selector
    metrics: dict[str, str] = field(default_factory=dict)
    #: its serving families on /metrics by key of `core.engines.serving`
    serving: dict[str, str] = field(default_factory=dict, metadata=OMIT_EMPTY)
    unset_env: tuple[str, ...] = field(default=(), metadata=OMIT_EMPTY)
    recipe_srun_options: bool = True
    srun_step_options: tuple[tuple[str, str | None], ...] = ()
    differs_from_srtctl: tuple[Deviation, ...] = ()


@dataclass(frozen=True)
class PlanRouter(Record):
    """A router's entry: its process, its readiness contract and the registrations it expects."""

    type: str = ""
    process: PlanProcess = field(default_factory=PlanProcess, metadata=FLAT)
    waits_for_healthy_workers: bool = False
    #: how the monitor counts its workers (`core.capabilities.Registration`; any string read)
    registration: str = "router-workers"
    expected: dict[str, int] = field(default_factory=dict)
    expected_prefill: int = 0
    expected_decode: int = 0
    expected_agg: int = 0
    workers_url: str | None = None
    worker_launch: str = "direct"
    worker_health: str = "engine-http"
    #: how it runs a P/D request (`core.capabilities.PdFlow`): "concurrent" or "sequential"; "" in plans written
    #: before the key existed (the monitor then asks the adapter of `type`)
    pd_flow: str = ""


@dataclass(frozen=True)
class PlanNginx(Record):
    """nginx in front of several routers: its process, its config file and the routers' URLs."""

    process: PlanProcess = field(default_factory=PlanProcess, metadata=FLAT)
    config: str = "logs/nginx.conf"
    upstreams: tuple[str | None, ...] = ()


@dataclass(frozen=True)
class PlanExporter(Record):
    """The GPU metrics exporter: where it came from, how to read it, and whether the job starts it."""

    source: str = ""
    image: str = ""
    port: int = 0
    kind: str = ""
    launched: bool = False
    #: the label whose value is the GPU index
    gpu_label: str = ""
    #: gpu_util | power | temperature → metric name
    metrics: dict[str, str] = field(default_factory=dict)
    metrics_urls: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlanHealthCheck(Record):
    """How long the launch script waits for workers to answer."""

    interval_seconds: float = 0.0
    max_attempts: int = 0


@dataclass(frozen=True)
class PlanDoc(Record):
    """`plan.json`: the job's shape and every process, as written at submission."""

    #: a file without it is version 1 (the writer sets PLAN_VERSION)
    version: int = 1
    name: str = ""
    profile: str = ""
    topology: str = ""
    engine: str = ""
    frontend: str = ""
    nodes: int = 0
    gpus_per_node: int = 0
    visible_devices_env: str = ""
    network_interface: str = ""
    container_runtime: str = ""
    container_image: str | None = None
    model_path: str = ""
    served_model_name: str = ""
    sbatch_directives: tuple[tuple[str, str | None], ...] = ()
    mounts: tuple[Mount, ...] = ()
    srun_options: tuple[tuple[str, str | None], ...] = ()
    #: scope (global, a role, infra, telemetry…) → its variables
    environment: dict[str, dict[str, str]] = field(default_factory=dict)
    #: names of the job's secret variables (values live only in its 0600 secrets.env)
    secret_env: tuple[str, ...] = ()
    #: the workers (required: a plan without workers is not a plan)
    processes: tuple[PlanProcess, ...] = field(default=(), metadata=REQUIRED)
    infra: tuple[PlanProcess, ...] = ()
    telemetry: tuple[PlanProcess, ...] = ()
    router: PlanRouter | None = None
    routers: tuple[PlanRouter, ...] = ()
    nginx: PlanNginx | None = None
    benchmark: PlanProcess | None = None
    profiling: str | None = None
    profile_trigger: PlanProcess | None = None
    public_url: str = ""
    health_check: PlanHealthCheck = field(default_factory=PlanHealthCheck)
    gpu_exporter: PlanExporter | None = None
    #: the recipe's `identity:` as written (free-form: model repo, revision, versions)
    identity: dict[str, Any] | None = None
    precision: str | None = None
    gpu_type: str | None = None
    warnings: tuple[str, ...] = ()
    differs_from_srtctl: tuple[Deviation, ...] = ()

    def all_routers(self) -> tuple[PlanRouter, ...]:
        """Every router: `routers` (srtctl's multi-frontend layout), or the one `router` of older plans."""
        return self.routers or ((self.router,) if self.router is not None else ())


__all__ = [
    "PLAN_VERSION",
    "Deviation",
    "PlanDoc",
    "PlanExporter",
    "PlanHealthCheck",
    "PlanNginx",
    "PlanProcess",
    "PlanRouter",
]
