"""The router protocol: command, readiness contract and whether it must wait for healthy workers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from srt_tui.core.capabilities import PdFlow, Registration, WorkerApi, WorkerHealth, WorkerPort, WorkerStart
from srt_tui.core.spec.recipe import EngineSpec


@dataclass(frozen=True)
class WorkerURL:
    """A worker endpoint as the router sees it."""

    name: str
    role: str
    url: str
    bootstrap_port: int = 0
    #: its HTTP or bootstrap port is the one the recipe's own flag sets (srtctl tells the router its allocated one)
    port_from_recipe: bool = False


@dataclass(frozen=True)
class RouterContext:
    """Inputs of a router command: where it runs, its ports, and the workers it fronts."""

    node_index: int
    port: int
    metrics_port: int
    workers: tuple[WorkerURL, ...]
    disaggregated: bool
    args: dict[str, Any] = field(default_factory=dict)
    engine: EngineSpec | None = None
    startup_timeout_s: int = 1800
    #: the router runs in the job's container (pyxis), where srtctl's program names hold; else on the host
    in_container: bool = True

    def of_role(self, role: str) -> list[WorkerURL]:
        """Workers of one role, in plan order."""
        return [w for w in self.workers if w.role == role]

    def recipe_port_deviation(self) -> tuple[str, ...]:
        """`recipe-port` when a worker the router is given listens where the recipe's own port flag says."""
        return ("recipe-port",) if any(w.port_from_recipe for w in self.workers) else ()


@dataclass(frozen=True)
class RouterLaunch:
    """A router's argv (with placeholders) and extra env."""

    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    #: overrides the router's declared registration contract for this launch (e.g. discovery mode)
    registration: Registration | None = None
    #: runs under `srun --mpi=<profile's mpi_plugin>` (srtctl's Dynamo frontend: later Dynamo versions need it)
    mpi: bool = False
    #: where this launch differs from srtctl's on purpose (ids of core/plan/deviations.py)
    differs_from_srtctl: tuple[str, ...] = ()


class Router:
    """A frontend in front of the workers, with its capabilities declared: an adapter states only what differs
    from these defaults (a static HTTP router that waits for healthy workers and lists them on /workers)."""

    name: ClassVar[str]
    #: must start only after every worker's /health answers (static registration)
    waits_for_healthy_workers: ClassVar[bool] = True
    #: readiness/registration contract: "router-workers" (/workers), "dynamo-health", or "worker-health"
    registration: ClassVar[Registration] = "router-workers"
    #: needs both prefill and decode workers when disaggregated (cannot mix agg and P/D)
    needs_pd_pairs: ClassVar[bool] = True
    #: has a separate Prometheus listener on metrics_port
    has_metrics_port: ClassVar[bool] = True
    #: discovery services the job must start (and wait for) before any worker: "nats", "etcd"
    infrastructure: ClassVar[frozenset[str]] = frozenset()
    #: how workers start behind it: "direct" (the engine's own HTTP server, given to the router) or
    #: "dynamo" (in-process Dynamo workers, e.g. `dynamo.sglang`, registering over the discovery plane)
    worker_launch: ClassVar[WorkerStart] = "direct"
    #: where a worker's health is read: "engine-http" (`/health` on its HTTP port) or
    #: "system-port" (Dynamo's system server, `/health` on `DYN_SYSTEM_PORT`)
    worker_health: ClassVar[WorkerHealth] = "engine-http"
    #: the router's own counters (plan.json `router.metrics`): requests, errors, inflight, queued → a
    #: selector `name` or `name{label="v",label!="v"}`; empty when the monitor knows the router's own shape
    metrics: ClassVar[dict[str, str]] = {}
    #: its own serving families (client-side TTFT/ITL/E2E, tokens, queue; plan.json `router.serving`), which
    #: the job's figures fall back to where its workers export none (Dynamo's workers)
    serving_metrics: ClassVar[dict[str, str]] = {}
    #: how it runs a P/D request (`core.capabilities.PdFlow`; plan.json `router.pd_flow`): "concurrent" (a
    #: decode's TTFT and E2E cover its prefill, so the job's are the decodes'), or "sequential" (the prefill
    #: answers first: the job's TTFT and E2E add the prefill's time to answer to the decode's, see
    #: `monitor.statuses.serving`)
    pd_flow: ClassVar[PdFlow] = "concurrent"
    #: what a client measures of a streamed request's TTFT beyond the engines' own, from how the router writes
    #: to its clients (sglang-router: no TCP_NODELAY on them, so its first chunk waits for the client's delayed
    #: ACK, up to 40 ms on Linux); 0 where none was measured. Said beside the job's TTFT (`Serving.client_ttft_*`)
    client_ttft_added_s: ClassVar[float] = 0.0
    #: request counters of workers speaking its protocol when they are not the engine's own (Dynamo's
    #: system server): total, ok, failed, running, queued → `name` or `name{label="value"}`
    worker_metrics: ClassVar[dict[str, str]] = {}
    #: worker API dialect it expects ("sglang" or "vllm"); what the mocker imitates
    worker_api: ClassVar[WorkerApi] = "sglang"
    #: "public": the single worker binds the frontend port (no router); "allocated": each its own port
    worker_port: ClassVar[WorkerPort] = "allocated"
    #: runs the recipe's `setup_script` (and the ai-dynamo install) before starting, as srtctl's Dynamo frontend
    #: does; srtctl's other frontends start the router program alone
    runs_setup_script: ClassVar[bool] = False
    #: KV connectors whose workers it discovers itself (vllm-router's MoRI-IO ZMQ discovery)
    kv_discovery: ClassVar[frozenset[str]] = frozenset()
    #: what Dynamo's prefix-ratio benchmark (`benchmark.type: router`) measures; srtctl runs it on sglang-router
    router_benchmark: ClassVar[bool] = False
    #: the top-level packages its `python3 -m` module imports to start besides its own (as an engine's
    #: `needs_packages`): none for the routers srt-tui knows (`dynamo.frontend` needs ai-dynamo alone)
    needs_packages: ClassVar[tuple[str, ...]] = ()

    @property
    def serves_directly(self) -> bool:
        """No router process: the single worker binds the public port itself (the `direct` adapter)."""
        return self.worker_port == "public"

    def launch(self, ctx: RouterContext) -> RouterLaunch | None:
        """Router command, or None for direct serving (no router process)."""
        raise NotImplementedError(type(self).__name__)
