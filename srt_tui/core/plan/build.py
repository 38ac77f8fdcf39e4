"""Build a JobPlan from a ResolvedJob: placement, ports, each process's command and environment.

Validation runs first (an error-level finding stops here); then workers, infrastructure, routers (and
nginx), GPU exporters, the profiling trigger and the benchmark step, in the order the script starts them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from srt_tui.core import placeholders as ph
from srt_tui.core.benchmark import BenchContext, benchmark_launch
from srt_tui.core.engines import get_engine
from srt_tui.core.engines.base import DP_RPC_PORT, LAUNCH_MPI, Engine, WorkerContext, WorkerLaunch, arg_int
from srt_tui.core.engines.serving import serving_contract
from srt_tui.core.errors import TopologyError
from srt_tui.core.frontends import dynamo
from srt_tui.core.frontends.nginx import NGINX_SRUN_OPTIONS, frontend_layout, nginx_argv, nginx_conf
from srt_tui.core.frontends.routers import job_router
from srt_tui.core.frontends.routers.base import Router, RouterContext, WorkerURL
from srt_tui.core.plan.document import PlanExporter
from srt_tui.core.plan.model import JobPlan, ProcessPlan, RouterPlan
from srt_tui.core.plan.profiling import trigger_targets, worker_env, worker_prefix
from srt_tui.core.plan.topology import (
    Placement,
    allocate,
    dp_port_blocks,
    place,
    port_collisions,
    with_recipe_ports,
)
from srt_tui.core.plan.validate import clean_args, errors, served_name, validate
from srt_tui.core.spec.profile import exporter_argv, exporter_readout
from srt_tui.core.spec.recipe import Recipe
from srt_tui.core.spec.resolved import ResolvedJob
from srt_tui.core.spec.secrets import MASK, secret_ref
from srt_tui.core.template_files import template


def _unset_for(job: ResolvedJob, mask: str | None) -> tuple[str, ...]:
    """The inherited visibility variables a masked worker drops (its own mask variable is set instead)."""
    if mask is None:
        return ()
    return tuple(v for v in job.profile.subset_unset_env if v != job.visible_devices_env)


def _control_url(worker: ProcessPlan, system_port: bool) -> str:
    """Where a worker leader answers control requests: its system server (Dynamo) or its own HTTP port."""
    if system_port and "sys" in worker.ports:
        return ph.url(worker.node_index, worker.ports["sys"])
    return worker.url or ""


def _templated(env: dict[str, str], values: dict[str, str]) -> list[tuple[str, str]]:
    """`{node}` / `{node_id}` in worker env values (srtctl's templating; other braces stay as written)."""
    return [(key, ph.fill_marks(value, values)) for key, value in env.items()]


def _split_env(
    job: ResolvedJob, scoped: list[tuple[str, Iterable[tuple[str, str]]]], managed: Iterable[tuple[str, str]] = ()
) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """A process's env from its scopes in order (later wins), then srt-tui's own values.

    Returns (public pairs, secret refs): a declared secret keeps the value of the scope that set it
    last, read at run time from that scope's `secrets.env` entry, so roles never share one value.
    """
    merged: dict[str, tuple[str, str | None]] = {}
    for scope, pairs in scoped:
        for k, v in pairs:
            merged[k] = (v, scope)
    for k, v in managed:
        merged[k] = (v, None)
    public = tuple((k, v) for k, (v, scope) in merged.items() if scope is None or k not in job.secret_names)
    refs = tuple(
        (k, secret_ref(scope, k)) for k, (_, scope) in merged.items() if scope is not None and k in job.secret_names
    )
    return public, refs


def build_plan(job: ResolvedJob) -> JobPlan:
    """Validate and plan a resolved job; any error-level finding raises TopologyError."""
    problems = validate(job)
    fatal = errors(problems)
    if fatal:
        raise TopologyError(fatal)
    recipe, gpn = job.recipe, job.gpus_per_node
    engine = get_engine(recipe.engine.type)
    router_kind = job_router(job)
    system_port = router_kind.worker_health == "system-port"  # Dynamo workers: health, metrics, control there
    public_port = recipe.frontend.port if router_kind.worker_port == "public" else None
    endpoints = allocate(
        job.shapes, gpn, job.total_nodes, recipe.resources.spread_workers, first_node=job.reserved_nodes
    )
    placements, moved = with_recipe_ports(
        place(endpoints, gpn, public_port),
        engine.port_flags,
        {r: recipe.roles[r].args for r in recipe.active_roles()},
    )
    if engine.ports_per_dp_rank:
        ranks: dict[str, tuple[int, int]] = {
            r: (arg_int(recipe.roles[r].args, engine.dp_flags) or 1, _replica(engine, recipe.roles[r].args))
            for r in recipe.active_roles()
        }
        placements = dp_port_blocks(placements, ranks)
    collisions = port_collisions(placements, moved)
    if collisions:
        raise TopologyError(collisions)
    served = served_name(job)
    disagg = job.topology.disaggregated
    global_env = job.env("global")
    dyn = router_kind.worker_launch == "dynamo"
    head = job.reserved_nodes  # the first worker node: router and benchmark run there
    # srtctl starts NATS and etcd for most frontends inside its containers; on hosts without containers (which
    # srtctl does not run) only a frontend that uses them (Dynamo's discovery) gets them, so the embedded demo
    # asks for no nats-server or etcd on the operator's machine
    services = router_kind.infrastructure if dyn or job.container_runtime != "none" else frozenset()
    infra = _infra(job, services)
    infra_env = dynamo.discovery_env(0) if infra and dyn else []  # the Dynamo frontend's; srtctl gives no other
    plane_env = dynamo.plane_env(recipe.dynamo) if dyn else []
    install = dynamo.install_script(recipe.dynamo) if dyn and _installs(job) else None
    workers: list[ProcessPlan] = []
    mpi_leaders: dict[str, WorkerLaunch] = {}  # an MPI worker's launch, shared by the ranks on its other nodes
    dp_rpc = _dp_rpc_ports(engine, recipe, placements)
    for pl in placements:
        role = pl.role
        args, _ = clean_args(engine, role, dict(recipe.roles[role].args), disagg)
        for port_field, key in moved.get(role, {}).items():
            if getattr(pl.ports, port_field):  # honoured through the placement's port, not passed twice
                args.pop(key, None)
        ctx = WorkerContext(
            name=pl.name,
            role=role,
            worker_index=pl.endpoint.index,
            node_index=pl.node_index,
            leader_node=pl.endpoint.nodes[0],
            node_rank=pl.node_rank,
            nnodes=len(pl.endpoint.nodes),
            gpus=pl.gpus,
            subset=pl.subset,
            ports=pl.ports,
            disaggregated=disagg,
            worker_api=router_kind.worker_api,
            model=job.model_in_step,
            served_name=served,
            visible_devices_env=job.visible_devices_env,
            engine=recipe.engine,
            args=args,
            extra_args=tuple(recipe.roles[role].extra_args),
            worker_launch=router_kind.worker_launch,
            request_plane=recipe.dynamo.request_plane if dyn else None,
            gpu_type=recipe.resources.gpu_type or job.profile.default_gpu_type,
            dp_rpc_port=dp_rpc.get(pl.endpoint.name, 0),
        )
        mpi_leader = mpi_leaders.get(pl.endpoint.name) if engine.launch_style == LAUNCH_MPI else None
        launch = engine.launch(ctx) if mpi_leader is None else mpi_leader
        mask = (
            ",".join(str(g) for g in pl.gpus)
            if pl.subset and engine.should_set_visible_devices(recipe.engine)
            else None
        )
        managed = [*([(job.visible_devices_env, mask)] if mask is not None else []), *launch.env]
        managed += worker_env(recipe.profiling, role, engine.torch_profiler_env)
        per_node = engine.launch_style != LAUNCH_MPI
        nsys = worker_prefix(
            recipe.profiling, f"{ph.LOGS}/profiles/{role}/{pl.name}", engine.nsys_traces, dyn and per_node
        )
        here = {"{node}": ph.host(pl.node_index), "{node_id}": str(pl.node_index)}  # srtctl's worker env templating
        # srtctl's worker-stage variables come first, so the recipe's environment may override them
        dyn_env = dynamo.worker_stage_env(recipe.dynamo, head, 0, pl.ports.sys, per_node)
        dyn_env += dynamo.health_gate_env() if dyn else []
        scoped: list[tuple[str, Iterable[tuple[str, str]]]] = [
            ("dynamo", dyn_env),
            (role, _templated(job.env(role), here)),
            ("global", _templated(global_env, here)),
        ]
        env, secret_env = _split_env(job, scoped, managed)
        unset = (*_unset_for(job, mask), *launch.unset_env)
        http = pl.ports.http
        url = ph.url(pl.node_index, http) if http else None
        # a Dynamo worker's health and metrics are its system server's; an HTTP engine's its own port's
        probe = ph.url(pl.node_index, pl.ports.sys) if system_port else url
        mpi: dict[str, Any] = {}
        if engine.launch_style == LAUNCH_MPI:
            if mpi_leader is None:
                mpi_leaders[pl.endpoint.name] = launch
                mpi = {
                    "step_nodes": pl.endpoint.nodes,
                    "tasks": len(pl.gpus) * len(pl.endpoint.nodes),
                    "tasks_per_node": len(pl.gpus),
                    "mpi": job.profile.mpi_plugin,
                }
            else:
                mpi = {"launched_by": pl.endpoint.name}
        workers.append(
            ProcessPlan(
                name=pl.name,
                role=role,
                kind="worker",
                node_index=pl.node_index,
                gpus=pl.gpus,
                visible_devices=mask,
                port=http,
                ports=pl.ports.listening(),
                url=url,
                health_url=f"{probe}/health" if probe else None,
                metrics_url=f"{probe}/metrics" if probe else None,
                command=(*nsys, *launch.argv),
                env=env,
                secret_env=secret_env,
                setup_script=job.setup_script,
                log=f"logs/{pl.name if mpi_leader is None else pl.endpoint.name}.log",  # MPI ranks: the step log
                node_rank=pl.node_rank,
                nnodes=len(pl.endpoint.nodes),
                worker=pl.endpoint.name,
                config_files=launch.config_files if mpi_leader is None else (),
                install=install,
                metrics=dict(router_kind.worker_metrics if dyn else engine.metrics),
                serving={} if dyn else serving_contract(engine.serving_metrics, router_kind.worker_api),
                unset_env=unset,
                recipe_srun_options=per_node,  # srtctl gives its MPI steps the backend's srun options alone
                differs_from_srtctl=(
                    *(("health-gate",) if dyn else ()),
                    *(("subset-unset",) if _unset_for(job, mask) else ()),
                    *launch.differs_from_srtctl,
                ),
                **mpi,
            )
        )
    leaders = [w for w in workers if w.node_rank == 0]
    hc = job.health_check
    fe = recipe.frontend
    rctx = RouterContext(
        node_index=head,
        port=fe.port,
        metrics_port=fe.metrics_port,
        disaggregated=disagg,
        args=dict(fe.args),
        engine=recipe.engine,
        startup_timeout_s=int(hc.max_attempts * hc.interval_seconds),
        in_container=job.container_runtime == "pyxis",
        workers=tuple(WorkerURL(w.name, w.role, w.url or "", w.ports.get("bootstrap", 0)) for w in leaders),
    )
    expected: dict[str, int] = {}
    for w in leaders:
        expected[w.role] = expected.get(w.role, 0) + 1
    rscopes: list[tuple[str, Iterable[tuple[str, str]]]] = [
        ("dynamo", [*infra_env, *plane_env]),
        ("global", global_env.items()),
        ("frontend", job.env("frontend").items()),
    ]
    routers, nginx, nginx_text = _frontends(job, router_kind, rctx, expected, rscopes, install)
    router_plan = routers[0] if routers else None
    if nginx is not None:
        public = nginx.url or ""
    elif router_plan is not None:
        public = router_plan.process.url or ""
    else:
        public = leaders[0].url or ""
    bench = _benchmark_step(job, workers, public, served, global_env, head, system_port)
    secrets = sorted({k for _, pairs in job.env_scopes for k, _ in pairs if k in job.secret_names})
    exporter, telemetry = _gpu_exporter(job)
    # the capture window starts on each leader just before the benchmark (Dynamo: its system server's /engine)
    targets = trigger_targets(
        recipe.profiling,
        [(w.role, _control_url(w, system_port) + ("/engine" if system_port else "")) for w in leaders],
    )
    profile_trigger = (
        ProcessPlan(
            name="profile_trigger",
            role="benchmark",
            kind="benchmark",
            node_index=head,
            command=("python3", "-c", template("profile_trigger.py"), json.dumps(targets, sort_keys=True)),
            log="logs/profile_trigger.log",
        )
        if targets
        else None
    )
    return JobPlan(
        name=recipe.name,
        profile=job.profile_name,
        topology=str(job.topology),
        engine=engine.name,
        frontend=router_kind.name,
        nodes=job.total_nodes,
        gpus_per_node=gpn,
        visible_devices_env=job.visible_devices_env,
        network_interface=job.interface,
        container_runtime=job.container_runtime,
        container_image=job.container_image,
        model_path=job.model_path,
        served_model_name=served,
        directives=job.directives,
        mounts=job.mounts,
        srun_options=job.srun_options,
        env_scopes=tuple(
            (s, tuple((k, MASK if k in job.secret_names else v) for k, v in pairs)) for s, pairs in job.env_scopes
        ),
        workers=tuple(workers),
        infra=tuple(infra),
        router=router_plan,
        extra_routers=routers[1:],
        nginx=nginx,
        nginx_conf=nginx_text,
        benchmark=bench,
        public_url=public,
        health_interval_s=hc.interval_seconds,
        health_max_attempts=hc.max_attempts,
        bash_preamble=job.bash_preamble,
        secret_env=tuple(secrets),
        gpu_exporter=exporter,
        telemetry=telemetry,
        identity=recipe.identity.expected() if recipe.identity else None,
        profile_trigger=profile_trigger,
        profiling=recipe.profiling.type if recipe.profiling and recipe.profiling.type != "none" else None,
        model_in_step=job.model_in_step,
        precision=recipe.model.precision,
        gpu_type=recipe.resources.gpu_type or job.profile.default_gpu_type,
        warnings=tuple(p for p in problems if p.severity != "error"),
        differs_from_srtctl=("read-only-mounts",)
        if any(m.readonly and m.source == "built-in" for m in job.mounts)
        else (),
    )


def _replica(engine: Engine, args: dict[str, Any]) -> int:
    """GPUs of one data-parallel replica: TP x PP."""
    return (arg_int(args, engine.tp_flags) or 1) * (arg_int(args, engine.pp_flags) or 1)


def _dp_rpc_ports(engine: Engine, recipe: Recipe, placements: list[Placement]) -> dict[str, int]:
    """srtctl's data-parallel RPC ports: 8400 upwards on each leader node, one per endpoint whose role runs
    data parallel (only engines that take the port read it)."""
    out: dict[str, int] = {}
    per_node: dict[int, int] = {}
    for pl in placements:
        if pl.node_rank or (arg_int(recipe.roles[pl.role].args, engine.dp_flags) or 1) <= 1:
            continue
        out[pl.endpoint.name] = per_node.get(pl.node_index, DP_RPC_PORT)
        per_node[pl.node_index] = out[pl.endpoint.name] + 1
    return out


def _installs(job: ResolvedJob) -> bool:
    """Is ai-dynamo installed at job start: asked for, and the steps run in containers (validate warns otherwise)."""
    return job.recipe.dynamo.install and job.container_runtime != "none"


def _infra(job: ResolvedJob, services: frozenset[str]) -> list[ProcessPlan]:
    """NATS and etcd on node 0 (the head node, or the node reserved for them), as the router needs them."""
    out: list[ProcessPlan] = []
    if "nats" in services:
        argv, conf = dynamo.nats_argv(job.recipe.infra)
        port = dynamo.NATS_PORT
        out.append(
            ProcessPlan(
                name="nats",
                role="infra",
                kind="infra",
                node_index=0,
                port=port,
                ports={"client": port},
                command=argv,
                log="logs/nats.log",
                config_files=conf,
                recipe_srun_options=False,
            )
        )
    if "etcd" in services:
        port, peer = dynamo.ETCD_CLIENT_PORT, dynamo.ETCD_PEER_PORT
        out.append(
            ProcessPlan(
                name="etcd",
                role="infra",
                kind="infra",
                node_index=0,
                port=port,
                ports={"client": port, "peer": peer},
                command=dynamo.etcd_argv(0),
                log="logs/etcd.log",
                recipe_srun_options=False,
            )
        )
    return out


def _router_image(job: ResolvedJob) -> str | None:
    """`frontend.container_image` (a profile alias or an image), the router's own image under pyxis, as the
    fork runs `smg` from an image of its own; None: the job's image (validation warns without pyxis)."""
    image = job.recipe.frontend.container_image
    if not image or job.container_runtime != "pyxis":
        return None
    return (job.profile.containers or {}).get(image, image)


def _frontends(
    job: ResolvedJob,
    kind: Router,
    ctx: RouterContext,
    expected: dict[str, int],
    scoped: list[tuple[str, Iterable[tuple[str, str]]]],
    install: str | None,
) -> tuple[tuple[RouterPlan, ...], ProcessPlan | None, str | None]:
    """The routers as srtctl lays them out (core/frontends.py), and nginx with its config when it fronts them."""
    fe = job.recipe.frontend
    layout = frontend_layout(fe, ctx.node_index, job.worker_nodes, kind.launch(ctx) is not None)
    routers: list[RouterPlan] = []
    for i, node in enumerate(layout.router_nodes):
        launch = kind.launch(replace(ctx, node_index=node, port=layout.router_port))
        if launch is None:
            break
        port, name = layout.router_port, "router" if i == 0 else f"router_{i}"
        url = ph.url(node, port)
        metrics = (
            ph.url(node, fe.metrics_port, "/metrics")
            if kind.has_metrics_port
            else (f"{url}/metrics" if kind.metrics else None)
        )
        ports = {"http": port} | ({"metrics": fe.metrics_port} if kind.has_metrics_port else {})
        env, secret_env = _split_env(job, scoped, launch.env)
        proc = ProcessPlan(
            name=name,
            role="router",
            kind="router",
            node_index=node,
            port=port,
            ports=ports,
            url=url,
            health_url=f"{url}/health",
            metrics_url=metrics,
            command=launch.argv,
            env=env,
            log=f"logs/{name}.log",
            secret_env=secret_env,
            setup_script=job.setup_script,
            install=install,
            metrics=dict(kind.metrics),
            container_image=_router_image(job),
            serving=dict(kind.serving_metrics),
            srun_step_options=(("mpi", job.profile.mpi_plugin),) if launch.mpi else (),
            differs_from_srtctl=(*launch.differs_from_srtctl, *(("router-srun-options",) if job.srun_options else ())),
        )
        registration = launch.registration or kind.registration
        routers.append(
            RouterPlan(
                process=proc,
                type=kind.name,
                waits_for_healthy_workers=kind.waits_for_healthy_workers,
                registration=registration,
                expected=expected,
                workers_url=f"{url}/workers" if registration == "router-workers" else None,
                worker_launch=kind.worker_launch,
                worker_health=kind.worker_health,
            )
        )
    if layout.nginx_node is None or not routers:
        return tuple(routers), None, None
    url = ph.url(layout.nginx_node, fe.port)
    in_container = job.container_runtime == "pyxis"
    nginx = ProcessPlan(
        name="nginx",
        role="frontend",
        kind="nginx",
        node_index=layout.nginx_node,
        port=fe.port,
        ports={"http": fe.port},
        url=url,
        health_url=f"{url}/health",
        command=nginx_argv(job.nginx_raise_ulimit, in_container),
        log="logs/nginx.log",
        container_image=job.nginx_image,
        recipe_srun_options=False,
        srun_step_options=NGINX_SRUN_OPTIONS if in_container else (),
    )
    return tuple(routers), nginx, nginx_conf(fe, layout, job.nginx_raise_ulimit)


def secret_values(job: ResolvedJob) -> dict[str, str]:
    """Secret env values of a job, one entry per scope that sets one (only in the job's 0600 secrets file)."""
    return {secret_ref(scope, k): v for scope, pairs in job.env_scopes for k, v in pairs if k in job.secret_names}


def _gpu_exporter(job: ResolvedJob) -> tuple[PlanExporter | None, tuple[ProcessPlan, ...]]:
    """The exporter as plan.json describes it, and its steps: one per node, only with telemetry enabled."""
    e = job.gpu_exporter
    if e is None:
        return None, ()
    argv = exporter_argv(e, ph.BIND)
    telemetry = job.recipe.telemetry
    launched = telemetry is not None and telemetry.enabled and argv is not None
    label, metrics = exporter_readout(e)
    doc = PlanExporter(
        source=job.exporter_source,
        image=e.container_image,
        port=e.port,
        kind=e.kind,
        launched=launched,
        gpu_label=label,
        metrics=metrics,
        metrics_urls=tuple(ph.url(n, e.port, "/metrics") for n in range(job.total_nodes)),
    )
    if not launched or argv is None:
        return doc, ()
    image = e.container_image if job.container_runtime == "pyxis" else None
    env, secret_env = _split_env(job, [("telemetry", job.env("telemetry").items())])
    steps = tuple(
        ProcessPlan(
            name=f"gpu_exporter_{n}",
            role="telemetry",
            kind="telemetry",
            node_index=n,
            port=e.port,
            ports={"metrics": e.port},
            metrics_url=ph.url(n, e.port, "/metrics"),
            command=argv,
            env=env,
            log=f"logs/gpu_exporter_{n}.log",
            container_image=image,
            secret_env=secret_env,
        )
        for n in range(job.total_nodes)
    )
    return doc, steps


def _benchmark_step(
    job: ResolvedJob,
    workers: list[ProcessPlan],
    public: str,
    served: str,
    global_env: dict[str, str],
    head: int,
    system_port: bool,
) -> ProcessPlan | None:
    """The benchmark on the head node once the router is ready; srtctl's SRT_* variables, then the recipe's env.

    `system_port`: the workers publish health and metrics on their system port (Dynamo), not their HTTP port.
    """
    recipe = job.recipe
    gpus = {role: sum(len(w.gpus) for w in workers if w.role == role) for role in ("prefill", "decode", "agg")}
    leaders = [w for w in workers if w.node_rank == 0]
    ctx = BenchContext(
        name=recipe.name,
        engine=recipe.engine.type,
        frontend=recipe.frontend.type,
        public_url=public,
        model=job.model_in_step,
        served=served,
        gpus_total=sum(gpus.values()),
        gpus_prefill=gpus["prefill"],
        gpus_decode=gpus["decode"],
        disaggregated=job.topology.disaggregated,
        leaders=tuple((w.role, w.url or "") for w in leaders),
        endpoints=tuple((w.role, _control_url(w, system_port)) for w in leaders),
    )
    launch = benchmark_launch(ctx, recipe.benchmark)
    if launch is None:
        return None
    scoped: list[tuple[str, Iterable[tuple[str, str]]]] = [
        ("benchmark", launch.env),
        ("global", global_env.items()),
        ("benchmark", job.env("benchmark").items()),
    ]
    env, secret_env = _split_env(job, scoped)
    image = launch.image if job.container_runtime == "pyxis" else None
    return ProcessPlan(
        name="benchmark",
        role="benchmark",
        kind="benchmark",
        node_index=head,
        command=launch.argv,
        env=env,
        log="logs/benchmark.log",
        container_image=image,
        secret_env=secret_env,
    )
