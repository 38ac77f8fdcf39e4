"""sa-bench: srt-tui's own client (srt_tui/bench/sa_bench.py) with srtctl's defaults and result layout."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from srt_tui.core import placeholders as ph
from srt_tui.core.spec.recipe import BenchmarkSpec

if TYPE_CHECKING:
    from srt_tui.core.benchmark.context import BenchContext

#: the client, read as text (core never imports network code) and written into the job directory
CLIENT_SOURCE = Path(__file__).resolve().parents[2] / "bench" / "sa_bench.py"
CLIENT_IN_JOB = "srt-bench/sa_bench.py"  # under logs/, which every step sees as <logs>


@cache
def client_files() -> dict[str, str]:
    """The client's source as the job directory holds it, read on first use: not at import, since every
    command that validates a recipe imports this and most never write a job directory."""
    return {f"logs/{CLIENT_IN_JOB}": CLIENT_SOURCE.read_text(encoding="utf-8")}


def _num(value: float | int) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def sa_bench(ctx: BenchContext, b: BenchmarkSpec) -> tuple[str, ...]:
    """One client run over every concurrency; srtctl's defaults where the recipe is silent."""
    argv = [
        "python3",
        f"{ph.LOGS}/{CLIENT_IN_JOB}",
        "--url",
        ctx.public_url,
        "--model",
        ctx.served,
        "--tokenizer",
        ctx.model,
        "--isl",
        str(b.isl or 0),
        "--osl",
        str(b.osl or 0),
        "--concurrencies",
        "x".join(str(c) for c in b.concurrency_list()),
        "--req-rate",
        str(b.req_rate if b.req_rate is not None else "inf"),
        "--random-range-ratio",
        _num(b.random_range_ratio if b.random_range_ratio is not None else 0.8),
        "--num-prompts-mult",
        str(b.num_prompts_mult if b.num_prompts_mult is not None else 10),
        "--num-warmup-mult",
        str(b.num_warmup_mult if b.num_warmup_mult is not None else 2),
        "--dataset-name",
        b.dataset_name or "random",
    ]
    if b.dataset_path:
        argv += ["--dataset-path", b.dataset_path]
    if b.custom_tokenizer:
        argv += ["--custom-tokenizer", b.custom_tokenizer]
    if b.use_chat_template is not False:  # srtctl's default is true
        argv.append("--use-chat-template")
    if b.reuse_http_connections:
        argv.append("--reuse-http-connections")
    if b.slow_down_sleep_time is not None and b.slow_down_wait_time is not None:
        for role, url in ctx.leaders:
            if role == "decode":
                argv += ["--slow-down-server", url]
        argv += ["--slow-down-sleep-time", _num(b.slow_down_sleep_time)]
        argv += ["--slow-down-wait-time", _num(b.slow_down_wait_time)]
    argv += ["--total-gpus", str(ctx.gpus_total)]
    if ctx.disaggregated:
        argv += ["--prefill-gpus", str(ctx.gpus_prefill), "--decode-gpus", str(ctx.gpus_decode), "--disaggregated"]
    argv += ["--logs", ph.LOGS, "--config-name", ctx.name]
    return tuple(argv)
