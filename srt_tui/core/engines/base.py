"""The engine protocol: how one worker process is started, and what it declares about itself."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from srt_tui.core.capabilities import LaunchStyle, WorkerApi, WorkerStart
from srt_tui.core.errors import Problem, whole_number
from srt_tui.core.spec.recipe import MODE_KEYS, EngineSpec, Role

#: one srun step per node of a worker, one task each (SGLang, vLLM, ATOM, the mocker)
LAUNCH_PER_NODE: LaunchStyle = "per-node"
#: one srun step per worker across all its nodes, one MPI task per GPU (TRT-LLM's `trtllm-llmapi-launch`)
LAUNCH_MPI: LaunchStyle = "mpi"
#: the first data-parallel RPC port on a node (srtctl's VLLM_DATA_PARALLEL_RPC_PORT)
DP_RPC_PORT = 8400


@dataclass(frozen=True)
class Ports:
    """Ports of one process; 0 means the process does not listen on that port."""

    http: int = 0
    bootstrap: int = 0
    sys: int = 0
    nccl: int = 0
    kv_events: int = 0
    nixl: int = 0
    dist_init: int = 0

    def listening(self) -> dict[str, int]:
        """The non-zero ports by name."""
        return {k: v for k, v in self.__dict__.items() if v}


@dataclass(frozen=True)
class WorkerContext:
    """What an engine needs to build one process's command: identity, placement, ports, flags."""

    name: str
    role: Role
    worker_index: int
    node_index: int
    leader_node: int
    node_rank: int
    nnodes: int
    gpus: tuple[int, ...]
    subset: bool
    ports: Ports
    disaggregated: bool
    model: str
    served_name: str
    visible_devices_env: str
    engine: EngineSpec
    args: dict[str, Any] = field(default_factory=dict)
    extra_args: tuple[str, ...] = ()
    #: how the worker starts behind its router (the router's `worker_launch`): "direct" or "dynamo"
    worker_launch: WorkerStart = "direct"
    #: Dynamo's request plane (`--request-plane`), for workers speaking the "dynamo" protocol
    request_plane: str | None = None
    #: the router's `worker_api`: the API dialect the worker must speak ("sglang" or "vllm")
    worker_api: WorkerApi = "sglang"
    #: the job's GPU type (`resources.gpu_type`, else the profile's default), as srtctl's runtime has it
    gpu_type: str | None = None
    #: the worker's data-parallel RPC port (srtctl: 8400 upwards per leader node, one per DP endpoint)
    dp_rpc_port: int = 0


@dataclass(frozen=True)
class WorkerLaunch:
    """An engine's answer: argv (with placeholders), extra env, and config files to write first."""

    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    config_files: tuple[tuple[str, str], ...] = ()  # (file name under <logs>/config, content)
    #: variables removed from the step's inherited environment (srtctl's `unset`)
    unset_env: tuple[str, ...] = ()
    #: where this launch differs from srtctl's on purpose (ids of core/plan/deviations.py)
    differs_from_srtctl: tuple[str, ...] = ()


