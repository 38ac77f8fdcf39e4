"""The Monitor in a process of its own: `python -m srt_tui.monitor.feeds.child CONFIG` answers refreshes on its
stdin/stdout for `process.ChildFeed`.

A frame is an 8-byte big-endian length and a pickle. A request is the jobs mapping (id -> directory), or
SAME_JOBS when it has not changed (the Monitor's caches then see the same Path objects); the answer is
("ok", [(job_id, snapshot or None)]) where None means "the same snapshot as last time" (an ended job's frozen
snapshot crosses once), or ("error", "Type: message"). Pickle is safe here: both ends are this program, over the
pipes of a child the TUI started. CONFIG is JSON: {"transport": str|null, "options": {name: float},
"factory": "module:callable"|null (a Monitor factory, for benchmarks that fake Slurm)}.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import pickle
import signal
import struct
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from srt_tui.monitor.feeds.live import LiveFeed
from srt_tui.monitor.model import JobSnapshot

HEADER = struct.Struct(">Q")
#: the refreshes yield the CPU to the TUI (and to anything interactive) when both want it
NICENESS = 10
#: the request for the jobs of the previous request
SAME_JOBS = "same"
#: a frame larger than this is a broken stream, not an answer (a 1,024-endpoint refresh is ~0.5 MB)
MAX_FRAME = 256 * 1024 * 1024


def encode(obj: object) -> bytes:
    """One frame."""
    body = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(body)) + body


async def read_frame(reader: asyncio.StreamReader) -> Any:
    """The next frame's object; None at the end of the stream (the other side is gone)."""
    try:
        (size,) = HEADER.unpack(await reader.readexactly(HEADER.size))
        if size > MAX_FRAME:
            raise ValueError(f"a frame of {size} bytes: the stream is broken")
        return pickle.loads(await reader.readexactly(size))
    except asyncio.IncompleteReadError:
        return None


async def serve(reader: asyncio.StreamReader, out: BinaryIO, feed: LiveFeed) -> None:
    """Answer each request until the stream ends; a failed refresh is answered, never fatal."""
    last: dict[str, JobSnapshot] = {}
    jobs: dict[str, Path] = {}
    try:
        while (request := await read_frame(reader)) is not None:
            if request != SAME_JOBS:
                jobs = request
            try:
                snaps = await feed.refresh(jobs)
            except Exception as exc:  # the feed failed as a whole: the TUI shows it and asks again
                out.write(encode(("error", f"{type(exc).__name__}: {exc}")))
            else:
                out.write(encode(("ok", [(s.job_id, None if last.get(s.job_id) is s else s) for s in snaps])))
                last = {s.job_id: s for s in snaps}
            out.flush()
    finally:
        await feed.aclose()


def feed_from(config: dict[str, Any]) -> LiveFeed:
    """The LiveFeed CONFIG describes."""
    factory: Callable[[], Any] | None = None
    if spec := config.get("factory"):
        module, _, name = str(spec).partition(":")
        factory = getattr(importlib.import_module(module), name)
    options = {str(k): float(v) for k, v in (config.get("options") or {}).items()}
    return LiveFeed(config.get("transport"), monitor_factory=factory, **options)


async def run(config: dict[str, Any], out: BinaryIO) -> None:
    reader = asyncio.StreamReader(limit=2**20)
    loop = asyncio.get_running_loop()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
    await serve(reader, out, feed_from(config))


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the TUI ends it by closing its stdin
    os.nice(NICENESS)  # background work: on a busy login node the operator's keys go first
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything printed goes to stderr, never into the frames
    asyncio.run(run(json.loads(argv[1]) if len(argv) > 1 else {}, out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
