"""The mocker engine: srt-tui's own HTTP worker standing in for SGLang/vLLM behind static routers, and
Dynamo's `dynamo.mocker` behind Dynamo (srtctl's `mocker` backend)."""

from __future__ import annotations

from typing import ClassVar

from srt_tui.core import placeholders as ph
from srt_tui.core.engines.base import LAUNCH_PER_NODE, WorkerContext, WorkerLaunch, args_to_flags, role_mode
from srt_tui.core.engines.dynamo_mocker import dynamo_mocker_launch
from srt_tui.core.spec.recipe import EngineSpec


class Mocker:
    """Mock worker; takes the mask like SGLang and reports it in `/server_info`."""

    name: ClassVar[str] = "mocker"
    managed_flags: ClassVar[frozenset[str]] = frozenset(
        {"host", "port", "role", "flavor", "name", "model", "bootstrap-port", "visible-devices-env"}
    )
    tp_flags: ClassVar[tuple[str, ...]] = ("tp-size",)
    pp_flags: ClassVar[tuple[str, ...]] = ()
    dp_flags: ClassVar[tuple[str, ...]] = ()
    dp_within_tp_flag: ClassVar[str | None] = None
    port_flags: ClassVar[dict[str, str]] = {"bootstrap-port": "bootstrap"}
    torch_profiler_env: ClassVar[str | None] = None
    nsys_traces: ClassVar[str] = "cuda,nvtx"
    multinode: ClassVar[bool] = False
    launch_style: ClassVar[str] = LAUNCH_PER_NODE
    ports_per_dp_rank: ClassVar[bool] = False
    frontends: ClassVar[frozenset[str]] = frozenset({"sglang-router", "vllm-router", "atomesh", "dynamo", "direct"})
    #: srt-tui's mock counts generation requests per path and status (only those paths are read)
    metrics: ClassVar[dict[str, str]] = {
        "ok": 'srt_mock_requests_total{status="ok"}',
        "failed": 'srt_mock_requests_total{status="failed"}',
        "running": "srt_mock_requests_running",
    }

    def should_set_visible_devices(self, spec: EngineSpec) -> bool:
        """The mocker reads (and reports) the visibility variable."""
        return True

    def launch(self, ctx: WorkerContext) -> WorkerLaunch:
        """`python3 -m srt_tui.mock serve` speaking the router's worker API flavour; `dynamo.mocker` for Dynamo."""
        if ctx.worker_launch == "dynamo":
            return dynamo_mocker_launch(ctx)
        flavor = ctx.worker_api
        argv = [
            "python3",
            "-m",
            "srt_tui.mock",
            "serve",
            "--host",
            ph.BIND,
            "--port",
            str(ctx.ports.http),
            "--role",
            role_mode(ctx) or "regular",
            "--flavor",
            flavor,
            "--name",
            ctx.name,
            "--model",
            ctx.served_name,
            "--visible-devices-env",
            ctx.visible_devices_env,
        ]
        if ctx.disaggregated and ctx.role == "prefill":
            argv += ["--bootstrap-port", str(ctx.ports.bootstrap)]
        args = dict(ctx.args)
        if not any(k.replace("_", "-") == "tp-size" for k in args):
            args["tp-size"] = len(ctx.gpus)
        argv += args_to_flags(args) + list(ctx.extra_args)
        return WorkerLaunch(tuple(argv))
