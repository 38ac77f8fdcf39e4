"""Frontends without a static worker list: Dynamo (discovery over NATS/etcd) and direct serving."""

from __future__ import annotations

from typing import ClassVar

from srt_tui.core.capabilities import Registration, WorkerHealth, WorkerPort, WorkerStart
from srt_tui.core.engines import serving
from srt_tui.core.engines.base import args_to_flags
from srt_tui.core.frontends.routers.base import Router, RouterContext, RouterLaunch


class DynamoFrontend(Router):
    """Dynamo frontend: workers register themselves; readiness from `/health` instances."""

    name: ClassVar[str] = "dynamo"
    waits_for_healthy_workers: ClassVar[bool] = False
    registration: ClassVar[Registration] = "dynamo-health"
    has_metrics_port: ClassVar[bool] = False
    infrastructure: ClassVar[frozenset[str]] = frozenset({"nats", "etcd"})
    worker_launch: ClassVar[WorkerStart] = "dynamo"
    worker_health: ClassVar[WorkerHealth] = "system-port"
    worker_metrics: ClassVar[dict[str, str]] = {
        "total": 'dynamo_component_requests_total{dynamo_endpoint="generate"}',
        "running": 'dynamo_component_inflight_requests{dynamo_endpoint="generate"}',
    }
    #: served on the frontend's HTTP port; `requests` carries a `status` label (success/error)
    metrics: ClassVar[dict[str, str]] = {
        "requests": "dynamo_frontend_requests_total",
        "errors": 'dynamo_frontend_requests_total{status!="success"}',
        "inflight": "dynamo_frontend_inflight_requests",
        "queued": "dynamo_frontend_queued_requests",
    }
    serving_metrics: ClassVar[dict[str, str]] = serving.DYNAMO_FRONTEND
    runs_setup_script: ClassVar[bool] = True

    def launch(self, ctx: RouterContext) -> RouterLaunch:
        """`python3 -m dynamo.frontend --http-port=PORT` under `srun --mpi` (srtctl: later Dynamo versions need it)."""
        argv = ["python3", "-m", "dynamo.frontend", f"--http-port={ctx.port}", *args_to_flags(ctx.args)]
        return RouterLaunch(tuple(argv), mpi=True)


class Direct(Router):
    """No router: the single aggregated worker binds the public (frontend) port; readiness is its health."""

    name: ClassVar[str] = "direct"
    worker_port: ClassVar[WorkerPort] = "public"
    waits_for_healthy_workers: ClassVar[bool] = False
    registration: ClassVar[Registration] = "worker-health"
    needs_pd_pairs: ClassVar[bool] = False
    has_metrics_port: ClassVar[bool] = False

    def launch(self, ctx: RouterContext) -> RouterLaunch | None:
        """Nothing to start."""
        return None