class Engine:
    """A serving engine. Capabilities are declared as class attributes, not decided by name checks; an adapter
    states only what differs from these defaults (one node per worker, one step per node, the mask taken)."""

    name: ClassVar[str]
    #: flags srt-tui sets itself; the same flag in recipe args is a duplicate to report
    managed_flags: ClassVar[frozenset[str]] = frozenset()
    #: flags that carry the tensor-parallel size
    tp_flags: ClassVar[tuple[str, ...]] = ()
    #: flags that carry the pipeline-parallel size
    pp_flags: ClassVar[tuple[str, ...]] = ()
    #: flags that carry the data-parallel size (replicas that multiply the GPUs, see `dp_within_tp_flag`)
    dp_flags: ClassVar[tuple[str, ...]] = ()
    #: a flag that, when true, places the DP ranks inside the TP group (SGLang's DP attention)
    dp_within_tp_flag: ClassVar[str | None] = None
    #: that flag has no size of its own: one DP rank per TP rank (TRT-LLM's `enable_attention_dp`)
    dp_within_tp_sized_by_tp: ClassVar[bool] = False
    #: flags that carry the expert-parallel size (MoE experts sharded over that many ranks; no GPUs of their own)
    ep_flags: ClassVar[tuple[str, ...]] = ()
    #: a flag that, when true, shards the experts over every TP × DP rank (vLLM's `enable-expert-parallel`)
    ep_over_ranks_flag: ClassVar[str | None] = None
    #: managed port flags a recipe may set, by the `Ports` field they move (honoured unless they collide)
    port_flags: ClassVar[dict[str, str]] = {}
    #: the variable naming the torch profiler's output directory (None: no torch profiling)
    torch_profiler_env: ClassVar[str | None] = None
    #: what `nsys profile -t` traces for this engine's workers
    nsys_traces: ClassVar[str] = "cuda,nvtx"
    #: can one worker span several nodes
    multinode: ClassVar[bool] = False
    #: how a worker's processes are started: LAUNCH_PER_NODE (one step per node of the worker) or
    #: LAUNCH_MPI (one step per worker spanning its nodes, one MPI task per GPU)
    launch_style: ClassVar[LaunchStyle] = LAUNCH_PER_NODE
    #: the engine offsets its NIXL and KV-event ports by the data-parallel rank (vLLM), so a DP endpoint gets
    #: srtctl's port blocks: one NIXL block of DP-size ports for the endpoint, KV-event ports per local rank
    ports_per_dp_rank: ClassVar[bool] = False
    #: router adapters this engine can sit behind (`direct` = serving alone on the public port): the one
    #: declaration of the engine-router pairing (routers do not name engines)
    frontends: ClassVar[frozenset[str]]
    #: its request counters on /metrics (plan.json `metrics`): ok, failed, running, queued → a
    #: selector `name` or `name{label="value"}`; a Dynamo worker's come from its router instead
    metrics: ClassVar[dict[str, str]] = {}
    #: its serving families on /metrics (plan.json `serving`, see `core.engines.serving`): latency
    #: histograms, token counters, queue and KV gauges, by the worker API it speaks ("" = any)
    serving_metrics: ClassVar[dict[str, dict[str, str]]] = {}
    #: the KV connectors (`engine.connector`) its workers can move KV over; None: any (chosen in the roles' args)
    kv_connectors: ClassVar[frozenset[str] | None] = None
    #: takes `engine.mooncake_protocol` (it sets its Mooncake transport itself)
    takes_mooncake_protocol: ClassVar[bool] = False
    #: its decode workers answer SGLang's `/slow_down` (sa-bench's slow_down_sleep_time / _wait_time)
    serves_slow_down: ClassVar[bool] = False
    #: its containers carry SGLang's `sglang.test.run_eval`, which srtctl's gsm8k runs (False: srtctl runs
    #: a vendored script srt-tui does not ship)
    runs_sglang_gsm8k: ClassVar[bool] = True
    #: its workers load the model from `model.path` (the preflight checks that path exists); False: the path is only
    #: a served name (the mocker)
    reads_model_path: ClassVar[bool] = True
    #: the Python packages its workers start from when they run on the host (`container_runtime: none`), which the
    #: host's `python3` must import; None: not declared (the recipe list cannot say it runs without a container)
    host_modules: ClassVar[tuple[str, ...] | None] = None
    #: Dynamo's module for it (`dynamo.vllm`) wraps the engine's own package (`host_modules`), which ai-dynamo does not
    #: install; False for Dynamo's own `dynamo.mocker`, which needs nothing beyond ai-dynamo
    dynamo_wraps_engine: ClassVar[bool] = True

    def needs_packages(self, worker_launch: WorkerStart) -> tuple[str, ...]:
        """The top-level packages its worker's `python3 -m` module imports to start besides its own (the host check
        asks them of the job's Python with find_spec, importing nothing): under Dynamo the engine it wraps."""
        if worker_launch == "dynamo" and self.dynamo_wraps_engine:
            return self.host_modules or ()
        return ()

    def reads_model(self, worker_launch: WorkerStart) -> bool:
        """Do its workers read `model.path` when started so (`direct`, or under Dynamo)? Only then does the preflight
        check that path and the profile need an alias for it."""
        return self.reads_model_path

    def block_refusal(self, spec: EngineSpec) -> str | None:
        """Why it cannot run its `engine:` block as written (checked as the recipe is read), else None."""
        allowed = self.kv_connectors
        if (
            allowed is not None
            and spec.connector is not None
            and not (isinstance(spec.connector, str) and spec.connector in allowed)
        ):
            names = ", ".join(sorted(allowed))
            write = " or ".join(f"`connector: {c}`" for c in sorted(allowed))
            return f"`connector`: {self.name} moves KV over {names} only; write {write} or omit it"
        if spec.mooncake_protocol is not None and not self.takes_mooncake_protocol:
            return (
                "`mooncake_protocol` sets the Mooncake transport of an engine that moves KV over it itself; "
                f"for {self.name} choose the KV transport in the roles' args"
            )
        return None

    def dynamo_config_problems(self, config: dict[str, Any] | None) -> list[Problem]:
        """Refusals for `engine.config` when its workers run in-process under Dynamo (none by default)."""
        return []

    def should_set_visible_devices(self, spec: EngineSpec) -> bool:
        """Does this engine take the GPU-subset mask through the profile's visibility variable (most do)."""
        return True

    def launch(self, ctx: WorkerContext) -> WorkerLaunch:
        """Command and env of one process."""
        raise NotImplementedError(type(self).__name__)


