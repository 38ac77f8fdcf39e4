"""The mocker engine: srt-tui's own HTTP worker standing in for SGLang/vLLM behind static routers, and
Dynamo's `dynamo.mocker` behind Dynamo (srtctl's `mocker` backend)."""

from __future__ import annotations

from typing import Any, ClassVar

from srt_tui.core import placeholders as ph
from srt_tui.core.capabilities import WorkerStart
from srt_tui.core.engines import serving
from srt_tui.core.engines.base import Engine, WorkerContext, WorkerLaunch, args_to_flags, role_mode
from srt_tui.core.engines.dynamo_mocker import SIMULATION, dynamo_mocker_launch, unknown_keys
from srt_tui.core.errors import Problem, choices_hint


class Mocker(Engine):
    """Mock worker; takes the mask like SGLang and reports it in `/server_info`."""

    name: ClassVar[str] = "mocker"
    host_modules: ClassVar[tuple[str, ...] | None] = ("srt_tui",)  # it ships with srt-tui
    dynamo_wraps_engine: ClassVar[bool] = False  # `dynamo.mocker` is Dynamo's own
    managed_flags: ClassVar[frozenset[str]] = frozenset(
        {"host", "port", "role", "flavor", "name", "model", "bootstrap-port", "visible-devices-env"}
    )
    tp_flags: ClassVar[tuple[str, ...]] = ("tp-size",)
    port_flags: ClassVar[dict[str, str]] = {"bootstrap-port": "bootstrap"}
    reads_model_path: ClassVar[bool] = False  # `--model` is the name it serves: it loads no weights
    frontends: ClassVar[frozenset[str]] = frozenset(
        {"sglang-router", "smg", "vllm-router", "atomesh", "dynamo", "direct"}
    )
    #: srt-tui's mock counts generation requests per path and status (only those paths are read)
    metrics: ClassVar[dict[str, str]] = {
        "ok": 'srt_mock_requests_total{status="ok"}',
        "failed": 'srt_mock_requests_total{status="failed"}',
        "running": "srt_mock_requests_running",
    }
    #: the mock exports the serving families of the engine it imitates (`--flavor` = the worker API)
    serving_metrics: ClassVar[dict[str, dict[str, str]]] = {"sglang": serving.SGLANG, "vllm": serving.VLLM}

    def reads_model(self, worker_launch: WorkerStart) -> bool:
        """Under Dynamo it is Dynamo's `dynamo.mocker`, which reads its tokenizer from `--model-path`."""
        return worker_launch == "dynamo"

    def dynamo_config_problems(self, config: dict[str, Any] | None) -> list[Problem]:
        """Under Dynamo it is Dynamo's `dynamo.mocker`: `engine.config` holds its simulation parameters only."""
        return [
            Problem(
                f"engine.config.{key}",
                "not a simulation parameter of Dynamo's mocker",
                choices_hint(key, SIMULATION, "use one of"),
            )
            for key in unknown_keys(config)
        ]

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
