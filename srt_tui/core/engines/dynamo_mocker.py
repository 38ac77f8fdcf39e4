"""Dynamo's own mocker (`python3 -m dynamo.mocker`): what srtctl's `mocker` backend runs behind Dynamo.

It registers over NATS/etcd like a real Dynamo worker and simulates scheduling and the KV cache
without weights. Its simulation parameters are srtctl's `backend:` keys (`engine.config` here), with
srtctl's defaults; the per-role `mocker_config` flags are the role's args.
"""

from __future__ import annotations

from typing import Any

from srt_tui.core.engines.base import WorkerContext, WorkerLaunch, args_to_flags, role_mode

#: simulation parameter -> srtctl's default; the first six are always passed, the others when changed
SIMULATION: dict[str, Any] = {
    "engine_type": "vllm",
    "speedup_ratio": 100.0,
    "data_parallel_size": 1,
    "num_gpu_blocks_override": 16384,
    "max_num_seqs": 256,
    "max_num_batched_tokens": 8192,
    "decode_speedup_ratio": 1.0,
    "block_size": None,
    "num_workers": 1,
    "startup_time": None,
    "kv_transfer_bandwidth": None,
    "kv_cache_dtype": None,
    "enable_prefix_caching": True,
    "enable_chunked_prefill": True,
    "preemption_mode": None,
}
_ALWAYS: tuple[str, ...] = tuple(list(SIMULATION)[:6])
#: srtctl's float fields: written as Python prints a float (`100` in a recipe is passed as `100.0`)
_FLOATS = frozenset({"speedup_ratio", "decode_speedup_ratio"})


def unknown_keys(config: dict[str, Any] | None) -> list[str]:
    """`engine.config` keys that are no simulation parameter of srtctl's mocker."""
    return sorted(k for k in config or {} if k not in SIMULATION)


def _flag(key: str) -> str:
    return "--" + key.replace("_", "-")


def dynamo_mocker_launch(ctx: WorkerContext) -> WorkerLaunch:
    """`python3 -m dynamo.mocker --model-path M --model-name SERVED` + mode, bootstrap port, simulation, role flags."""
    sim = {**SIMULATION, **{k: v for k, v in (ctx.engine.config or {}).items() if k in SIMULATION}}
    sim |= {k: float(sim[k]) for k in _FLOATS if isinstance(sim[k], (int, float)) and not isinstance(sim[k], bool)}
    argv = ["python3", "-m", "dynamo.mocker", "--model-path", ctx.model, "--model-name", ctx.served_name]
    mode = role_mode(ctx)
    if mode:
        argv += ["--disaggregation-mode", mode]
    if mode == "prefill" and ctx.ports.bootstrap:
        argv += ["--bootstrap-ports", str(ctx.ports.bootstrap)]
    for key in _ALWAYS:
        argv += [_flag(key), str(sim[key])]
    for key, default in SIMULATION.items():
        value = sim[key]
        if key in _ALWAYS or value == default:
            continue
        if isinstance(value, bool):
            argv.append(_flag(key) if value else "--no-" + key.replace("_", "-"))
        elif value is not None:
            argv += [_flag(key), str(value)]
    argv += args_to_flags(dict(sorted(ctx.args.items()))) + list(ctx.extra_args)
    return WorkerLaunch(tuple(argv), differs_from_srtctl=("mocker-model-name",))
