"""Log content for the log viewer's tests and the README screenshot (fixed: no host path, no clock).

`REAL_ROUTER_LINES` are lines of a real `router.log` (data/smg-router.log): sglang-router (smg) of
the PyPI wheel in front of srt-tui's mocker engine, job 34 of `recipes/mocker/mocker-1p2d.yaml` on the
local test Slurm, 2026-12-01. Their colours are Rust tracing's: dim timestamps and targets, green INFO,
yellow WARN, bold spans, italic field names. `ROUTER_LINES` add what a log may also hold: an OSC
title, an erase-line, a carriage return, a tab, a red ERROR. `LAUNCH_LINES` are a real `launch.log`
(data/launch.log) of the local launcher.
"""

from __future__ import annotations

from pathlib import Path

from srt_tui.monitor.files.log_tail import TailChunk

#: as written: ANSI codes and all (read as text, so the tests see what the viewer decodes)
REAL_ROUTER_LINES = (Path(__file__).parent / "data" / "smg-router.log").read_text(encoding="utf-8").splitlines()

ROUTER_LINES = [
    "\x1b[2m2026-12-01T10:00:00.101Z\x1b[0m \x1b[32m INFO\x1b[0m \x1b[2msglang_router_rs::server\x1b[0m"
    "\x1b[2m:\x1b[0m Starting router on 0.0.0.0:30000 | mode: PrefillDecode | policy: CacheAware",
    "\x1b[2m2026-12-01T10:00:00.215Z\x1b[0m \x1b[32m INFO\x1b[0m \x1b[2msglang_router_rs::core::worker\x1b[0m"
    "\x1b[2m:\x1b[0m Adding prefill worker http://10.0.0.1:30001 (bootstrap 8998)",
    "\x1b[2m2026-12-01T10:00:00.216Z\x1b[0m \x1b[32m INFO\x1b[0m \x1b[2msglang_router_rs::core::worker\x1b[0m"
    "\x1b[2m:\x1b[0m Adding decode worker http://10.0.0.2:30002",
    "\x1b[2m2026-12-01T10:00:03.500Z\x1b[0m \x1b[33m WARN\x1b[0m \x1b[2msglang_router_rs::tokenizer\x1b[0m"
    "\x1b[2m:\x1b[0m tokenizer fetch failed, routing without it\x1b]0;router\x07\x1b[2K",
    "\x1b[2m2026-12-01T10:00:04.000Z\x1b[0m \x1b[31mERROR\x1b[0m \x1b[2msglang_router_rs::routers::http\x1b[0m"
    "\x1b[2m:\x1b[0m decode worker http://10.0.0.2:30002 health check failed: connection refused\r",
    "\x1b[2m2026-12-01T10:00:05.000Z\x1b[0m \x1b[32m INFO\x1b[0m \x1b[2msglang_router_rs::server\x1b[0m"
    "\x1b[2m:\x1b[0m \x1b[1mGET\x1b[0m /health 200 OK\tlatency=\x1b[36m0.4ms\x1b[0m",
]


#: a `launch.log` as the local launcher wrote it (job local-1 of mocker-1p2d, 2026-12-07): 14 lines, eight of them
#: wider than 80 columns, so at 80x24 it has no vertical scrollbar until it is wrapped
LAUNCH_LINES = (Path(__file__).parent / "data" / "launch.log").read_text(encoding="utf-8").splitlines()


class OnceLog:
    """A log reader (the viewer's `reader=`) that hands over what `content` says once, then nothing: a log whose
    lines the test fixes, whatever path it is given."""

    def __init__(self, path: Path) -> None:
        self.done = False

    def content(self) -> TailChunk:
        """What the log holds (none here; each kind of fixed log says its own)."""
        return TailChunk()

    def read(self) -> TailChunk:
        """`content()` on the first call, nothing after."""
        if self.done:
            return TailChunk()
        self.done = True
        return self.content()


class FixedLog(OnceLog):
    """The same 40 lines once, as if the log's first 2.3 MB were not loaded."""

    def content(self) -> TailChunk:
        sample = REAL_ROUTER_LINES + ROUTER_LINES[4:5]
        lines = [sample[n % len(sample)] for n in range(40)]
        return TailChunk(lines=lines, skipped_bytes=2_345_678)
