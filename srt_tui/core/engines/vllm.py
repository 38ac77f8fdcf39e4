"""vLLM: `vllm serve` behind routers (or alone), `dynamo.vllm` behind Dynamo; `--device-ids` or mask."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from srt_tui.core import placeholders as ph
from srt_tui.core.engines import serving
from srt_tui.core.engines.base import (
    DP_RPC_PORT,
    Engine,
    WorkerContext,
    WorkerLaunch,
    arg_int,
    args_to_flags,
    flag_name,
    kv_events,
    request_plane_flags,
    role_mode,
)
from srt_tui.core.errors import Problem, TopologyError
from srt_tui.core.spec.recipe import EngineSpec

_CONNECTORS: dict[str, dict[str, Any]] = {
    "nixl": {"kv_connector": "NixlConnector", "kv_role": "kv_both"},
    "lmcache": {"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"},
    "kvbm": {
        "kv_connector": "DynamoConnector",
        "kv_connector_module_path": "kvbm.vllm_integration.connector",
        "kv_role": "kv_both",
    },
}


#: flags srtctl's Dynamo path derives from the topology (per-node DP) and so drops from the recipe
_DYNAMO_DERIVED = frozenset(
    {
        "data-parallel-rpc-port",
        "data-parallel-size-local",
        "data-parallel-start-rank",
        "data-parallel-hybrid-lb",
        "headless",
    }
)


def _has(args: dict[str, Any], flag: str) -> bool:
    return any(flag_name(k) == flag for k, v in args.items() if v is not None and v is not False)


class VLLM(Engine):
    """vLLM worker; masks only when `set_visible_devices`, else `--device-ids`."""

    name: ClassVar[str] = "vllm"
    host_modules: ClassVar[tuple[str, ...] | None] = ("vllm",)
    managed_flags: ClassVar[frozenset[str]] = frozenset(
        {
            "model",
            "host",
            "port",
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
    dp_flags: ClassVar[tuple[str, ...]] = ("data-parallel-size", "dp")
    ep_over_ranks_flag: ClassVar[str | None] = "enable-expert-parallel"
    torch_profiler_env: ClassVar[str | None] = "VLLM_TORCH_PROFILER_DIR"
    multinode: ClassVar[bool] = True
    ports_per_dp_rank: ClassVar[bool] = True
    frontends: ClassVar[frozenset[str]] = frozenset({"vllm-router", "smg", "dynamo", "direct"})
    runs_sglang_gsm8k: ClassVar[bool] = False
    metrics: ClassVar[dict[str, str]] = {
        "ok": "vllm:request_success_total",
        "running": "vllm:num_requests_running",
        "queued": "vllm:num_requests_waiting",
    }
    serving_metrics: ClassVar[dict[str, dict[str, str]]] = {"": serving.VLLM}

    def should_set_visible_devices(self, spec: EngineSpec) -> bool:
        """Only with `set_visible_devices: true`; otherwise the worker is bound with `--device-ids`."""
        return spec.set_visible_devices

    def kv_transfer(self, ctx: WorkerContext) -> dict[str, Any] | None:
        """The role's KV connector JSON: `roles.<role>.args.connector` (the fork's per-role override), else
        `engine.connector`, else nixl; `moriio` is role-aware. Behind Dynamo aggregated workers get it too
        (srtctl); `none`/`null` turns it off."""
        if not ctx.disaggregated and ctx.worker_launch != "dynamo":
            return None
        if (
            ctx.args.get("connector") is None
            and "connector" in ctx.engine.model_fields_set
            and not ctx.engine.connector
        ):
            return None  # `connector: null` written: srtctl passes no KV connector (its default is nixl)
        connector: str | dict[str, Any] = ctx.args.get("connector") or ctx.engine.connector or "nixl"
        if connector in ("none", "null"):
            return None
        if isinstance(connector, str) and connector.lstrip().startswith("{"):
            try:
                connector = json.loads(connector)  # the fork's raw --kv-transfer-config JSON
            except json.JSONDecodeError as exc:
                where = f"roles.{ctx.role}.args.connector" if "connector" in ctx.args else "engine.connector"
                problem = Problem(where, f"not valid JSON: {exc}", "write the connector's JSON object")
                raise TopologyError([problem]) from None
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

    def _per_node_dp(self, ctx: WorkerContext, dp: int) -> list[str]:
        """A DP endpoint over several nodes: one process per node with its slice of DP ranks (srtctl's per_node)."""
        local = dp // ctx.nnodes
        out = [
            "--data-parallel-size-local",
            str(local),
            "--data-parallel-start-rank",
            str(ctx.node_rank * local),
            "--data-parallel-address",
            ph.ip(ctx.leader_node),
        ]
        if not _has(ctx.args, "data-parallel-rpc-port"):
            out += ["--data-parallel-rpc-port", str(DP_RPC_PORT)]
        if ctx.node_rank > 0:  # behind an HTTP router only the leader serves; the others are headless
            out.append("--headless")
        return out

    def _dynamo_dp(self, ctx: WorkerContext, args: dict[str, Any]) -> list[str]:
        """srtctl's per-node DP behind Dynamo: a TP x PP replica that fits the node's GPUs runs its local DP
        ranks in one process (hybrid load balancing, the RPC port allocated per leader node); a larger
        replica spans nodes with torch rendezvous on the leader (the recipe's RPC port, else 8400)."""
        leader = ph.ip(ctx.leader_node)
        replica = (arg_int(args, self.tp_flags) or 1) * (arg_int(args, self.pp_flags) or 1)
        if replica > len(ctx.gpus):
            rpc = arg_int(ctx.args, ("data-parallel-rpc-port",)) or DP_RPC_PORT
            out = ["--master-addr", leader, "--nnodes", str(ctx.nnodes), "--node-rank", str(ctx.node_rank)]
            out += ["--data-parallel-address", leader, "--data-parallel-rpc-port", str(rpc)]
            return out + (["--headless"] if ctx.node_rank > 0 else [])
        local = len(ctx.gpus) // replica
        return [
            "--data-parallel-size-local",
            str(local),
            "--data-parallel-start-rank",
            str(ctx.node_rank * local),
            "--data-parallel-address",
            leader,
            "--data-parallel-rpc-port",
            str(ctx.dp_rpc_port or DP_RPC_PORT),
            "--data-parallel-hybrid-lb",
        ]

    def launch(self, ctx: WorkerContext) -> WorkerLaunch:
        """`vllm serve MODEL` (or srtctl's `python3 -m dynamo.vllm --model MODEL`) plus managed flags."""
        dynamo = ctx.worker_launch == "dynamo"
        args = dict(ctx.args)
        if dynamo:
            argv = ["python3", "-m", "dynamo.vllm", "--model", ctx.model, "--served-model-name", ctx.served_name]
            mode = role_mode(ctx)
            if mode:
                argv += ["--disaggregation-mode", mode]
            # srtctl derives these from the topology: the recipe's values are not passed
            args = {k: v for k, v in args.items() if flag_name(k) not in _DYNAMO_DERIVED}
        else:
            argv = ["vllm", "serve", ctx.model]
            if ctx.node_rank == 0:
                argv += ["--host", ph.BIND, "--port", str(ctx.ports.http)]
            argv += ["--served-model-name", ctx.served_name]
        args = {k: v for k, v in args.items() if flag_name(k) != "served-model-name"}  # the job's, given once
        kv = None if _has(args, "kv-transfer-config") else self.kv_transfer(ctx)  # the recipe's JSON wins
        if kv is not None:
            argv += ["--kv-transfer-config", json.dumps(kv) if dynamo else json.dumps(kv, separators=(",", ":"))]
        if not self.should_set_visible_devices(ctx.engine) and (ctx.subset or dynamo):
            argv += ["--device-ids", ",".join(str(g) for g in ctx.gpus)]
        dp = arg_int(args, self.dp_flags) or 1
        if dynamo and dp > 1:
            argv += self._dynamo_dp(ctx, args)
        elif ctx.nnodes > 1 and dp > 1:
            argv += self._per_node_dp(ctx, dp)
        elif ctx.nnodes > 1:
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
        argv += request_plane_flags(ctx)
        if dynamo:
            argv += ["--dump-config-to", f"{ph.LOGS}/config/{ctx.name}.json"]
        events = kv_events(ctx, {"enable_kv_cache_events": True})
        if events is not None:
            argv += ["--kv-events-config", events]
        flags = {k: v for k, v in args.items() if k != "connector"}  # consumed by kv_transfer
        argv += args_to_flags(flags) + list(ctx.extra_args)
        # srtctl's per-process variables: KV-event and NIXL side-channel ports, and a private VLLM_PORT base
        # (unset again on multi-node workers, whose TP ranks would race for it: plan `unset_env`)
        env = [
            ("DYN_VLLM_KV_EVENT_PORT", str(ctx.ports.kv_events)),
            ("VLLM_NIXL_SIDE_CHANNEL_PORT", str(ctx.ports.nixl)),
            ("VLLM_NIXL_SIDE_CHANNEL_HOST", ph.ip(ctx.node_index)),
        ]
        if ctx.nnodes == 1:
            env.append(("VLLM_PORT", str(20000 + 50 * (ctx.ports.sys - 7500))))
        return WorkerLaunch(tuple(argv), tuple(env), unset_env=("VLLM_PORT",) if ctx.nnodes > 1 else ())
