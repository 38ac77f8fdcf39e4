"""sa-bench: srt-tui's own client (srt_tui/bench/sa_bench.py) with srtctl's defaults and result layout."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from srt_tui.core import placeholders as ph
from srt_tui.core.benchmark.types.base import COMMON, BenchmarkType
from srt_tui.core.benchmark.types.checks import concurrencies, need, positive, req_rate
from srt_tui.core.errors import Problem, did_you_mean
from srt_tui.core.spec.recipe import BenchmarkSpec

if TYPE_CHECKING:
    from srt_tui.core.benchmark.context import BenchContext
    from srt_tui.core.engines.base import Engine
    from srt_tui.core.frontends.routers.base import Router

#: the client, read as text (core never imports network code) and written into the job directory
CLIENT_SOURCE = Path(__file__).resolve().parents[3] / "bench" / "sa_bench.py"
CLIENT_IN_JOB = "srt-bench/sa_bench.py"  # under logs/, which every step sees as <logs>


@cache
def client_files() -> dict[str, str]:
    """The client's source as the job directory holds it, read on first use: not at import, since every
    command that validates a recipe imports this and most never write a job directory."""
    return {f"logs/{CLIENT_IN_JOB}": CLIENT_SOURCE.read_text(encoding="utf-8")}


def _num(value: float | int) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


#: the keys sa-bench reads beyond the common ones
SA_BENCH = frozenset(
    {
        "isl",
        "osl",
        "concurrencies",
        "req_rate",
        "random_range_ratio",
        "num_prompts_mult",
        "num_warmup_mult",
        "custom_tokenizer",
        "use_chat_template",
        "dataset_name",
        "dataset_path",
        "reuse_http_connections",
        "slow_down_sleep_time",
        "slow_down_wait_time",
    }
)
SRTCTL_TOKENIZERS = "sa_bench_tokenizers."  # srtctl's adapters live in its sa-bench script directory


class SaBench(BenchmarkType):
    """srtctl's sa-bench: one client run over every concurrency, srt-tui's client shipped into the job."""

    name: ClassVar[str] = "sa-bench"
    reads: ClassVar[frozenset[str]] = COMMON | SA_BENCH

    def command(self, ctx: BenchContext, b: BenchmarkSpec) -> tuple[str, ...]:
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

    def problems(self, b: BenchmarkSpec, engine: Engine, router: Router, disaggregated: bool) -> list[Problem]:
        """The dataset's keys, concurrencies, rate, lengths and slow-down, as srtctl's sa-bench reads them."""
        out: list[Problem] = []
        dataset = b.dataset_name or "random"
        if dataset not in ("random", "custom"):
            out.append(
                Problem(
                    "benchmark.dataset_name",
                    f"sa-bench reads `random` or `custom`, not `{dataset}`",
                    did_you_mean(dataset, ("random", "custom")) or "set benchmark.dataset_name: random",
                )
            )
        if dataset == "custom":
            for key in ("isl", "osl", "random_range_ratio"):
                if getattr(b, key) is not None:
                    out.append(
                        Problem(
                            f"benchmark.{key}",
                            "the custom dataset takes its lengths from the file, so the job would run without it",
                            f"remove benchmark.{key}, or use dataset_name: random",
                        )
                    )
            out += need(
                b,
                ("dataset_path",),
                "a custom dataset needs its JSONL file (a container path)",
                "/datasets/requests.jsonl",
            )
        else:
            out += need(b, ("isl", "osl"), "sa-bench's random dataset needs it", "1024")
            if b.dataset_path is not None:
                out.append(
                    Problem(
                        "benchmark.dataset_path",
                        "only the custom dataset reads a file",
                        "set benchmark.dataset_name: custom, or remove dataset_path",
                    )
                )
        out += concurrencies(b) + req_rate(b)
        out += positive(b, ("isl", "osl", "num_prompts_mult"))
        if b.num_warmup_mult is not None and b.num_warmup_mult < 0:
            out.append(Problem("benchmark.num_warmup_mult", "must not be negative", "set benchmark.num_warmup_mult: 2"))
        if b.random_range_ratio is not None and not 0 <= b.random_range_ratio <= 1:
            out.append(
                Problem(
                    "benchmark.random_range_ratio", "must be between 0 and 1", "set benchmark.random_range_ratio: 0.8"
                )
            )
        if b.custom_tokenizer and b.custom_tokenizer.startswith(SRTCTL_TOKENIZERS):
            out.append(
                Problem(
                    "benchmark.custom_tokenizer",
                    f"`{b.custom_tokenizer}` is one of srtctl's sa-bench adapters, which srt-tui does not ship: "
                    "the client imports it from the benchmark container's PYTHONPATH and stops if it is not there",
                    "put the adapter's package on PYTHONPATH via benchmark.env",
                    severity="warning",
                )
            )
        slow = (b.slow_down_sleep_time, b.slow_down_wait_time)
        if any(v is not None for v in slow):
            if any(v is None or v <= 0 for v in slow):
                out.append(
                    Problem(
                        "benchmark.slow_down_sleep_time",
                        "slow_down needs both slow_down_sleep_time and slow_down_wait_time, positive",
                        "set both, or neither",
                    )
                )
            elif not engine.serves_slow_down or not disaggregated:
                out.append(
                    Problem(
                        "benchmark.slow_down_sleep_time",
                        "slow_down posts SGLang's /slow_down to decode workers; this job has none",
                        "remove slow_down_sleep_time / slow_down_wait_time",
                    )
                )
        return out

    def support_files(self) -> dict[str, str]:
        """The client's source, under the job's logs."""
        return dict(client_files())
