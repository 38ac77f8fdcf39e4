"""Keys of the fork's schema 2 (SemiAnalysisAI/srt-slurm) that srt-tui knows but has no field for.

Each is honoured when its value is what srt-tui does anyway (listed under `same`), and refused with
the reason otherwise, so nothing a recipe says is silently ignored and the refusal says why.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import model_validator

from srt_tui.core.spec.profile import Strict


@dataclass(frozen=True)
class ForkKey:
    """A fork key: the values that match srt-tui's behaviour, and why any other value is refused."""

    reason: str
    same: tuple[Any, ...] = ()


_COLLECTOR = "belongs to srtctl's power collector (per-benchmark power windows), which srt-tui does not run; " + (
    "the exporter runs on every node and the monitor reads it live"
)
_BENCH = "is read by an srtctl benchmark runner srt-tui does not have"

FORK_KEYS: dict[str, dict[str, ForkKey]] = {
    "recipe": {
        "services": ForkKey(
            "(srtctl's long-running services: mooncake store, LMCache server, sidecars, pools) "
            "is not supported by srt-tui yet",
            ([],),
        ),
        "host_setup": ForkKey("(commands on the bare hosts before workers) is not supported by srt-tui yet"),
        "post_eval": ForkKey("(srtctl's post-benchmark accuracy evaluation) is not supported by srt-tui yet"),
        "enable_config_dump": ForkKey("false is not supported: srt-tui always writes the worker configs", (True,)),
    },
    "engine": {
        "vllm_serve_binary": ForkKey("(another vLLM launcher) is not supported by srt-tui yet; it starts `vllm serve`"),
        "failover": ForkKey("(vLLM shadow engines, elected by dynamo.vllm) is not supported by srt-tui", (None,)),
        "allow_prefill_decode_colocation": ForkKey(
            "is not how srt-tui colocates: write roles.decode.nodes: colocate", (False, None)
        ),
        "allow_prefill_decode_colocation_across_nodes": ForkKey(
            "is not how srt-tui colocates: write roles.decode.nodes: colocate", (False, None)
        ),
        "dp_launch_mode": ForkKey(
            "other than per_node is not supported: srt-tui starts one server per worker per node", ("per_node",)
        ),
    },
    "roles": {
        "critical": ForkKey("false is not supported: srt-tui fails the job when any worker exits", (True,)),
        "container": ForkKey("(a per-role image) is not supported by srt-tui yet; set model.container"),
        "engine": ForkKey("(a per-role engine) is not supported by srt-tui yet; set the top-level engine"),
        "kv_events": ForkKey("per role is not supported by srt-tui yet; set engine.kv_events_config"),
        "sidecar": ForkKey("(Dynamo sidecars) is not supported by srt-tui", (False, None)),
    },
    "resources": {
        "het_jobs": ForkKey("(heterogeneous Slurm jobs) is not supported by srt-tui", (False, None)),
    },
    "frontend": {
        "orchestrator_placement": ForkKey(
            "other than head is not supported: srt-tui runs the router on node 0", ("head",)
        ),
        "dedicated_node": ForkKey("(a node of its own for the router) is not supported by srt-tui yet", (False,)),
        "placement": ForkKey(
            "other than {node: head} is not supported: srt-tui runs the router on node 0", ({"node": "head"},)
        ),
        "worker_selection": ForkKey("(Dynamo's worker-selection policy file) is not supported by srt-tui yet", (None,)),
        "ctx_router": ForkKey("(trtllm_serve's disaggregated orchestrator) is not supported by srt-tui yet", (None,)),
        "gen_router": ForkKey("(trtllm_serve's disaggregated orchestrator) is not supported by srt-tui yet", (None,)),
        "server_config_extra": ForkKey(
            "(trtllm_serve's disaggregated orchestrator) is not supported by srt-tui yet", (None,)
        ),
    },
    "benchmark": {
        "client_placement": ForkKey("other than head is not supported: srt-tui runs the client on node 0", ("head",)),
        "client_dedicated_node": ForkKey(
            "(a node of its own for the client) is not supported by srt-tui yet", (False,)
        ),
        "colocate_with_frontend": ForkKey("false is not supported: the client runs next to the router", (True,)),
        "placement": ForkKey(
            "other than {node: head} is not supported: srt-tui runs the client on node 0", ({"node": "head"},)
        ),
        "sweep": ForkKey("(a benchmark-level sweep) is not supported by srt-tui yet; use a top-level `sweep:` block"),
        "agentperf_client_dir": ForkKey(_BENCH + " (agentperf)"),
        "agentperf_config": ForkKey(_BENCH + " (agentperf)"),
    },
    "telemetry": {
        "required": ForkKey(
            "true is not supported: srt-tui records GPU telemetry best-effort and never fails a job on it", (False,)
        ),
        "provider": ForkKey("other than dcgm-power does not exist in the fork", ("dcgm-power",)),
        "collect_interval_ms": ForkKey(_COLLECTOR),
        "storage_subdir": ForkKey(_COLLECTOR),
        "startup_timeout_seconds": ForkKey(_COLLECTOR),
        "request_timeout_seconds": ForkKey(_COLLECTOR),
        "collector_join_timeout_seconds": ForkKey(_COLLECTOR, (None,)),
        "cpu_power_exporter": ForkKey("(CPU power) is not supported by srt-tui yet", (None,)),
        "cpu_power": ForkKey("(CPU power) is not supported by srt-tui yet", ({"enabled": False},)),
    },
}


