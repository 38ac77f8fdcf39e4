"""`srt-tui bench JOB`: a smoke test through the job's public URL (the job view's `b` runs the same one)."""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
from typing import TYPE_CHECKING, Any, TextIO

from srt_tui.cli.args import add_transport_argument, path_arg
from srt_tui.core.errors import Problem, SrtError

if TYPE_CHECKING:
    from srt_tui.monitor.probes.smoke import SmokeProgress


def _positive(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, not {text!r}")
    return int(text)


class _LiveLine:
    """The running smoke test's line on a terminal's stderr, rewritten in place (`12/20 done, 0 failed · …`), and
    cleared before the result is printed: the TUI's live line, so a request held by a hung worker shows its wait
    instead of a minute of silence. Not used when stderr is not a terminal (nothing extra in a pipe or a log)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.shown = False

    def show(self, progress: SmokeProgress) -> None:
        width = shutil.get_terminal_size().columns - 1  # a line that wraps cannot be rewritten in place
        line = f"  {progress.line()}"
        self.stream.write(f"\r\x1b[K{line[:width]}")
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _cmd_bench(args: argparse.Namespace) -> int:
    from srt_tui.cli.jobs import _job_refs, _snapshots
    from srt_tui.monitor.probes.smoke import NotServing, public_url, router_note, run_smoke, waits_note

    jobs = _job_refs([args.job], args.output)
    if len(jobs) != 1:
        hint = "bench each: " + "; ".join(f"srt-tui bench {j}" for j in jobs)
        raise SrtError([Problem(field="JOB", message=f"`{args.job}` is a group of {len(jobs)} jobs", hint=hint)])
    snaps, _down = _snapshots(jobs, args.transport)
    try:
        url = public_url(snaps[0])
        if not args.json:
            print(f"{snaps[0].job_id}: {args.requests} requests, {args.concurrency} at a time, to {url}", flush=True)
        live = _LiveLine(sys.stderr) if sys.stderr.isatty() else None
        try:
            result = asyncio.run(run_smoke(url, args.requests, args.concurrency, live.show if live else None))
        finally:
            if live is not None:
                live.clear()
    except NotServing as exc:
        if args.json:
            print(json.dumps({"status": "error", "error": exc.message, "fix": exc.fix}))
        print(f"srt-tui: error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"status": "ok" if result.failed == 0 else "failed", "job_id": snaps[0].job_id}
                         | result.to_json() | {"router_note": router_note(snaps[0])}, indent=2))  # fmt: skip
    else:
        print(f"{snaps[0].job_id}: {result.line()}")
        if note := router_note(snaps[0]):  # the engines' TTFT (the Serving panel) is this much less
            print(f"  {note}")
        for error, count in result.errors:
            print(f"  {count}× {error}")
        if note := waits_note(result):  # the router's own counters show no error for them
            print(f"  {note}")
    return 0 if result.failed == 0 else 1


def add_bench_command(sub: Any) -> None:
    """Register `bench` on the CLI parser."""
    b = sub.add_parser(
        "bench",
        help="smoke-test a serving job: N requests through its public URL, ok/failed and latency p50/p99",
        description="Send N streamed completions (a short prompt, 16 tokens back) through the job's public URL, "
        "CONCURRENCY at a time, and print how many were answered, latency and time-to-first-token p50/p99 and "
        "the output token rate. Exit 0 when every request was answered, 1 when some failed or the job is not "
        "serving (the message says why and what to do).",
    )
    b.add_argument("job", metavar="JOB", help="job id or job directory")
    b.add_argument("-n", "--requests", type=_positive, default=20, help="how many requests (default 20)")
    b.add_argument("--concurrency", type=_positive, default=4, help="requests in flight at once (default 4)")
    b.add_argument("--json", action="store_true", help="one JSON document: status, counts, latencies (ms), errors")
    b.add_argument("-o", "--output", type=path_arg, help="output directory holding job directories")
    add_transport_argument(b)
    b.set_defaults(func=_cmd_bench)
