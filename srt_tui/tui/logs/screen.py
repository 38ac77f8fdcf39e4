"""The log viewer, full screen, as k9s's `l`: one of a job's logs (workers, routers, benchmark, the launch
script's output) followed at its tail, searched, wrapped, switched, or handed to `$PAGER`.

The file is read in a thread worker by `LogTail` (new bytes only); the next read is armed only after the
screen took the previous one, so a slow filesystem delays lines but never stacks reads or blocks a key.
Lines are parsed (ANSI colours to styles, every other escape dropped) in the thread too; the view keeps a
ring of ``max_lines``. A log that does not exist yet reads "waiting for <path>" until it appears.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Protocol

from textual import on, work
from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Footer, Input, Static

from srt_tui.core.text.counts import counted
from srt_tui.monitor.files.log_tail import LogTail, TailChunk
from srt_tui.monitor.model import LogRef
from srt_tui.tui.dismiss_once import DismissOnce
from srt_tui.tui.display import shorten_path
from srt_tui.tui.logs.log_view import MAX_LINES, LogLine, LogView, note_line, parse_line
from srt_tui.tui.logs.picker import LogPicker
from srt_tui.tui.workers import ReportsWorkerErrors
from srt_tui.widgets.fit_parts import first_fitting

#: how often the file is looked at (after the previous read was shown)
READ_INTERVAL_S = 0.25
#: `p` without `$PAGER`: `less -R` shows the colours instead of their escape codes
DEFAULT_PAGER = "less -R"


class TailReader(Protocol):
    """What the viewer reads a log with (`LogTail`; tests may hand in fixed content)."""

    def read(self) -> TailChunk:
        """What arrived since the previous call."""
        ...


@dataclass
class LogChunk(Message):
    """One read's lines, parsed (``generation`` tells a read of a log switched away from)."""

    generation: int
    lines: list[LogLine]
    skipped: int  # lines before ``lines`` never parsed: more than the ring holds arrived at once
    partial: LogLine | None
    missing: bool
    error: str
    tail: TailReader
    first: bool  # whether the next read is still the log's first


def _size(n: int) -> str:
    return f"{n / 1e6:,.1f} MB" if n >= 1e6 else f"{n / 1e3:,.1f} kB" if n >= 1e3 else counted(n, "byte")


def parse_chunk(chunk: TailChunk, *, first: bool, max_lines: int) -> tuple[list[LogLine], int]:
    """The chunk's lines as shown, preceded by the viewer's notes on what was skipped or started over, and
    how many lines were left unparsed (a burst larger than the ring: only its end can be kept)."""
    out: list[LogLine] = []
    if chunk.restarted:
        out.append(note_line(f"— the file was {chunk.restarted}: reading it again —"))
    if chunk.skipped_bytes:
        if first or chunk.restarted:
            out.append(note_line(f"— the first {_size(chunk.skipped_bytes)} not loaded (p opens the whole file) —"))
        else:
            out.append(note_line(f"— {_size(chunk.skipped_bytes)} skipped to keep up with the writer —"))
    skipped = max(0, len(chunk.lines) - max_lines)
    out.extend(parse_line(line) for line in chunk.lines[skipped:])
    return out, skipped