#: engines of the fork srt-tui does not run, with what they are
UNSUPPORTED_ENGINES: dict[str, str] = {"tilert": "TileRT", "tokenspeed": "TokenSpeed"}

#: srtctl benchmark types srt-tui cannot run, with the reason a job could not work
UNSUPPORTED_BENCHMARKS: dict[str, str] = {
    "lm-eval": "srtctl runs it through InferenceX's benchmark_lib.sh from a mounted INFMAX_WORKSPACE, "
    "which srt-tui does not mount",
}


def refuse_fork_keys(value: Any, section: str) -> Any:
    """`value` without the fork keys it sets to srt-tui's own behaviour; raises naming any other one."""
    if not isinstance(value, dict):
        return value
    engine = value.get("type") if section == "engine" else None
    if isinstance(engine, str) and engine in UNSUPPORTED_ENGINES:
        raise ValueError(f"engine `{engine}` ({UNSUPPORTED_ENGINES[engine]}) is not supported by srt-tui yet")
    table = FORK_KEYS[section]
    known = [k for k in value if k in table]
    if not known:
        return value
    for key in known:
        spec = table[key]
        if value[key] not in spec.same:
            raise ValueError(f"`{key}` {spec.reason}")
    return {k: v for k, v in value.items() if k not in known}


def _fork_schema(schema: dict[str, Any], cls: type[Any]) -> None:
    """`json_schema_extra` of a ForkSection: its fork keys appear in `srt-tui schema recipe`, each saying
    which value srt-tui honours and why others are refused."""
    props = schema.setdefault("properties", {})
    for key, spec in FORK_KEYS[cls.fork_section].items():
        honoured = ", ".join(json.dumps(v) for v in spec.same)
        note = f"the fork's key; honoured as {honoured}; other values: {key} {spec.reason}"
        props[key] = {"description": note if spec.same else f"the fork's key; {key} {spec.reason}"}


class ForkSection(Strict):
    """A recipe model whose `fork_section` of FORK_KEYS is honoured or refused on load and listed in its
    schema: one validator and one schema hook for every section, instead of a copy in each model."""

    fork_section: ClassVar[str]

    model_config = Strict.model_config | {"json_schema_extra": _fork_schema}

    @model_validator(mode="before")
    @classmethod
    def _fork_keys(cls, value: Any) -> Any:
        return refuse_fork_keys(value, cls.fork_section)
