"""vLLM: `vllm serve` behind routers (or alone), `dynamo.vllm` behind Dynamo; `--device-ids` or mask."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from .. import placeholders as ph
from ..recipe import EngineSpec
from .base import WorkerContext, WorkerLaunch, args_to_flags, role_mode

_CONNECTORS: dict[str, dict[str, Any]] = {
    "nixl": {"kv_connector": "NixlConnector", "kv_role": "kv_both"},
    "lmcache": {"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"},
    "kvbm": {"kv_connector": "DynamoConnector", "kv_role": "kv_both"},
}


class VLLM:
    """vLLM worker; masks only when `set_visible_devices`, else `--device-ids`."""

    name: ClassVar[str] = "vllm"
    managed_flags: ClassVar[frozenset[str]] = frozenset(
        {
            "model",
            "host",
            "port",
            "kv-transfer-config",
            "device-ids",
            "master-addr",
            "nnodes",
            "node-rank",
            "headless",
            "served-model-name",
            "disaggregation-mode",
        }
    )
    tp_flags: ClassVar[tuple[str, ...]] = ("tensor-parallel-size", "tp", "tp-size")
    pp_flags: ClassVar[tuple[str, ...]] = ("pipeline-parallel-size", "pp", "pp-size")
    bench_tool: ClassVar[str] = "vllm"
    multinode: ClassVar[bool] = True
    frontends: ClassVar[frozenset[str]] = frozenset({"vllm-router", "dynamo", "none"})

    def should_set_visible_devices(self, spec: EngineSpec) -> bool:
        """Only with `set_visible_devices: true`; otherwise the worker is bound with `--device-ids`."""
        return spec.set_visible_devices

    def kv_transfer(self, ctx: WorkerContext) -> dict[str, Any] | None:
        """The role's KV connector JSON (nixl by default; `moriio` is role-aware)."""
        if not ctx.disaggregated:
            return None
        connector = ctx.engine.connector or "nixl"
        if isinstance(connector, dict):
            return connector
        if connector == "moriio":
            return {
                "kv_connector": "MoRIIOConnector",
                "kv_role": "kv_producer" if ctx.role == "prefill" else "kv_consumer",
                "kv_connector_extra_config": {
                    "handshake_port": ctx.ports.nixl,
                    "notify_port": ctx.ports.kv_events,
                    "http_port": ctx.ports.http,
                    "local_ip": ph.ip(ctx.node_index),
                },
            }
        return _CONNECTORS.get(connector, {"kv_connector": connector, "kv_role": "kv_both"})

    def launch(self, ctx: WorkerContext) -> WorkerLaunch:
        """`vllm serve MODEL` (or `python3 -m dynamo.vllm --model MODEL`) plus managed flags."""
        if ctx.frontend == "dynamo":
            argv = ["python3", "-m", "dynamo.vllm", "--model", ctx.model]
            mode = role_mode(ctx)
            if mode:
                argv += ["--disaggregation-mode", mode]
        else:
            argv = ["vllm", "serve", ctx.model]
            if ctx.node_rank == 0:
                argv += ["--host", ph.BIND, "--port", str(ctx.ports.http)]
        argv += ["--served-model-name", ctx.served_name]
        kv = self.kv_transfer(ctx)
        if kv is not None:
            argv += ["--kv-transfer-config", json.dumps(kv, separators=(",", ":"), sort_keys=True)]
        if ctx.subset and not self.should_set_visible_devices(ctx.engine):
            argv += ["--device-ids", ",".join(str(g) for g in ctx.gpus)]
        if ctx.nnodes > 1:
            argv += [
                "--master-addr",
                ph.ip(ctx.leader_node),
                "--nnodes",
                str(ctx.nnodes),
                "--node-rank",
                str(ctx.node_rank),
            ]
            if ctx.node_rank > 0:
                argv.append("--headless")
        argv += args_to_flags(ctx.args) + list(ctx.extra_args)
        env = [
            ("VLLM_NIXL_SIDE_CHANNEL_PORT", str(ctx.ports.nixl)),
            ("VLLM_NIXL_SIDE_CHANNEL_HOST", ph.ip(ctx.node_index)),
        ]
        if ctx.nnodes == 1:
            env.append(("VLLM_PORT", str(20000 + 50 * (ctx.ports.sys - 7500))))
        return WorkerLaunch(tuple(argv), tuple(env))
