"""Planning stage 3: what serves the public port: the router steps as srtctl lays them out (one, or
several behind nginx), each with the registrations it waits for, and nginx with its config."""

from __future__ import annotations

from dataclasses import replace

from srt_tui.core import placeholders as ph
from srt_tui.core.frontends import dynamo
from srt_tui.core.frontends.nginx import NGINX_SRUN_OPTIONS, frontend_layout, nginx_argv, nginx_conf
from srt_tui.core.frontends.routers.base import Router, RouterContext, WorkerURL
from srt_tui.core.plan.model import ProcessPlan, RouterPlan
from srt_tui.core.plan.stage import Scopes, Stage, split_env
from srt_tui.core.spec.resolved import ResolvedJob


def frontend_steps(
    st: Stage, leaders: list[ProcessPlan], moved: dict[str, dict[str, str]], with_infra: bool
) -> tuple[tuple[RouterPlan, ...], ProcessPlan | None, str | None]:
    """The routers in front of the worker leaders, and nginx with its config when it fronts them
    (``moved``: per role, the port flags the recipe set itself; ``with_infra``: NATS/etcd run, so a
    Dynamo frontend gets their discovery variables)."""
    job, recipe = st.job, st.job.recipe
    hc = job.health_check
    fe = recipe.frontend
    rctx = RouterContext(
        node_index=st.head,
        port=fe.port,
        metrics_port=fe.metrics_port,
        disaggregated=job.topology.disaggregated,
        args=dict(fe.args),
        engine=recipe.engine,
        startup_timeout_s=int(hc.max_attempts * hc.interval_seconds),
        in_container=job.container_runtime == "pyxis",
        workers=tuple(
            WorkerURL(
                w.name,
                w.role,
                w.url or "",
                w.ports.get("bootstrap", 0),
                bool({"http", "bootstrap"} & set(moved.get(w.role, {}))),
            )
            for w in leaders
        ),
    )
    expected: dict[str, int] = {}
    for w in leaders:
        expected[w.role] = expected.get(w.role, 0) + 1
    infra_env = dynamo.discovery_env(0) if with_infra and st.dyn else []  # the Dynamo frontend's; srtctl gives no other
    plane_env = dynamo.plane_env(recipe.dynamo) if st.dyn else []
    rscopes: Scopes = [
        ("dynamo", [*infra_env, *plane_env]),
        ("global", st.global_env.items()),
        ("frontend", job.env("frontend").items()),
    ]
    return _frontends(job, st.router, rctx, expected, rscopes, st.install)


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
    scoped: Scopes,
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
        env, secret_env = split_env(job, scoped, launch.env)
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
            setup_script=job.setup_script if kind.runs_setup_script else (),
            install=install,
            metrics=dict(kind.metrics),
            container_image=_router_image(job),
            serving=dict(kind.serving_metrics),
            needs_packages=kind.needs_packages,
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
                pd_flow=kind.pd_flow,
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
