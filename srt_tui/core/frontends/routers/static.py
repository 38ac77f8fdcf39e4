"""Static HTTP routers (sglang-router, vllm-router, AToMesh): worker URLs known at start."""

from __future__ import annotations

from typing import ClassVar

from srt_tui.core import placeholders as ph
from srt_tui.core.capabilities import PdFlow, Registration, WorkerApi
from srt_tui.core.engines import serving
from srt_tui.core.engines.base import args_to_flags
from srt_tui.core.frontends.routers.base import Router, RouterContext, RouterLaunch


def _listen(ctx: RouterContext) -> list[str]:
    """Where sglang-router and vllm-router listen: the routing port and their Prometheus port, on the bind address."""
    return [
        "--host",
        ph.BIND,
        "--port",
        str(ctx.port),
        "--prometheus-host",
        ph.BIND,
        "--prometheus-port",
        str(ctx.metrics_port),
    ]


class SGLangRouter(Router):
    """sglang-router (SGLang Model Gateway) with `--pd-disaggregation` or `--worker-urls`."""

    name: ClassVar[str] = "sglang-router"
    router_benchmark: ClassVar[bool] = True
    serving_metrics: ClassVar[dict[str, str]] = serving.SGLANG_ROUTER
    #: srtctl starts NATS and etcd for every frontend but trtllm_serve and vllm, this one included
    infrastructure: ClassVar[frozenset[str]] = frozenset({"nats", "etcd"})
    #: sglang-router 0.3.2 (axum) never sets TCP_NODELAY on the connections it accepts (strace: no setsockopt on
    #: them; vllm-router and smg set it): Nagle holds a streamed response's first chunk behind its head until the
    #: client's delayed ACK, 40 ms on Linux. Measured against mock workers, 16 tokens: a client's TTFT p50 44 ms
    #: where the engines measured 0-2 ms, 1 ms with TCP_QUICKACK on the client (README "serving figures")
    client_ttft_added_s: ClassVar[float] = 0.040

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
        argv += _listen(ctx)
        argv += args_to_flags(ctx.args)
        return RouterLaunch(tuple(argv), differs_from_srtctl=("router-metrics", *ctx.recipe_port_deviation()))


class VLLMRouter(Router):
    """vllm-router with `--vllm-pd-disaggregation` or `--worker-urls`; MoRI-IO uses ZMQ discovery."""

    name: ClassVar[str] = "vllm-router"
    worker_api: ClassVar[WorkerApi] = "vllm"
    #: P/D: the prefill gets the request with max_tokens 1, then the decode gets it with the prefill's
    #: kv_transfer_params (reference/routers/NOTES.md §4); a vLLM decode's TTFT starts there
    pd_flow: ClassVar[PdFlow] = "sequential"
    kv_discovery: ClassVar[frozenset[str]] = frozenset({"moriio"})

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
            *_listen(ctx),
            "--worker-startup-timeout-secs",
            str(ctx.startup_timeout_s),
        ]
        argv += args_to_flags(ctx.args)
        # in discovery mode workers never show in /workers; /health turns 200 once P and D registered
        return RouterLaunch(tuple(argv), registration="router-health" if discovery else None)


class AToMesh(Router):
    """AToMesh in front of ATOM workers (P/D with Mooncake)."""

    name: ClassVar[str] = "atomesh"
    registration: ClassVar[Registration] = "worker-health"
    has_metrics_port: ClassVar[bool] = False

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
