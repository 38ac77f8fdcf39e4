"""TensorRT-LLM: one MPI task per GPU under `trtllm-llmapi-launch`, the role's engine config dumped as YAML.

Behind Dynamo the tasks run `python3 -m dynamo.trtllm`; served directly they run `trtllm-serve`
(srtctl's `trtllm_serve`), which binds the worker's HTTP port on rank 0.
"""

from __future__ import annotations

from typing import ClassVar

from srt_tui.core import placeholders as ph
from srt_tui.core.capabilities import LaunchStyle
from srt_tui.core.engines.base import LAUNCH_MPI, Engine, WorkerContext, WorkerLaunch, request_plane_flags, role_mode
from srt_tui.core.spec.yamlio import dump_yaml

#: engine-YAML keys trtllm-serve also wants on its command line (srtctl passes them explicitly)
_SERVE_PARALLEL = (
    ("--tensor_parallel_size", "tensor_parallel_size"),
    ("--moe_expert_parallel_size", "moe_expert_parallel_size"),
    ("--pipeline_parallel_size", "pipeline_parallel_size"),
)


class TRTLLM(Engine):
    """TRT-LLM worker: one srun step per worker across its nodes, one task per GPU (srtctl's MPI launch)."""

    name: ClassVar[str] = "trtllm"
    host_modules: ClassVar[tuple[str, ...] | None] = ("tensorrt_llm",)
    managed_flags: ClassVar[frozenset[str]] = frozenset(
        {"model-path", "served-model-name", "extra-engine-args", "disaggregation-mode"}
    )
    tp_flags: ClassVar[tuple[str, ...]] = ("tensor-parallel-size", "tensor_parallel_size", "tp-size")
    pp_flags: ClassVar[tuple[str, ...]] = ("pipeline-parallel-size", "pipeline_parallel_size")
    dp_within_tp_flag: ClassVar[str | None] = "enable_attention_dp"
    dp_within_tp_sized_by_tp: ClassVar[bool] = True
    ep_flags: ClassVar[tuple[str, ...]] = ("moe_expert_parallel_size", "moe-expert-parallel-size")
    nsys_traces: ClassVar[str] = "cuda,nvtx,ucx"
    multinode: ClassVar[bool] = True
    launch_style: ClassVar[LaunchStyle] = LAUNCH_MPI
    #: GPU types whose prefill/decode workers srtctl starts under `numactl -m 0,1` (memory on both NUMA
    #: nodes of a Grace superchip); aggregated workers and other GPU types start without it
    numa_bind_gpu_types: ClassVar[frozenset[str]] = frozenset({"gb200", "gb300"})
    frontends: ClassVar[frozenset[str]] = frozenset({"dynamo", "direct"})

    def launch(self, ctx: WorkerContext) -> WorkerLaunch:
        """Write the role's args as the engine YAML, then start every rank pointing at it."""
        config_name = f"{ctx.name}.yaml"
        config_path = f"{ph.LOGS}/config/{config_name}"
        numa = ["numactl", "-m", "0,1"] if ctx.gpu_type in self.numa_bind_gpu_types and role_mode(ctx) else []
        if ctx.worker_launch == "dynamo":
            argv = [
                *numa,
                "trtllm-llmapi-launch",
                "python3",
                "-m",
                "dynamo.trtllm",
                "--model-path",
                ctx.model,
                "--served-model-name",
                ctx.served_name,
                "--extra-engine-args",
                config_path,
            ]
            mode = role_mode(ctx)
            if mode:
                argv += ["--disaggregation-mode", mode]
            argv += request_plane_flags(ctx)
        else:
            argv = [
                *numa,
                "trtllm-llmapi-launch",
                "trtllm-serve",
                ctx.model,
                "--host",
                ph.BIND,
                "--port",
                str(ctx.ports.http),
            ]
            for flag, key in _SERVE_PARALLEL:
                value = ctx.args.get(key)
                if value is not None:
                    argv += [flag, str(value)]
            argv += ["--config", config_path]
        argv += list(ctx.extra_args)
        # MoE load balancer shared memory: one name per worker, so workers sharing a node never collide
        env = (("TRTLLM_EPLB_SHM_NAME", f"moe_shared_{ph.JOB_ID}_{ctx.name}"),)
        content = dump_yaml(dict(ctx.args)) if ctx.args else "{}\n"
        return WorkerLaunch(tuple(argv), env, ((config_name, content),))
