"""SGLang: `sglang.launch_server` behind static routers, `dynamo.sglang` behind Dynamo."""

from __future__ import annotations

from typing import ClassVar

from srt_tui.core import placeholders as ph
from srt_tui.core.engines import serving
from srt_tui.core.engines.base import (
    Engine,
    WorkerContext,
    WorkerLaunch,
    args_to_flags,
    flag_name,
    kv_events,
    request_plane_flags,
    role_mode,
)

DIST_INIT_PORT = 8300
#: recipe args srtctl drops because it sets them itself (a recipe's served name is the job's, see served_name)
_OWN_FLAGS = frozenset({"model-path", "served-model-name", "nccl-port"})


class SGLang(Engine):
    """SGLang worker; takes the visibility mask; multi-node via dist-init."""

    name: ClassVar[str] = "sglang"
    host_modules: ClassVar[tuple[str, ...] | None] = ("sglang",)
    managed_flags: ClassVar[frozenset[str]] = frozenset(
        {
            "model-path",
            "host",
            "port",
            "nccl-port",
            "disaggregation-mode",
            "disaggregation-bootstrap-port",
            "dist-init-addr",
            "nnodes",
            "node-rank",
            "dump-config-to",
            "served-model-name",
        }
    )
    tp_flags: ClassVar[tuple[str, ...]] = ("tp-size", "tensor-parallel-size", "tp")
    pp_flags: ClassVar[tuple[str, ...]] = ("pp-size", "pipeline-parallel-size")
    dp_flags: ClassVar[tuple[str, ...]] = ("data-parallel-size", "dp-size", "dp")
    dp_within_tp_flag: ClassVar[str | None] = "enable-dp-attention"
    ep_flags: ClassVar[tuple[str, ...]] = ("ep-size", "expert-parallel-size", "ep")
    port_flags: ClassVar[dict[str, str]] = {"disaggregation-bootstrap-port": "bootstrap"}
    torch_profiler_env: ClassVar[str | None] = "SGLANG_TORCH_PROFILER_DIR"
    multinode: ClassVar[bool] = True
    frontends: ClassVar[frozenset[str]] = frozenset({"sglang-router", "smg", "dynamo", "direct"})
    serves_slow_down: ClassVar[bool] = True
    metrics: ClassVar[dict[str, str]] = {
        "ok": "sglang:num_requests_total",
        "failed": "sglang:num_aborted_requests_total",
        "running": "sglang:num_running_reqs",
        "queued": "sglang:num_queue_reqs",
    }
    serving_metrics: ClassVar[dict[str, dict[str, str]]] = {"": serving.SGLANG}

    def launch(self, ctx: WorkerContext) -> WorkerLaunch:
        """srtctl's SGLang command: managed flags first, then the recipe's (its model path, served name and
        NCCL port are srt-tui's, so they are not passed twice). Every node rank binds `--host`/`--port`."""
        dynamo = ctx.worker_launch == "dynamo"
        argv = [
            "python3",
            "-m",
            "dynamo.sglang" if dynamo else "sglang.launch_server",
            "--model-path",
            ctx.model,
            "--served-model-name",
            ctx.served_name,
            "--host",
            ph.BIND,
            "--port",
            str(ctx.ports.http),
            "--nccl-port",
            str(ctx.ports.nccl),
        ]
        mode = role_mode(ctx)
        if mode:
            argv += ["--disaggregation-mode", mode]
            if mode == "prefill":
                argv += ["--disaggregation-bootstrap-port", str(ctx.ports.bootstrap)]
        if ctx.nnodes > 1:
            argv += [
                "--dist-init-addr",
                f"{ph.ip(ctx.leader_node)}:{DIST_INIT_PORT}",
                "--nnodes",
                str(ctx.nnodes),
                "--node-rank",
                str(ctx.node_rank),
            ]
        if dynamo:
            argv += ["--dump-config-to", f"{ph.LOGS}/config/{ctx.name}.json", *request_plane_flags(ctx)]
        events = kv_events(ctx)
        if events is not None:
            argv += ["--kv-events-config", events]
        args = {k: v for k, v in ctx.args.items() if flag_name(k) not in _OWN_FLAGS}
        argv += args_to_flags(args) + list(ctx.extra_args)
        return WorkerLaunch(tuple(argv))
