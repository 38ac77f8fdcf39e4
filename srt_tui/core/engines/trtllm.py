"""TensorRT-LLM: `dynamo.trtllm` with the role's engine config dumped to `<logs>/config` as YAML."""

from __future__ import annotations

from typing import ClassVar

from .. import placeholders as ph
from ..recipe import EngineSpec
from ..yamlio import dump_yaml
from .base import WorkerContext, WorkerLaunch, request_plane_flags, role_mode


class TRTLLM:
    """TRT-LLM worker; one process per endpoint on one node (MPI multi-node launch not supported)."""

    name: ClassVar[str] = "trtllm"
    managed_flags: ClassVar[frozenset[str]] = frozenset(
        {"model-path", "served-model-name", "extra-engine-args", "disaggregation-mode"}
    )
    tp_flags: ClassVar[tuple[str, ...]] = ("tensor-parallel-size", "tensor_parallel_size", "tp-size")
    pp_flags: ClassVar[tuple[str, ...]] = ("pipeline-parallel-size", "pipeline_parallel_size")
    dp_flags: ClassVar[tuple[str, ...]] = ()
    dp_within_tp_flag: ClassVar[str | None] = None
    port_flags: ClassVar[dict[str, str]] = {}
    torch_profiler_env: ClassVar[str | None] = None
    nsys_traces: ClassVar[str] = "cuda,nvtx,ucx"
    multinode: ClassVar[bool] = False
    frontends: ClassVar[frozenset[str]] = frozenset({"dynamo", "direct"})
    metrics: ClassVar[dict[str, str]] = {}

    def should_set_visible_devices(self, spec: EngineSpec) -> bool:
        """TRT-LLM reads the visibility variable."""
        return True

    def launch(self, ctx: WorkerContext) -> WorkerLaunch:
        """Write the role's args as the engine YAML, then start the worker pointing at it."""
        config_name = f"{ctx.name}.yaml"
        argv = [
            "python3",
            "-m",
            "dynamo.trtllm",
            "--model-path",
            ctx.model,
            "--served-model-name",
            ctx.served_name,
            "--extra-engine-args",
            f"{ph.LOGS}/config/{config_name}",
        ]
        mode = role_mode(ctx)
        if mode:
            argv += ["--disaggregation-mode", mode]
        argv += request_plane_flags(ctx) + list(ctx.extra_args)
        return WorkerLaunch(tuple(argv), (), ((config_name, dump_yaml(dict(ctx.args)) if ctx.args else "{}\n"),))