def flag_name(key: str) -> str:
    """Recipe arg key to CLI flag name (`tp_size` and `tp-size` both mean `--tp-size`)."""
    return key.strip().lstrip("-").replace("_", "-")


def args_to_flags(args: dict[str, Any]) -> list[str]:
    """srtctl's map→CLI rule: true → bare flag, false/null → omitted, list → flag + items, dict → JSON."""
    out: list[str] = []
    for key, value in args.items():
        flag = "--" + flag_name(key) if not key.startswith("-") else key
        if value is None or value is False:
            continue
        if value is True:
            out.append(flag)
        elif isinstance(value, list):
            out.append(flag)
            out.extend(_scalar(v) for v in value)
        elif isinstance(value, dict):
            out += [flag, json.dumps(value, separators=(",", ":"), sort_keys=True)]
        else:
            out += [flag, _scalar(value)]
    return out


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"), sort_keys=True)
    return str(value)


def arg_int(args: dict[str, Any], flags: tuple[str, ...]) -> int | None:
    """Integer value of the first of `flags` present in args (any spelling), else None."""
    wanted = {flag_name(f) for f in flags}
    for key, value in args.items():
        number = whole_number(value) if flag_name(key) in wanted else None
        if number is not None:
            return number
    return None


def size_args(engine: Engine, args: dict[str, Any]) -> list[tuple[str, str]]:
    """(key, what it sizes) of each arg that carries one of ``engine``'s parallelism sizes (its declared TP, PP, DP
    and EP flags, any spelling), as `parallelism` reads them: `[("tp-size", "tensor-parallel size")]`."""
    sizes = (
        ("tensor-parallel size", engine.tp_flags),
        ("pipeline-parallel size", engine.pp_flags),
        ("data-parallel size", engine.dp_flags),
        ("expert-parallel size", engine.ep_flags),
    )
    named = {flag_name(f): what for what, flags in sizes for f in flags}
    return [(key, named[flag_name(key)]) for key in args if flag_name(key) in named]


def parallel_gpus(engine: Engine, args: dict[str, Any]) -> tuple[int, str] | None:
    """GPUs one worker's parallelism flags ask for (TP × PP × DP), and the TP flag's key; None without TP."""
    tp_names = {flag_name(f) for f in engine.tp_flags}
    key = next((k for k in args if flag_name(k) in tp_names), None)
    tp = arg_int(args, engine.tp_flags)
    if key is None or tp is None:
        return None
    gpus = tp * (arg_int(args, engine.pp_flags) or 1)
    if not _switched_on(args, engine.dp_within_tp_flag):
        gpus *= arg_int(args, engine.dp_flags) or 1
    return gpus, key


