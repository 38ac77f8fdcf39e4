"""Drive the log viewer while a thread appends to its file at a fixed rate: what the follow test asserts on
and what `benchmarks/log_follow.py` prints (how far the bottom row trails the writer, on this machine now)."""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.app import App

from srt_tui.monitor.model import LogRef
from srt_tui.tui.logs.log_view import LogView
from srt_tui.tui.logs.screen import LogViewerScreen


class ViewerApp(App[None]):
    """Only the log viewer, on ``logs``."""

    def __init__(self, logs: list[LogRef], index: int = 0, **kwargs: Any) -> None:
        super().__init__()
        self.viewer = LogViewerScreen(logs, index, **kwargs)

    def on_mount(self) -> None:
        self.push_screen(self.viewer)


def row(view: LogView, y: int) -> str:
    """The text of the view's row `y` as painted."""
    return "".join(seg.text for seg in view.render_line(y))


def bottom(view: LogView) -> str:
    """The text of the view's last visible row."""
    return row(view, view.scrollable_content_region.height - 1)


def rss() -> int:
    """This process's resident memory, bytes."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


#: how long the viewer may take to show the first lines, then to move its bottom row on, before `follow` gives up
#: (no timing asserted: the end of a wait that would have none)
FIRST_READ_GUARD_S = 60.0
FOLLOW_GUARD_S = 120.0


@dataclass
class Follow:
    """What was written, and per half-second sample: the line number on the bottom row, how far it trailed
    the writer, the lines the view stored and the process's memory."""

    written: int = 0
    shown: list[int] = field(default_factory=list)
    lags: list[int] = field(default_factory=list)
    stored: list[int] = field(default_factory=list)
    rss: list[int] = field(default_factory=list)


async def follow(app: ViewerApp, pilot: Any, path: Path, rate: int, duration: float, result: Follow) -> None:
    """Append `rate` long, coloured lines a second to `path` for `duration` s (longer, until the bottom row was seen
    moving on) while sampling the view every 0.5 s from its first read on."""
    view = app.viewer.query_one(LogView)
    stop = threading.Event()

    def writer() -> None:
        start = time.monotonic()
        with open(path, "a", encoding="utf-8") as fh:
            while not stop.is_set():
                due = int((time.monotonic() - start) * rate)
                # long lines: the horizontal scrollbar appears and the last row must stay in view above it
                fh.write(
                    "".join(f"line {n:08d} \x1b[32m INFO\x1b[0m {'x' * 100}\n" for n in range(result.written, due))
                )
                fh.flush()
                result.written = due
                time.sleep(0.01)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        start = time.monotonic()
        # the samples start once the first read shows: a fixed 2 s was not always enough on a loaded machine
        # (the bottom row still empty, nothing read yet); the guard only ends a wait that would have no end
        while not bottom(view).startswith("line "):
            assert time.monotonic() - start < FIRST_READ_GUARD_S, f"no line shown in {FIRST_READ_GUARD_S:g} s"
            await pilot.pause(0.05)
        # sampled for `duration` in all, and on until the bottom row has moved on (a loaded machine read nothing
        # new for 2 s at times): the test asserts it follows, not how fast
        while time.monotonic() - start < duration or len(set(result.shown)) < 2:
            assert time.monotonic() - start < FOLLOW_GUARD_S, f"the bottom row stayed at {result.shown[-1:]}"
            await pilot.pause(0.5)
            shown = bottom(view).split()
            assert shown and shown[0] == "line", f"bottom row {shown} ({view.line_count} lines held, {view.total} read)"
            result.shown.append(int(shown[1]))
            result.lags.append(result.written - int(shown[1]))
            result.stored.append(view.line_count)
            result.rss.append(rss())
    finally:
        stop.set()
        thread.join()
