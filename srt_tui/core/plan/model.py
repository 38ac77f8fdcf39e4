"""JobPlan: the structured launch plan (nodes, processes, masks, ports, commands, env) and `plan.json`.

Built once from a ResolvedJob (core/plan/build.py); the launch script, the dry-run view and the wizard
grid read this one plan, and the monitor its `plan.json`, written through the typed records of
`document.py` (`document()` maps each step to its entry), so nothing is computed twice.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any

from srt_tui.core.capabilities import PdFlow, Registration, WorkerHealth, WorkerStart
from srt_tui.core.errors import Problem
from srt_tui.core.plan.deviations import DEVIATIONS
from srt_tui.core.plan.document import (
    PLAN_VERSION,
    Deviation,
    PlanDoc,
    PlanExporter,
    PlanHealthCheck,
    PlanNginx,
    PlanProcess,
    PlanRouter,
)
from srt_tui.core.spec.resolved import Mount
from srt_tui.core.spec.secrets import MASK


def deviations(ids: tuple[str, ...]) -> tuple[Deviation, ...]:
    """Deviation ids as plan.json names them: each with what it is."""
    return tuple(Deviation(i, DEVIATIONS[i].what) for i in ids)


#: PlanProcess fields written from a ProcessPlan field of the same name and value
_SAME = tuple(
    f.name for f in fields(PlanProcess) if f.name not in ("env", "secret_env", "config_files", "differs_from_srtctl")
)


@dataclass(frozen=True, kw_only=True)
class ProcessPlan:
    """One srun step: a worker rank, the router, an infra service or the benchmark. Built by keyword
    only: a step names what it has, everything else is the default of a step without it."""

    name: str
    role: str
    kind: str  # worker | router | infra | telemetry | nginx | benchmark
    node_index: int
    command: tuple[str, ...]
    log: str
    #: its GPUs and the mask that restricts it to them (None: the whole node's GPUs)
    gpus: tuple[int, ...] = ()
    visible_devices: str | None = None
    #: its HTTP port (0: none) and every port it listens on, by label
    port: int = 0
    ports: dict[str, int] = field(default_factory=dict)
    url: str | None = None
    health_url: str | None = None
    metrics_url: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    node_rank: int = 0
    nnodes: int = 1
    worker: str | None = None
    config_files: tuple[tuple[str, str], ...] = ()
    #: a container image of its own (pyxis), instead of the job's
    container_image: str | None = None
    #: secret variables as (name, `secrets.env` variable holding this process's value); never values
    secret_env: tuple[tuple[str, str], ...] = ()
    #: the recipe's setup script (first existing path runs before the command; srtctl's setup_script)
    setup_script: tuple[str, ...] = ()

    def shown_env(self) -> dict[str, str]:
        """The environment as previews show it: secrets by name, their values masked."""
        return {**dict(self.env), **{name: MASK for name, _ in self.secret_env}}

    #: an MPI step (LAUNCH_MPI engines): the nodes it spans, its task counts and `srun --mpi` plugin
    step_nodes: tuple[int, ...] = ()
    tasks: int = 1
    tasks_per_node: int = 1
    mpi: str | None = None
    #: the leader whose MPI step runs this node's ranks (this process gets no step of its own)
    launched_by: str | None = None

    #: shell that installs ai-dynamo inside the step before its command (after the setup script)
    install: str | None = None
    #: its request counters on /metrics: ok, failed, running, queued → `name` or `name{label="v"}`
    metrics: dict[str, str] = field(default_factory=dict)
    #: its serving families on /metrics (TTFT/ITL/E2E histograms, token counters, queue and KV gauges)
    #: by key of `core.engines.serving`; empty when the engine declares none
    serving: dict[str, str] = field(default_factory=dict)
    #: variables removed from the step's environment (inherited GPU visibility a subset must not see)
    unset_env: tuple[str, ...] = ()
    #: does the recipe's `srun_options` reach this step (srtctl: per-node workers yes, MPI workers, NATS/etcd
    #: and nginx no)
    recipe_srun_options: bool = True
    #: srun options of this step alone (`--mpi` for the Dynamo frontend, `--container-remap-root` for nginx)
    srun_step_options: tuple[tuple[str, str | None], ...] = ()
    #: where it launches differently from srtctl on purpose: ids of `core/plan/deviations.py`
    differs_from_srtctl: tuple[str, ...] = ()
    #: top-level packages its `python3 -m` module imports to start besides its own (the engine Dynamo's
    #: `dynamo.vllm` wraps), declared by its adapter; the host check asks them of its Python (not in plan.json)
    needs_packages: tuple[str, ...] = ()

    def document(self) -> PlanProcess:
        """Its plan.json entry: secrets and config files by name only, deviations with what they are."""
        return PlanProcess(
            **{name: getattr(self, name) for name in _SAME},
            env=dict(self.env),
            secret_env=tuple(name for name, _ in self.secret_env),
            config_files=tuple(name for name, _ in self.config_files),
            differs_from_srtctl=deviations(self.differs_from_srtctl),
        )


@dataclass(frozen=True, kw_only=True)
class RouterPlan:
    """The router process plus its readiness contract and expected registrations."""

    process: ProcessPlan
    type: str
    waits_for_healthy_workers: bool
    registration: Registration
    expected: dict[str, int]
    workers_url: str | None
    #: how workers start ("direct" or "dynamo") and where their health is read ("engine-http" or "system-port")
    worker_launch: WorkerStart = "direct"
    worker_health: WorkerHealth = "engine-http"
    #: how it runs a P/D request: "concurrent" or "sequential" (prefill, then decode)
    pd_flow: PdFlow = "concurrent"

    def document(self) -> PlanRouter:
        """Its plan.json entry: its process's keys, then its contract and expected registrations."""
        return PlanRouter(
            type=self.type,
            process=self.process.document(),
            waits_for_healthy_workers=self.waits_for_healthy_workers,
            registration=self.registration,
            expected=self.expected,
            expected_prefill=self.expected.get("prefill", 0),
            expected_decode=self.expected.get("decode", 0),
            expected_agg=self.expected.get("agg", 0),
            workers_url=self.workers_url,
            worker_launch=self.worker_launch,
            worker_health=self.worker_health,
            pd_flow=self.pd_flow,
        )


