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
from srt_tui.core.engines import serving
from srt_tui.core.engines.base import flag_name
from srt_tui.core.frontends.routers.base import Router, RouterContext, RouterLaunch


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


class SMG(Router):
    """Shepherd Model Gateway in front of SGLang or vLLM HTTP workers (it detects each worker's engine)."""

    name: ClassVar[str] = "smg"
    #: sglang-router's successor exports the same `smg_router_*` serving families
    serving_metrics: ClassVar[dict[str, str]] = serving.SGLANG_ROUTER

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
