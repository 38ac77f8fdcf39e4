"""Planning stage 4: the steps around the workers and routers: NATS and etcd, the GPU exporter on each
node, the profiling trigger and the benchmark."""

from __future__ import annotations

import json

from srt_tui.core import placeholders as ph
from srt_tui.core.benchmark import BenchContext, benchmark_launch
from srt_tui.core.frontends import dynamo
from srt_tui.core.plan.document import PlanExporter
from srt_tui.core.plan.model import ProcessPlan
from srt_tui.core.plan.profiling import trigger_targets
from srt_tui.core.plan.stage import Scopes, Stage, control_url, split_env
from srt_tui.core.spec.profile import exporter_argv, exporter_readout
from srt_tui.core.spec.resolved import ResolvedJob
from srt_tui.core.template_files import template


def infra_steps(st: Stage) -> list[ProcessPlan]:
    """NATS and etcd, when the router needs them."""
    job = st.job
    # srtctl starts NATS and etcd for most frontends inside its containers; on hosts without containers (which
    # srtctl does not run) only a frontend that uses them (Dynamo's discovery) gets them, so the embedded demo
    # asks for no nats-server or etcd on the operator's machine
    services = st.router.infrastructure if st.dyn or job.container_runtime != "none" else frozenset()
    return _infra(job, services)


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


def gpu_exporter(job: ResolvedJob) -> tuple[PlanExporter | None, tuple[ProcessPlan, ...]]:
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
    env, secret_env = split_env(job, [("telemetry", job.env("telemetry").items())])
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


def profile_trigger_step(st: Stage, leaders: list[ProcessPlan]) -> ProcessPlan | None:
    """The step that starts the capture window on each leader just before the benchmark (Dynamo: its
    system server's /engine); None when the recipe profiles nothing or by time."""
    targets = trigger_targets(
        st.job.recipe.profiling,
        [(w.role, control_url(w, st.system_port) + ("/engine" if st.system_port else "")) for w in leaders],
    )
    return (
        ProcessPlan(
            name="profile_trigger",
            role="benchmark",
            kind="benchmark",
            node_index=st.head,
            command=("python3", "-c", template("profile_trigger.py"), json.dumps(targets, sort_keys=True)),
            log="logs/profile_trigger.log",
        )
        if targets
        else None
    )


def benchmark_step(st: Stage, workers: list[ProcessPlan], public: str) -> ProcessPlan | None:
    """The benchmark on the head node once the router is ready; srtctl's SRT_* variables, then the recipe's env.

    Workers that publish health and metrics on their system port (Dynamo) are reached there.
    """
    job, recipe, system_port = st.job, st.job.recipe, st.system_port
    gpus = {role: sum(len(w.gpus) for w in workers if w.role == role) for role in ("prefill", "decode", "agg")}
    leaders = [w for w in workers if w.node_rank == 0]
    ctx = BenchContext(
        name=recipe.name,
        engine=recipe.engine.type,
        frontend=recipe.frontend.type,
        public_url=public,
        model=job.model_in_step,
        served=st.served,
        gpus_total=sum(gpus.values()),
        gpus_prefill=gpus["prefill"],
        gpus_decode=gpus["decode"],
        disaggregated=job.topology.disaggregated,
        leaders=tuple((w.role, w.url or "") for w in leaders),
        endpoints=tuple((w.role, control_url(w, system_port)) for w in leaders),
    )
    launch = benchmark_launch(ctx, recipe.benchmark)
    if launch is None:
        return None
    scoped: Scopes = [
        ("benchmark", launch.env),
        ("global", st.global_env.items()),
        ("benchmark", job.env("benchmark").items()),
    ]
    env, secret_env = split_env(job, scoped)
    image = launch.image if job.container_runtime == "pyxis" else None
    return ProcessPlan(
        name="benchmark",
        role="benchmark",
        kind="benchmark",
        node_index=st.head,
        command=launch.argv,
        env=env,
        log="logs/benchmark.log",
        container_image=image,
        secret_env=secret_env,
    )