class LogViewerScreen(ReportsWorkerErrors, DismissOnce[None]):
    """``logs`` of one job, opened on ``logs[index]``; `[`/`]` switch between them."""

    CSS_PATH = "logs.tcss"
    _LOG = Binding.Group("Log", compact=True)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("q", "back", "Back", show=False),
        # the keys typed right after it go to the search (the app's key queue hands them out once it has the focus);
        # in the search itself `/` is text (a path, a URL): the input takes it before any binding
        Binding("slash", "search", "Search"),
        # n/N are named by the status line after a search (and in `?` help): the footer keeps ? at 80 columns
        Binding("n", "find(False)", "Next match", show=False),
        Binding("N", "find(True)", "Previous match", show=False),
        Binding("G", "end", "Follow"),
        Binding("g", "top", "Top", show=False),
        Binding("w", "wrap", "Wrap"),
        Binding("left_square_bracket", "switch(-1)", "Previous log", key_display="[", group=_LOG),
        Binding("right_square_bracket", "switch(1)", "Next log", key_display="]", group=_LOG),
        Binding("o", "pick", "Open log…", show=False),
        Binding("c", "colours", "Colours", show=False),
        Binding("p", "pager", "Pager"),
    ]

    def __init__(
        self,
        logs: Sequence[LogRef],
        index: int = 0,
        *,
        max_lines: int = MAX_LINES,
        interval: float = READ_INTERVAL_S,
        reader: Callable[[Path], TailReader] = LogTail,
        ended: bool = False,
    ) -> None:
        super().__init__(id="log-viewer")
        #: the job has ended: its logs are whole, nothing more will come to follow
        self.ended = ended
        if not logs:
            raise ValueError("the log viewer needs at least one log")
        self.logs = list(logs)
        self.index = index % len(self.logs)
        self.max_lines = max_lines
        self.interval = interval
        self._reader = reader
        self._generation = 0
        self._timer: Timer | None = None
        self.status = ""  # what the last search or read said
        self._status_short: list[str] = []  # shorter wordings of it, for a narrow terminal
        self.search_query = ""  # the last search (n/N repeat it)
        self.waiting = False  # the file does not exist yet

    @property
    def ref(self) -> LogRef:
        """The log shown."""
        return self.logs[self.index]

    def compose(self) -> ComposeResult:
        yield Static("", id="log-title")
        yield LogView(self.max_lines, id="log-view")
        yield Static("", id="log-status")
        yield Input(
            placeholder="search (smart case) · Enter finds · Esc closes",
            id="log-search",
            classes="hidden",
            select_on_focus=False,  # what is typed right after `/` is kept, not selected away
        )
        yield Footer()

    def on_mount(self) -> None:
        view = self.query_one(LogView)
        for shown in ("follow", "wrap", "colours"):  # the title says each of them: it follows them
            self.watch(view, shown, self._redraw_title, init=False)
        view.focus()
        self._open()

    def on_unmount(self) -> None:
        self._generation += 1  # a read in flight is dropped
        if self._timer is not None:
            self._timer.stop()

    # -- reading ------------------------------------------------------------------------------------

    def _open(self) -> None:
        """Start reading the current log from its tail."""
        self._generation += 1
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._say("")
        self.waiting = False
        view = self.query_one(LogView)
        view.clear()
        view.set_query(self.search_query)
        self._redraw_title()
        self._read(self._generation, self._reader(Path(self.ref.path)), True)

    @work(thread=True, group="log-viewer", name="log-viewer", exit_on_error=False)
    def _read(self, generation: int, tail: TailReader, first: bool) -> None:
        try:
            chunk = tail.read()
        except Exception as exc:  # a reader never raises into the app: the status line says it
            chunk = TailChunk(error=f"{type(exc).__name__}: {exc}")
        lines, skipped = parse_chunk(chunk, first=first, max_lines=self.max_lines)
        partial = parse_line(chunk.partial) if chunk.partial else None
        # until the file was read once, its first lines are still "the first"
        again = first and (chunk.missing or bool(chunk.error))
        self.post_message(LogChunk(generation, lines, skipped, partial, chunk.missing, chunk.error, tail, again))

    @on(LogChunk)
    def _chunk(self, message: LogChunk) -> None:
        if message.generation != self._generation:  # a log switched away from, or the screen closed
            return
        self._timer = self.set_timer(self.interval, lambda: self._read(message.generation, message.tail, message.first))
        view = self.query_one(LogView)
        path = self.ref.path
        self.waiting = message.missing
        if message.missing:
            where = shorten_path(
                path, view.scrollable_content_region.width - len("waiting for  (it does not exist yet)")
            )
            view.set_placeholder(f"waiting for {where} (it does not exist yet)")
        elif message.error:
            short = shorten_path(path, max(20, self._text_width() - len(message.error) - len("cannot read : ")))
            self._say(f"cannot read {path}: {message.error}", f"cannot read {short}: {message.error}")
        if message.lines or message.partial is not None:
            view.append(message.lines, message.partial, skipped=message.skipped)
        self._redraw_title()

    # -- drawing ------------------------------------------------------------------------------------

    def _text_width(self) -> int:
        """The cells the title and status lines hold (the terminal's width, which the screen fills, less their
        padding; known before the first layout too)."""
        return max(0, self.app.size.width - 2)

    def _say(self, status: str, *shorter: str) -> None:
        """What the status line says, and shorter wordings of it for a narrow terminal (the longest that fits)."""
        self.status, self._status_short = status, list(shorter)

    def on_resize(self) -> None:
        """Another width: the title and status lines are fitted to it."""
        self._redraw_title()

    def _redraw_title(self) -> None:
        """The title (log, state, counts, modes) and the status line, each in the width there is: shorter wordings
        before a cut, so the modes at the title's end and a path's file name are never what is lost."""
        view = self.query_one(LogView)
        if self.ended:  # nothing more will come: "following" would promise lines
            state = (
                "job ended: no log yet" if self.waiting else "job ended" if view.follow else "job ended · G: the end"
            )
            short_state = "job ended" if state.startswith("job ended ·") else state
        else:
            state = "waiting" if self.waiting else "following" if view.follow else "paused (G follows)"
            short_state = "paused" if state.startswith("paused") else state
        read = counted(view.total, "line")
        counts = f"{read} read" + (f", {view.dropped:,} dropped" if view.dropped else "")
        short_counts = f"{view.dropped:,} dropped" if view.dropped else read
        modes = ("" if not view.wrap else " · wrap") + ("" if view.colours else " · no colours")
        head = f"{self.ref.name} ({self.index + 1}/{len(self.logs)})"
        width = self._text_width()
        title = first_fitting(
            [
                f"{head} · {shown_state} · {shown_counts}{modes}"
                for shown_state, shown_counts in ((state, counts), (short_state, counts), (short_state, short_counts))
            ],
            width,
        )
        self.query_one("#log-title", Static).update(title)
        status = first_fitting([self.status, *self._status_short], width) if self.status else ""
        self.query_one("#log-status", Static).update(status or shorten_path(self.ref.path, width))

    # -- keys ---------------------------------------------------------------------------------------

    def action_back(self) -> None:
        search = self.query_one("#log-search", Input)
        if not search.has_class("hidden"):
            search.add_class("hidden")
            self.query_one(LogView).focus()
            return
        self.dismiss(None)

    def action_search(self) -> None:
        search = self.query_one("#log-search", Input)
        search.value = ""
        search.remove_class("hidden")
        # focused now, not after a refresh (`focus()`): keys typed right after `/` (a fast typist, a
        # paste) go to the search, never to the viewer's keys (`p` would open the pager)
        self.set_focus(search)

    @on(Input.Submitted, "#log-search")
    def _search(self, event: Input.Submitted) -> None:
        view = self.query_one(LogView)
        query = self.search_query = event.value.strip()
        event.input.add_class("hidden")
        view.focus()
        view.set_query(query)
        if not query:
            self._say("")
            self._redraw_title()
            return
        top = view.top_line()
        self._go(view.find(top if top is not None else 0), query)

    def action_find(self, backwards: bool) -> None:
        view = self.query_one(LogView)
        query = self.search_query
        if not query:
            self._say("no search yet: / searches")
            self._redraw_title()
            return
        current = view.current_match
        start = (view.top_line() or 0) if current is None else current + (-1 if backwards else 1)
        self._go(view.find(start, backwards=backwards), query)

    def _go(self, found: tuple[int, bool] | None, query: str) -> None:
        view = self.query_one(LogView)
        if found is None:
            self._say(f"no match for {query!r}")
        else:
            number, wrapped = found
            view.select_match(number)
            rank, count = view.match_rank(number)
            match = f"{query!r}: match {rank:,} of {counted(count, 'line')}"
            wrapped_note = " (search wrapped around)" if wrapped else ""
            # narrower: without the keys' hint (`?` lists them), then `(wrapped)`
            hint = " · n/N next/previous"
            self._say(
                f"{match}{wrapped_note}{hint}", f"{match}{wrapped_note}", match + (" (wrapped)" if wrapped else "")
            )
        self._redraw_title()

    def action_wrap(self) -> None:
        view = self.query_one(LogView)
        view.wrap = not view.wrap

    def action_top(self) -> None:
        self.query_one(LogView).go_top()

    def action_end(self) -> None:
        self.query_one(LogView).go_end()

    def action_switch(self, step: int) -> None:
        if len(self.logs) > 1:
            self.index = (self.index + step) % len(self.logs)
            self._open()

    def action_pick(self) -> None:
        """Every log of the job in a list: Enter opens the chosen one."""
        self.app.push_screen(LogPicker(self.logs, self.index), callback=self._picked)

    def _picked(self, index: int | None) -> None:
        if index is not None and index != self.index:
            self.index = index
            self._open()

    def action_colours(self) -> None:
        """The log's colours rendered, or plain text (a log whose colours fight the theme)."""
        view = self.query_one(LogView)
        view.colours = not view.colours

    def action_pager(self) -> None:
        """The whole file in `$PAGER` (default `less -R`); the app is suspended until the pager quits."""
        path = Path(self.ref.path)
        if not path.is_file():
            self.notify(f"{path} does not exist yet.", severity="warning")
            return
        try:
            command = shlex.split(os.environ.get("PAGER") or DEFAULT_PAGER)
        except ValueError as exc:
            self.notify(f"$PAGER cannot be parsed ({exc}): fix it, or unset it for {DEFAULT_PAGER}.", severity="error")
            return
        if not command:
            command = shlex.split(DEFAULT_PAGER)
        if command == shlex.split(DEFAULT_PAGER) and self.query_one(LogView).follow:
            command.append("+G")  # at the end, where the viewer was (it opened at the first line)
        try:
            with self.app.suspend():
                subprocess.run([*command, str(path)], check=False)
        except SuspendNotSupported:
            self.notify("This terminal cannot hand the screen to a pager.", severity="warning")
        except OSError as exc:
            self.notify(
                f"Cannot run the pager {command[0]!r}: {exc.strerror or exc}; set $PAGER to one that exists.",
                severity="error",
            )
