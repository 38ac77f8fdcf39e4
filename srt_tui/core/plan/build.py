"""Build a JobPlan from a ResolvedJob, stage by stage: validate, place the workers (`allocate.py`), their
steps (`workers.py`), NATS/etcd, the routers and nginx (`frontend_steps.py`), GPU exporters, the
profiling trigger and the benchmark (`service_steps.py`), in the order the script starts them.
"""

from __future__ import annotations

from srt_tui.core.engines import get_engine
from srt_tui.core.errors import Problem, TopologyError
from srt_tui.core.frontends import dynamo
from srt_tui.core.frontends.routers import job_router
from srt_tui.core.plan.allocate import placed
from srt_tui.core.plan.frontend_steps import frontend_steps
from srt_tui.core.plan.model import JobPlan, ProcessPlan, RouterPlan
from srt_tui.core.plan.service_steps import benchmark_step, gpu_exporter, infra_steps, profile_trigger_step
from srt_tui.core.plan.stage import Stage, installs
from srt_tui.core.plan.validate import errors, served_name, validate
from srt_tui.core.plan.workers import worker_steps
from srt_tui.core.spec.resolved import ResolvedJob
from srt_tui.core.spec.secrets import MASK, secret_ref


def build_plan(job: ResolvedJob) -> JobPlan:
    """Validate and plan a resolved job; any error-level finding raises TopologyError."""
    problems = _validated(job)
    st = _stage(job)
    placements, moved = placed(job, st.engine, st.router)
    infra = infra_steps(st)
    workers = worker_steps(st, placements, moved)
    leaders = [w for w in workers if w.node_rank == 0]
    routers, nginx, nginx_text = frontend_steps(st, leaders, moved, bool(infra))
    public = _public_url(routers, nginx, leaders)
    bench = benchmark_step(st, workers, public)
    exporter, telemetry = gpu_exporter(job)
    profile_trigger = profile_trigger_step(st, leaders)
    recipe, engine, router_kind, served, hc = job.recipe, st.engine, st.router, st.served, job.health_check
    gpn, router_plan = job.gpus_per_node, routers[0] if routers else None
    secrets = sorted({k for _, pairs in job.env_scopes for k, _ in pairs if k in job.secret_names})
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
        differs_from_srtctl=(
            *(("read-only-mounts",) if any(m.readonly and m.source == "built-in" for m in job.mounts) else ()),
            *(("model-not-staged",) if recipe.model.stage_dir else ()),
        ),
    )


def _validated(job: ResolvedJob) -> list[Problem]:
    """Every finding of validation (warnings go into the plan); an error-level one raises TopologyError."""
    problems = validate(job)
    fatal = errors(problems)
    if fatal:
        raise TopologyError(fatal)
    return problems


def _stage(job: ResolvedJob) -> Stage:
    """The engine and router adapters of the job and the facts every stage reads."""
    router_kind = job_router(job)
    dyn = router_kind.worker_launch == "dynamo"
    return Stage(
        job=job,
        engine=get_engine(job.recipe.engine.type),
        router=router_kind,
        served=served_name(job),
        head=job.reserved_nodes,
        dyn=dyn,
        system_port=router_kind.worker_health == "system-port",
        global_env=job.env("global"),
        install=dynamo.install_script(job.recipe.dynamo) if dyn and installs(job) else None,
    )


def _public_url(routers: tuple[RouterPlan, ...], nginx: ProcessPlan | None, leaders: list[ProcessPlan]) -> str:
    """What clients call: nginx, else the first router, else the first worker leader."""
    if nginx is not None:
        return nginx.url or ""
    if routers:
        return routers[0].process.url or ""
    return leaders[0].url or ""


def secret_values(job: ResolvedJob) -> dict[str, str]:
    """Secret env values of a job, one entry per scope that sets one (only in the job's 0600 secrets file)."""
    return {secret_ref(scope, k): v for scope, pairs in job.env_scopes for k, v in pairs if k in job.secret_names}
