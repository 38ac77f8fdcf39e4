"""A pane that follows one log file (`tail -f`): the last lines first, then whatever is appended.

Reads happen in a thread worker (a log on a stalled shared filesystem never blocks the UI), re-armed
only after the previous read finished. One read takes at most ``MAX_READ_BYTES`` (a log growing faster
than that is skipped ahead to its tail, said in the title), so memory stays bounded under any load.
ANSI colour codes and other control bytes are stripped: nothing a process prints reaches the terminal raw.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Log, Static

INITIAL_BYTES = 64 * 1024
MAX_LINES = 2000
MAX_READ_BYTES = 512 * 1024
FOLLOW_INTERVAL_S = 0.5
#: ANSI escape sequences (CSI such as colours, OSC such as titles, charset selections, two-byte escapes)
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[ -/]+[0-~]|[@-Z\\-_])")
#: control bytes left once the escapes are gone (tab is expanded, not dropped)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def clean_line(line: str) -> str:
    """``line`` as it reads on a terminal: escape sequences and control bytes removed, tabs expanded."""
    return _CONTROL.sub("", _ANSI.sub("", line)).expandtabs()


@dataclass
class _Chunk(Message):
    path: Path
    lines: list[str]
    offset: int
    reset: bool
    note: str


class LogPane(Vertical):
    """`follow(path, title)` starts following; `stop()` stops."""

    DEFAULT_CSS = """
    LogPane { height: 1fr; border-top: solid $foreground 30%; }
    LogPane > #log-title { height: 1; color: $text-primary; text-style: bold; padding: 0 1; }
    LogPane > Log { height: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(id=id)
        self.path: Path | None = None
        self.title = ""
        self._offset = 0
        self._partial = ""
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="log-title")
        yield Log(max_lines=MAX_LINES, auto_scroll=True, id="log-lines")

    def follow(self, path: Path, title: str) -> None:
        """Show the end of ``path`` and keep following it."""
        if path == self.path:
            return
        self.path, self.title = path, title
        self._offset, self._partial = -1, ""
        self.query_one(Log).clear()
        self.query_one("#log-title", Static).update(f"{title} — {path}")
        self._read()

    def stop(self) -> None:
        """Stop following."""
        self.path = None
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    @work(thread=True, exclusive=True, group="log-follow", name="log-follow", exit_on_error=False)
    def _read(self) -> None:
        path, offset = self.path, self._offset
        if path is None:
            return
        reset, note, lines = False, "", []
        try:
            size = os.stat(path).st_size
            if offset < 0 or size < offset:
                reset, offset = True, max(0, size - INITIAL_BYTES)
            elif size - offset > MAX_READ_BYTES:  # grew faster than it can be shown: jump to the tail
                note = f"skipped {size - offset - INITIAL_BYTES:,} bytes to keep up"
                reset, offset = True, size - INITIAL_BYTES
            with open(path, "rb") as fh:
                fh.seek(offset)
                data = fh.read(max(0, size - offset))
            offset += len(data)
            text = data.decode("utf-8", errors="replace")
            if reset and offset > INITIAL_BYTES and "\n" in text:
                text = text.split("\n", 1)[1]  # drop the cut first line
            lines = [clean_line(line) for line in text.split("\n")]
        except OSError as exc:
            note = f"cannot read: {exc.strerror or exc}"
            offset = max(offset, 0) if offset >= 0 else -1
        self.post_message(_Chunk(path, lines, offset, reset, note))

    def on__chunk(self, message: _Chunk) -> None:
        message.stop()
        if message.path != self.path:
            return
        log = self.query_one(Log)
        # follow unless the reader scrolled up; a tolerance of one row, as a horizontal scrollbar that
        # appears once a long line arrives moves the end by one (Log's own check then stops following)
        following = log.max_scroll_y - log.scroll_y <= 1 or message.reset
        if message.reset:
            log.clear()
            self._partial = ""
        if message.lines:
            lines = message.lines
            lines[0] = self._partial + lines[0]
            self._partial = lines.pop()
            if lines:
                log.write_lines(lines, scroll_end=False)
        if following:
            log.scroll_end(animate=False, immediate=True, x_axis=False)
        title = f"{self.title} — {message.path}"
        self.query_one("#log-title", Static).update(f"{title} ({message.note})" if message.note else title)
        self._offset = message.offset
        self._timer = self.set_timer(FOLLOW_INTERVAL_S, self._read)
