"""Planning stage 2: one step per worker rank: the engine's command for its placement, its GPU mask,
environment (srtctl's Dynamo stage variables, the role's, the global scope, srt-tui's own), ports and
URLs, profiling prefix, and for MPI engines the step that launches the ranks of every node."""

from __future__ import annotations

from typing import Any

from srt_tui.core import placeholders as ph
from srt_tui.core.engines.base import LAUNCH_MPI, WorkerContext, WorkerLaunch
from srt_tui.core.engines.serving import serving_contract
from srt_tui.core.frontends import dynamo
from srt_tui.core.plan.allocate import dp_rpc_ports
from srt_tui.core.plan.model import ProcessPlan
from srt_tui.core.plan.profiling import worker_env, worker_prefix
from srt_tui.core.plan.stage import Scopes, Stage, split_env
from srt_tui.core.plan.topology import Placement
from srt_tui.core.plan.validate import clean_args
from srt_tui.core.spec.resolved import ResolvedJob


def worker_steps(st: Stage, placements: list[Placement], moved: dict[str, dict[str, str]]) -> list[ProcessPlan]:
    """Every worker rank's step, in placement order."""
    workers: list[ProcessPlan] = []
    mpi_leaders: dict[str, WorkerLaunch] = {}  # an MPI worker's launch, shared by the ranks on its other nodes
    dp_rpc = dp_rpc_ports(st.engine, st.job.recipe, placements)
    for pl in placements:
        workers.append(_worker(st, pl, moved, dp_rpc.get(pl.endpoint.name, 0), mpi_leaders))
    return workers


def _context(st: Stage, pl: Placement, moved: dict[str, dict[str, str]], dp_rpc_port: int) -> WorkerContext:
    """What the engine adapter needs to write this rank's command."""
    job, recipe, role = st.job, st.job.recipe, pl.role
    disagg = job.topology.disaggregated
    args, _ = clean_args(st.engine, role, dict(recipe.roles[role].args), disagg)
    for port_field, key in moved.get(role, {}).items():
        if getattr(pl.ports, port_field):  # honoured through the placement's port, not passed twice
            args.pop(key, None)
    return WorkerContext(
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
        worker_api=st.router.worker_api,
        model=job.model_in_step,
        served_name=st.served,
        visible_devices_env=job.visible_devices_env,
        engine=recipe.engine,
        args=args,
        extra_args=tuple(recipe.roles[role].extra_args),
        worker_launch=st.router.worker_launch,
        request_plane=recipe.dynamo.request_plane if st.dyn else None,
        gpu_type=recipe.resources.gpu_type or job.profile.default_gpu_type,
        dp_rpc_port=dp_rpc_port,
    )


def _worker(
    st: Stage,
    pl: Placement,
    moved: dict[str, dict[str, str]],
    dp_rpc_port: int,
    mpi_leaders: dict[str, WorkerLaunch],
) -> ProcessPlan:
    """One rank's step (an MPI rank off its leader's node reuses the leader's launch)."""
    job, engine, recipe, role, dyn = st.job, st.engine, st.job.recipe, pl.role, st.dyn
    ctx = _context(st, pl, moved, dp_rpc_port)
    mpi_leader = mpi_leaders.get(pl.endpoint.name) if engine.launch_style == LAUNCH_MPI else None
    launch = engine.launch(ctx) if mpi_leader is None else mpi_leader
    mask = ",".join(str(g) for g in pl.gpus) if pl.subset and engine.should_set_visible_devices(recipe.engine) else None
    managed = [*([(job.visible_devices_env, mask)] if mask is not None else []), *launch.env]
    managed += worker_env(recipe.profiling, role, engine.torch_profiler_env)
    per_node = engine.launch_style != LAUNCH_MPI
    nsys = worker_prefix(recipe.profiling, f"{ph.LOGS}/profiles/{role}/{pl.name}", engine.nsys_traces, dyn and per_node)
    # srtctl's worker env templating, on per-node workers only (its MPI launch passes env as written);
    # `{node_id}` counts worker nodes, a dedicated NATS/etcd node not among them
    here = {"{node}": ph.host(pl.node_index), "{node_id}": str(pl.node_index - st.head)} if per_node else {}
    # srtctl's worker-stage variables come first, so the recipe's environment may override them
    dyn_env = dynamo.worker_stage_env(recipe.dynamo, st.head, 0, pl.ports.sys, per_node)
    dyn_env += dynamo.health_gate_env() if dyn else []
    scoped: Scopes = [
        ("dynamo", dyn_env),
        (role, _templated(job.env(role), here)),
        ("global", _templated(st.global_env, here)),
    ]
    env, secret_env = split_env(job, scoped, managed)
    unset = (*_unset_for(job, mask), *launch.unset_env)
    http = pl.ports.http
    url = ph.url(pl.node_index, http) if http else None
    # a Dynamo worker's health and metrics are its system server's; an HTTP engine's its own port's
    probe = ph.url(pl.node_index, pl.ports.sys) if st.system_port else url
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
    return ProcessPlan(
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
        install=st.install,
        metrics=dict(st.router.worker_metrics if dyn else engine.metrics),
        serving={} if dyn else serving_contract(engine.serving_metrics, st.router.worker_api),
        unset_env=unset,
        needs_packages=engine.needs_packages(st.router.worker_launch),
        recipe_srun_options=per_node,  # srtctl gives its MPI steps the backend's srun options alone
        differs_from_srtctl=(
            *(("health-gate",) if dyn else ()),
            *(("subset-unset",) if _unset_for(job, mask) else ()),
            *launch.differs_from_srtctl,
        ),
        **mpi,
    )


def _unset_for(job: ResolvedJob, mask: str | None) -> tuple[str, ...]:
    """The inherited visibility variables a masked worker drops (its own mask variable is set instead)."""
    if mask is None:
        return ()
    return tuple(v for v in job.profile.subset_unset_env if v != job.visible_devices_env)


def _templated(env: dict[str, str], values: dict[str, str]) -> list[tuple[str, str]]:
    """`{node}` / `{node_id}` in worker env values (srtctl's templating; other braces stay as written)."""
    return [(key, ph.fill_marks(value, values)) for key, value in env.items()]
