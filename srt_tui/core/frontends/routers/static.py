"""Static HTTP routers (sglang-router, vllm-router, AToMesh): worker URLs known at start."""

from __future__ import annotations

from typing import ClassVar

from srt_tui.core import placeholders as ph
from srt_tui.core.engines.base import args_to_flags
from srt_tui.core.frontends.routers.base import RouterContext, RouterLaunch


class SGLangRouter:
    """sglang-router (SGLang Model Gateway) with `--pd-disaggregation` or `--worker-urls`."""

    name: ClassVar[str] = "sglang-router"
    worker_api: ClassVar[str] = "sglang"
    worker_port: ClassVar[str] = "allocated"
    kv_discovery: ClassVar[frozenset[str]] = frozenset()
    waits_for_healthy_workers: ClassVar[bool] = True
    engines: ClassVar[frozenset[str]] = frozenset({"sglang", "mocker"})
    registration: ClassVar[str] = "router-workers"
    needs_pd_pairs: ClassVar[bool] = True
    has_metrics_port: ClassVar[bool] = True
    #: srtctl starts NATS and etcd for every frontend but trtllm_serve and vllm, this one included
    infrastructure: ClassVar[frozenset[str]] = frozenset({"nats", "etcd"})
    worker_launch: ClassVar[str] = "direct"
    worker_health: ClassVar[str] = "engine-http"
    worker_metrics: ClassVar[dict[str, str]] = {}
    metrics: ClassVar[dict[str, str]] = {}  # read by the monitor's sglang-router/vllm-router readers

    def launch(self, ctx: RouterContext) -> RouterLaunch:
        """srtctl's `python -m sglang_router.launch_router` with prefill bootstrap ports, plus its metrics port."""
        # srtctl's `python` exists in the images; a host may have only `python3`
        argv = ["python" if ctx.in_container else "python3", "-m", "sglang_router.launch_router"]
        if ctx.disaggregated:
            argv.append("--pd-disaggregation")
            for w in ctx.of_role("prefill"):
                argv += ["--prefill", w.url, str(w.bootstrap_port) if w.bootstrap_port else "none"]
            for w in ctx.of_role("decode"):
                argv += ["--decode", w.url]
        else:
            argv += ["--worker-urls", *[w.url for w in ctx.of_role("agg")]]
        argv += [
            "--host",
            ph.BIND,
            "--port",
            str(ctx.port),
            "--prometheus-host",
            ph.BIND,
            "--prometheus-port",
            str(ctx.metrics_port),
        ]
        argv += args_to_flags(ctx.args)
        return RouterLaunch(tuple(argv), differs_from_srtctl=("router-metrics",))


class VLLMRouter:
    """vllm-router with `--vllm-pd-disaggregation` or `--worker-urls`; MoRI-IO uses ZMQ discovery."""

    name: ClassVar[str] = "vllm-router"
    worker_api: ClassVar[str] = "vllm"
    worker_port: ClassVar[str] = "allocated"
    kv_discovery: ClassVar[frozenset[str]] = frozenset({"moriio"})
    waits_for_healthy_workers: ClassVar[bool] = True
    engines: ClassVar[frozenset[str]] = frozenset({"vllm", "mocker"})
    registration: ClassVar[str] = "router-workers"
    needs_pd_pairs: ClassVar[bool] = True
    has_metrics_port: ClassVar[bool] = True
    infrastructure: ClassVar[frozenset[str]] = frozenset()
    worker_launch: ClassVar[str] = "direct"
    worker_health: ClassVar[str] = "engine-http"
    worker_metrics: ClassVar[dict[str, str]] = {}
    metrics: ClassVar[dict[str, str]] = {}  # read by the monitor's sglang-router/vllm-router readers

    def launch(self, ctx: RouterContext) -> RouterLaunch:
        """`vllm-router` with managed startup timeout and metrics listener."""
        argv = ["vllm-router"]
        discovery = ctx.engine is not None and ctx.engine.connector in self.kv_discovery
        if ctx.disaggregated:
            argv.append("--vllm-pd-disaggregation")
            if discovery:
                argv += ["--kv-connector", "moriio", "--vllm-discovery-address", f"{ph.BIND}:36367"]
            else:
                for w in ctx.of_role("prefill"):
                    argv += ["--prefill", w.url]
                for w in ctx.of_role("decode"):
                    argv += ["--decode", w.url]
        else:
            argv += ["--worker-urls", *[w.url for w in ctx.of_role("agg")]]
        argv += [
            "--host",
            ph.BIND,
            "--port",
            str(ctx.port),
            "--prometheus-host",
            ph.BIND,
            "--prometheus-port",
            str(ctx.metrics_port),
            "--worker-startup-timeout-secs",
            str(ctx.startup_timeout_s),
        ]
        argv += args_to_flags(ctx.args)
        # in discovery mode workers never show in /workers; /health turns 200 once P and D registered
        return RouterLaunch(tuple(argv), registration="router-health" if discovery else None)


class AToMesh:
    """AToMesh in front of ATOM workers (P/D with Mooncake)."""

    name: ClassVar[str] = "atomesh"
    worker_api: ClassVar[str] = "sglang"
    worker_port: ClassVar[str] = "allocated"
    kv_discovery: ClassVar[frozenset[str]] = frozenset()
    waits_for_healthy_workers: ClassVar[bool] = True
    engines: ClassVar[frozenset[str]] = frozenset({"atom", "mocker"})
    registration: ClassVar[str] = "worker-health"
    needs_pd_pairs: ClassVar[bool] = True
    has_metrics_port: ClassVar[bool] = False
    infrastructure: ClassVar[frozenset[str]] = frozenset()
    worker_launch: ClassVar[str] = "direct"
    worker_health: ClassVar[str] = "engine-http"
    worker_metrics: ClassVar[dict[str, str]] = {}
    metrics: ClassVar[dict[str, str]] = {}

    def launch(self, ctx: RouterContext) -> RouterLaunch:
        """`atomesh launch --pd-disaggregation --prefill URL --decode URL --backend atom`."""
        argv = ["atomesh", "launch"]
        if ctx.disaggregated:
            argv.append("--pd-disaggregation")
            for w in ctx.of_role("prefill"):
                argv += ["--prefill", w.url]
            for w in ctx.of_role("decode"):
                argv += ["--decode", w.url]
        else:
            for w in ctx.of_role("agg"):
                argv += ["--worker-urls", w.url]
        argv += ["--backend", "atom", "--host", ph.BIND, "--port", str(ctx.port)]
        argv += args_to_flags(ctx.args)
        return RouterLaunch(tuple(argv))
