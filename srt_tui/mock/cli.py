"""Command line of the mocker: ``serve`` runs a mock worker, ``bench`` the small load generator and
``exporter`` a mock GPU metrics exporter (DCGM or AMD shape)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from srt_tui.mock.config import DEFAULT_KV_WAIT_S, DEFAULT_MODEL, FLAVORS, ROLES, WorkerConfig
from srt_tui.mock.exporter import add_parser as _add_exporter

SUBCOMMANDS = ("serve", "bench", "exporter")


def _add_serve(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Flags of ``serve``."""
    p = sub.add_parser("serve", help="run a mock SGLang/vLLM worker (default subcommand)")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0)")
    p.add_argument("--port", type=int, required=True, help="port to listen on")
    p.add_argument("--role", choices=ROLES, default="regular", help="disaggregation role (default regular)")
    p.add_argument("--flavor", choices=FLAVORS, default="sglang", help="API flavour to imitate (default sglang)")
    p.add_argument("--name", default="", help="worker name, the first generated token (default ROLE-PORT)")
    p.add_argument("--model", default=DEFAULT_MODEL, help=f"served model name (default {DEFAULT_MODEL})")
    p.add_argument("--bootstrap-port", type=int, default=None, help="P/D bootstrap port this prefill owns")
    p.add_argument("--tp-size", type=int, default=1, help="tensor-parallel size to report (default 1)")
    p.add_argument("--dp-size", type=int, default=1, help="data-parallel size to report (default 1)")
    p.add_argument(
        "--startup-delay",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="pretend model load: the port stays closed this long (default 0)",
    )
    p.add_argument("--latency-ms", type=float, default=0.0, help="base latency per generation request (default 0)")
    p.add_argument(
        "--token-latency-ms",
        type=float,
        default=2.0,
        help="latency per generated token after the first (default 2)",
    )
    p.add_argument(
        "--fail-rate",
        type=float,
        default=0.0,
        help="fraction 0..1 of generation requests answered 500 (default 0)",
    )
    p.add_argument(
        "--exit-after",
        type=float,
        default=None,
        metavar="SECONDS",
        help="exit with code 3 this long after launch (loading included), like a crashed engine",
    )
    p.add_argument(
        "--kv-wait-timeout",
        type=float,
        default=DEFAULT_KV_WAIT_S,
        metavar="SECONDS",
        help="P/D: how long a decode waits for its prefill's KV before answering 500, as SGLang's "
        f"SGLANG_DISAGGREGATION_WAITING_TIMEOUT (default {DEFAULT_KV_WAIT_S:g})",
    )
    p.add_argument(
        "--visible-devices-env",
        default="CUDA_VISIBLE_DEVICES",
        metavar="NAME",
        help="GPU visibility variable the cluster profile uses (default CUDA_VISIBLE_DEVICES)",
    )
    p.add_argument("--log", default=None, metavar="FILE", help="append one JSON line per request to FILE")


def _add_bench(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Flags of ``bench``."""
    p = sub.add_parser("bench", help="send load to a router or worker and report throughput and latency")
    p.add_argument("--url", required=True, help="base URL of a router or worker, e.g. http://127.0.0.1:30000")
    p.add_argument("--model", default=DEFAULT_MODEL, help=f"model name to request (default {DEFAULT_MODEL})")
    p.add_argument("--isl", type=int, default=128, help="prompt length in words (default 128)")
    p.add_argument("--osl", type=int, default=128, help="max tokens to generate (default 128)")
    p.add_argument(
        "--concurrencies",
        default="1",
        help="concurrency levels, 'x'- or comma-separated, e.g. 4x8 (default 1)",
    )
    p.add_argument(
        "--num-prompts-mult", type=int, default=10, help="requests per level = concurrency x this (default 10)"
    )
    p.add_argument(
        "--num-warmup-mult", type=int, default=0, help="uncounted warm-up requests = concurrency x this (default 0)"
    )
    p.add_argument(
        "--endpoint",
        default="/v1/completions",
        choices=("/v1/completions", "/v1/chat/completions", "/generate"),
        help="API to call (default /v1/completions)",
    )
    p.add_argument("--stream", action="store_true", help="stream responses and measure time to first token")
    p.add_argument("--timeout", type=float, default=300.0, help="per-request timeout in seconds (default 300)")
    p.add_argument("--out", default=None, metavar="FILE.json", help="write the results as JSON to this file")
    p.add_argument(
        "--progress-dir",
        default=None,
        metavar="DIR",
        help="keep DIR/benchmark-progress.json current (a job's logs/: status and the Monitor show it)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The ``python -m srt_tui.mock`` parser."""
    parser = argparse.ArgumentParser(
        prog="python -m srt_tui.mock",
        description="Mock SGLang/vLLM worker, its load generator and a mock GPU exporter (serve is the default).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    _add_serve(sub)
    _add_bench(sub)
    _add_exporter(sub)
    return parser


def _worker_config(args: argparse.Namespace) -> WorkerConfig:
    """Turn ``serve`` arguments into a validated WorkerConfig."""
    return WorkerConfig(
        port=args.port,
        host=args.host,
        role=args.role,
        flavor=args.flavor,
        name=args.name,
        model=args.model,
        bootstrap_port=args.bootstrap_port,
        tp_size=args.tp_size,
        dp_size=args.dp_size,
        startup_delay_s=args.startup_delay,
        latency_ms=args.latency_ms,
        token_latency_ms=args.token_latency_ms,
        fail_rate=args.fail_rate,
        exit_after_s=args.exit_after,
        kv_wait_timeout_s=args.kv_wait_timeout,
        visible_devices_env=args.visible_devices_env,
        log_path=args.log,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] not in SUBCOMMANDS and args_list[0] not in ("-h", "--help"):
        args_list.insert(0, "serve")
    parser = build_parser()
    args = parser.parse_args(args_list)
    if args.command == "bench":
        from srt_tui.bench.load import bench_main

        return bench_main(args)
    if args.command == "exporter":
        from srt_tui.mock.exporter import exporter_main

        return exporter_main(args, parser)
    try:
        config = _worker_config(args)
    except ValueError as exc:
        parser.error(str(exc))
    from srt_tui.mock.server import serve

    return serve(config)