def _switched_on(args: dict[str, Any], flag: str | None) -> bool:
    """Is boolean ``flag`` (any spelling) set true in ``args``?"""
    return flag is not None and any(flag_name(k) == flag_name(flag) and v is True for k, v in args.items())


@dataclass(frozen=True)
class Parallelism:
    """One worker's parallelism as its engine's flags say it (`parallelism`): what the recipe summary, the
    topology table and the dry-run show beside its GPUs."""

    #: the tensor-parallel size (None: no TP flag written)
    tp: int | None
    pp: int = 1
    dp: int = 1
    #: the DP ranks sit inside the TP group (DP attention): they take no GPUs of their own
    dp_in_tp: bool = False
    ep: int = 1

    def words(self, *, ep: bool = True) -> str:
        """`TP 4`, `TP 1 × DP 16 · EP 16`, `TP 8 · DP attention 8 · EP 8`: sizes that multiply the GPUs joined by
        ×, then those inside them ("" when the flags say nothing; ``ep`` False: without the expert parallelism)."""
        sizes = [f"TP {self.tp}"] if self.tp is not None else []
        sizes += [f"PP {self.pp}"] if self.pp > 1 else []
        sizes += [f"DP {self.dp}"] if self.dp > 1 and not self.dp_in_tp else []
        inside = [f"DP attention {self.dp}"] if self.dp > 1 and self.dp_in_tp else []
        inside += [f"EP {self.ep}"] if self.ep > 1 and ep else []
        return " · ".join(([" × ".join(sizes)] if sizes else []) + inside)

    @property
    def beyond_tp(self) -> bool:
        """Does it say more than the TP size (PP, DP or EP)?"""
        return self.pp > 1 or self.dp > 1 or self.ep > 1


def parallelism(engine: Engine, args: dict[str, Any]) -> Parallelism:
    """A worker's TP, PP, DP and EP as ``engine`` reads them from its role's ``args`` (the flags each adapter
    declares, as `parallel_gpus` reads the GPUs they ask for)."""
    tp = arg_int(args, engine.tp_flags)
    in_tp = _switched_on(args, engine.dp_within_tp_flag)
    dp = arg_int(args, engine.dp_flags) or ((tp or 1) if in_tp and engine.dp_within_tp_sized_by_tp else 1)
    ep = arg_int(args, engine.ep_flags)
    if ep is None and _switched_on(args, engine.ep_over_ranks_flag):
        ep = (tp or 1) * (1 if in_tp else dp)
    return Parallelism(tp, arg_int(args, engine.pp_flags) or 1, dp, in_tp, ep or 1)


def kv_events(ctx: WorkerContext, defaults: dict[str, Any] | None = None) -> str | None:
    """srtctl's `--kv-events-config` value, or None when off for this role.

    `kv_events_config: true` turns it on for prefill and decode workers (not aggregated ones); per mode
    (`prefill`/`decode`/`aggregated`: true or a config merged over the defaults) for that mode alone. The
    ZMQ publisher then publishes on this process's KV-events port; the JSON is srtctl's (its key order,
    `json.dumps` spacing), so the worker reads the same text.
    """
    spec = ctx.engine.kv_events_config
    if isinstance(spec, dict):
        spec = spec.get(MODE_KEYS[ctx.role])
    elif spec is True and ctx.role == "agg":
        spec = None
    if not spec or not ctx.ports.kv_events:
        return None
    doc: dict[str, Any] = {"publisher": "zmq", "topic": "kv-events", **(defaults or {})}
    if isinstance(spec, dict):
        doc.update(spec)
    doc["endpoint"] = f"tcp://*:{ctx.ports.kv_events}"
    return json.dumps(doc)


def request_plane_flags(ctx: WorkerContext) -> list[str]:
    """`--request-plane X` for an in-process Dynamo worker (srtctl passes it to every Dynamo engine)."""
    return ["--request-plane", ctx.request_plane] if ctx.worker_launch == "dynamo" and ctx.request_plane else []


def role_mode(ctx: WorkerContext) -> str | None:
    """`prefill`/`decode` for disaggregated workers, None for aggregated ones."""
    return ctx.role if ctx.disaggregated else None
