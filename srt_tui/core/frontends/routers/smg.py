"""The Shepherd Model Gateway (`smg` on PyPI, sglang-router's successor) as the fork runs it (`frontend.type: smg`).

A static router: the worker URLs are on its command line (`smg launch --pd-disaggregation --prefill URL
[BOOTSTRAP] --decode URL`, or `--worker-urls`), it starts once every worker answers `/health` (it gives up
on a worker that loads for longer than `--worker-startup-timeout-secs`), lists them at `GET /workers`
(one entry per data-parallel rank under `--dp-aware`, with `dp_base_url`/`dp_rank`) and serves its
`smg_*` Prometheus families on a listener of its own (`--prometheus-port`, the fork's 29000).
"""

from __future__ import annotations

from typing import Any, ClassVar

from srt_tui.core import placeholders as ph
from srt_tui.core.capabilities import Registration, WorkerApi, WorkerHealth, WorkerPort, WorkerStart
from srt_tui.core.engines.base import flag_name
from srt_tui.core.frontends.routers.base import RouterContext, RouterLaunch


def repeated_flags(args: dict[str, Any]) -> list[str]:
    """The fork's static-router rule for `frontend.args`: true → bare flag, false/null → omitted, a list →
    the flag once per item (`--selector a --selector b`), anything else → flag and value."""
    out: list[str] = []
    for key, value in args.items():
        flag = key if key.startswith("-") else "--" + flag_name(key)
        if value is None or value is False:
            continue
        if value is True:
            out.append(flag)
        elif isinstance(value, list):
            for item in value:
                out += [flag, str(item)]
        else:
            out += [flag, str(value)]
    return out


class SMG:
    """Shepherd Model Gateway in front of SGLang or vLLM HTTP workers (it detects each worker's engine)."""

    name: ClassVar[str] = "smg"
    worker_api: ClassVar[WorkerApi] = "sglang"
    worker_port: ClassVar[WorkerPort] = "allocated"
    kv_discovery: ClassVar[frozenset[str]] = frozenset()
    waits_for_healthy_workers: ClassVar[bool] = True
    engines: ClassVar[frozenset[str]] = frozenset({"sglang", "vllm", "mocker"})
    registration: ClassVar[Registration] = "router-workers"
    needs_pd_pairs: ClassVar[bool] = True
    has_metrics_port: ClassVar[bool] = True
    infrastructure: ClassVar[frozenset[str]] = frozenset()
    worker_launch: ClassVar[WorkerStart] = "direct"
    worker_health: ClassVar[WorkerHealth] = "engine-http"
    worker_metrics: ClassVar[dict[str, str]] = {}
    metrics: ClassVar[dict[str, str]] = {}  # the same `smg_*` families sglang-router exports: the monitor reads them

    def launch(self, ctx: RouterContext) -> RouterLaunch:
        """`smg launch` with the workers, the routing port and the metrics listener, then `frontend.args`."""
        argv = ["smg", "launch"]
        if ctx.disaggregated:
            argv.append("--pd-disaggregation")
            for w in ctx.of_role("prefill"):
                argv += ["--prefill", w.url, *([str(w.bootstrap_port)] if w.bootstrap_port else [])]
            for w in ctx.of_role("decode"):
                argv += ["--decode", w.url]
        else:
            argv += ["--worker-urls", *[w.url for w in ctx.of_role("agg")]]
        argv += ["--host", ph.BIND, "--port", str(ctx.port), "--prometheus-port", str(ctx.metrics_port)]
        argv += repeated_flags(ctx.args)
        return RouterLaunch(tuple(argv))
