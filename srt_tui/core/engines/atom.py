"""ATOM (AMD): OpenAI server with `-tp` from the worker's GPUs and Mooncake KV transfer for P/D."""

from __future__ import annotations

import json
from typing import ClassVar

from srt_tui.core import placeholders as ph
from srt_tui.core.engines.base import Engine, WorkerContext, WorkerLaunch, args_to_flags


class Atom(Engine):
    """ATOM worker; each endpoint fits one node; behind AToMesh."""

    name: ClassVar[str] = "atom"
    host_modules: ClassVar[tuple[str, ...] | None] = ("atom",)
    managed_flags: ClassVar[frozenset[str]] = frozenset(
        {"model", "host", "server-port", "tp", "tensor-parallel-size", "kv-transfer-config"}
    )
    tp_flags: ClassVar[tuple[str, ...]] = ("tp", "tensor-parallel-size")
    frontends: ClassVar[frozenset[str]] = frozenset({"atomesh", "direct"})
    kv_connectors: ClassVar[frozenset[str] | None] = frozenset({"mooncake"})
    takes_mooncake_protocol: ClassVar[bool] = True

    def launch(self, ctx: WorkerContext) -> WorkerLaunch:
        """`python3 -m atom.entrypoints.openai_server` with managed flags, then recipe flags."""
        argv = [
            "python3",
            "-m",
            "atom.entrypoints.openai_server",
            "--model",
            ctx.model,
            "--host",
            ph.BIND,
            "--server-port",
            str(ctx.ports.http),
            "-tp",
            str(len(ctx.gpus)),
        ]
        if ctx.disaggregated:
            kv: dict[str, object] = {
                "kv_role": "kv_producer" if ctx.role == "prefill" else "kv_consumer",
                "kv_connector": "mooncake",
                "proxy_ip": ph.ip(ctx.node_index),
                "handshake_port": ctx.ports.nixl,
            }
            if ctx.engine.mooncake_protocol:
                kv["protocol"] = ctx.engine.mooncake_protocol
            argv += ["--kv-transfer-config", json.dumps(kv, separators=(",", ":"), sort_keys=True)]
        argv += args_to_flags(ctx.args) + list(ctx.extra_args)
        return WorkerLaunch(tuple(argv), (("ATOM_HOST_IP", ph.ip(ctx.node_index)),))