@dataclass(frozen=True)
class JobPlan:
    """Everything the launch script does, as data."""

    name: str
    profile: str
    topology: str
    engine: str
    frontend: str
    nodes: int
    gpus_per_node: int
    visible_devices_env: str
    network_interface: str
    container_runtime: str
    container_image: str | None
    model_path: str
    served_model_name: str
    directives: tuple[tuple[str, str | None], ...]
    mounts: tuple[Mount, ...]
    srun_options: tuple[tuple[str, str | None], ...]
    env_scopes: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]
    workers: tuple[ProcessPlan, ...]
    infra: tuple[ProcessPlan, ...]
    router: RouterPlan | None
    benchmark: ProcessPlan | None
    public_url: str
    health_interval_s: float
    health_max_attempts: int
    bash_preamble: str | None
    secret_env: tuple[str, ...]
    gpu_exporter: PlanExporter | None
    warnings: tuple[Problem, ...] = field(default=())
    #: one GPU-exporter step per node when the recipe enables telemetry
    telemetry: tuple[ProcessPlan, ...] = ()
    #: srtctl's profiling type (nsys, nsys-time, torch), artifacts under logs/profiles/<mode>/
    profiling: str | None = None
    #: starts the profiling capture window on every worker leader, just before the benchmark
    profile_trigger: ProcessPlan | None = None
    #: the recipe's `identity:` (model repo/revision, image, framework versions), checked at run time
    identity: dict[str, Any] | None = None
    #: the model directory as steps see it
    model_in_step: str = "/model"
    #: informational facts srtctl records in its job metadata
    precision: str | None = None
    gpu_type: str | None = None
    #: srtctl's multi-frontend layout: the routers after the first, and nginx in front of them all
    extra_routers: tuple[RouterPlan, ...] = ()
    nginx: ProcessPlan | None = None
    #: nginx.conf (placeholders for the routers' addresses), written to logs/nginx.conf by the job
    nginx_conf: str | None = None
    #: deliberate differences from srtctl every step shares (the mounts): ids of core/plan/deviations.py
    differs_from_srtctl: tuple[str, ...] = ()

    @property
    def serving(self) -> str:
        """`sglang behind sglang-router`, or `sglang serving directly` when no router runs."""
        return f"{self.engine} serving directly" if self.router is None else f"{self.engine} behind {self.frontend}"

    @property
    def front(self) -> str:
        """What takes the job's requests, as the job has it: `sglang-router`, or nginx before its routers
        (`nginx → 2 sglang-router`); the Submit step said `router sglang-router` of a job behind nginx."""
        if self.nginx is None:
            return self.frontend
        return f"nginx → {len(self.routers())} {self.frontend}"

    def processes(self) -> list[ProcessPlan]:
        """Every step in start order: infra, workers, GPU exporters, nginx, routers, benchmark."""
        out = [*self.infra, *self.workers, *self.telemetry, *([self.nginx] if self.nginx else [])]
        out += [r.process for r in self.routers()]
        return out + ([self.benchmark] if self.benchmark else [])

    def routers(self) -> list[RouterPlan]:
        """Every router: the first (`router`) and, behind nginx, the others."""
        return ([self.router] if self.router is not None else []) + list(self.extra_routers)

    def leaders(self) -> list[ProcessPlan]:
        """Worker processes that serve HTTP (node rank 0), i.e. what routers and health checks see."""
        return [p for p in self.workers if p.node_rank == 0]

    def expected_counts(self) -> dict[str, int]:
        """Workers per role (leaders only)."""
        counts: dict[str, int] = {}
        for p in self.leaders():
            counts[p.role] = counts.get(p.role, 0) + 1
        return counts

    def document(self) -> PlanDoc:
        """The `plan.json` document as its typed record (`core/plan/document.py`)."""
        routers = tuple(r.document() for r in self.routers())
        nginx = None
        if self.nginx is not None:
            nginx = PlanNginx(process=self.nginx.document(), upstreams=tuple(r.process.url for r in routers))
        return PlanDoc(
            version=PLAN_VERSION,
            name=self.name,
            profile=self.profile,
            topology=self.topology,
            engine=self.engine,
            frontend=self.frontend,
            nodes=self.nodes,
            gpus_per_node=self.gpus_per_node,
            visible_devices_env=self.visible_devices_env,
            network_interface=self.network_interface,
            container_runtime=self.container_runtime,
            container_image=self.container_image,
            model_path=self.model_path,
            served_model_name=self.served_model_name,
            sbatch_directives=self.directives,
            mounts=self.mounts,
            srun_options=self.srun_options,
            environment={scope: dict(pairs) for scope, pairs in self.env_scopes},
            secret_env=self.secret_env,
            processes=tuple(p.document() for p in self.workers),
            infra=tuple(p.document() for p in self.infra),
            telemetry=tuple(p.document() for p in self.telemetry),
            router=routers[0] if routers else None,
            routers=routers,
            nginx=nginx,
            benchmark=self.benchmark.document() if self.benchmark else None,
            profiling=self.profiling,
            profile_trigger=self.profile_trigger.document() if self.profile_trigger else None,
            public_url=self.public_url,
            health_check=PlanHealthCheck(self.health_interval_s, self.health_max_attempts),
            gpu_exporter=self.gpu_exporter,
            identity=self.identity,
            precision=self.precision,
            gpu_type=self.gpu_type,
            warnings=tuple(p.render() for p in self.warnings),
            differs_from_srtctl=deviations(self.differs_from_srtctl),
        )

    def to_json(self) -> dict[str, Any]:
        """The `plan.json` document as JSON values."""
        return self.document().to_json()

    def to_json_text(self) -> str:
        """`plan.json` text: stable key order, newline-terminated."""
        return json.dumps(self.to_json(), indent=2) + "\n"
