"""A scrolling view of log lines that a tail feeds: a ring of at most ``max_lines`` lines, colours from the
log's ANSI codes (no escape byte ever reaches the screen), follow-the-tail, wrap, and search highlights.

Lines are numbered globally (the first line ever appended is 0), so a line keeps its number while older
lines are dropped from the ring; the first row then says how many were dropped. Every line maps to one
row, or to several when wrapped; ``_row_start`` holds the first row of each retained line.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.events import Resize
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from srt_tui.core.text.counts import counted
from srt_tui.monitor.files.log_tail import keep_colours
from srt_tui.widgets.fit_parts import first_fitting

#: the ring: lines kept in memory per open log (older ones are dropped, and the first row says so)
MAX_LINES = 10_000
#: and at most this many characters in all (10,000 lines cut at 16 KiB each would be 160 M)
MAX_CHARS = 16_000_000
#: full-line renders kept between frames (a frame needs at most a screenful)
_CACHE_LINES = 512


@dataclass(frozen=True, slots=True)
class LogLine:
    """One line as shown: styled text, its plain text (what search reads) and its width in cells."""

    text: Text
    plain: str
    width: int
    note: bool = False  # the viewer's own words (a skip, a truncation), not the log's


def parse_line(raw: str) -> LogLine:
    """A log line with its colour codes rendered; any other escape or control byte removed, tabs expanded."""
    text = Text.from_ansi(keep_colours(raw), no_wrap=True, end="")
    text.expand_tabs()
    return LogLine(text, text.plain, text.cell_len)


def note_line(words: str) -> LogLine:
    """A line of the viewer's own (shown in the note style)."""
    text = Text(words, no_wrap=True, end="")
    return LogLine(text, words, text.cell_len, note=True)


def smart_case_find(plain: str, query: str) -> list[tuple[int, int]]:
    """Where ``query`` occurs in ``plain``: case-insensitive unless the query has an upper-case letter."""
    if not query:
        return []
    hay = plain if any(c.isupper() for c in query) else plain.lower()
    needle = query if any(c.isupper() for c in query) else query.lower()
    out, at = [], hay.find(needle)
    while at >= 0:
        out.append((at, at + len(needle)))
        at = hay.find(needle, at + len(needle))
    return out


class LogView(ScrollView, can_focus=True):
    """`append()` adds lines (and drops the oldest past ``max_lines``); `follow` keeps the end in view.

    Following stops when the reader scrolls away from the end and resumes when they scroll back to it.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"log-view--match", "log-view--current", "log-view--note"}
    DEFAULT_CSS = """
    LogView { height: 1fr; background: $surface; }
    LogView > .log-view--match { background: $warning 40%; }
    LogView > .log-view--current { background: $warning; color: $background; text-style: bold; }
    LogView > .log-view--note { color: $text-muted; text-style: italic; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "scroll_down", "Down", show=False),
        Binding("k", "scroll_up", "Up", show=False),
        Binding("home", "go_top", "Top", show=False),
        Binding("end", "go_end", "End·follow", show=False),
        # half a page, as in the job view, the worker detail and Help (and less, vim): the operator pass tried them
        Binding("ctrl+d", "half_page(1)", "Scroll down", show=False, tooltip="Scroll the log half a page"),
        Binding("ctrl+u", "half_page(-1)", "Scroll up", show=False, tooltip="Scroll the log back"),
    ]

    follow: reactive[bool] = reactive(True)
    wrap: reactive[bool] = reactive(False)
    colours: reactive[bool] = reactive(True)

    def __init__(
        self,
        max_lines: int = MAX_LINES,
        *,
        max_chars: int = MAX_CHARS,
        id: str | None = None,  # noqa: A002 (Textual's `id`)
    ) -> None:
        super().__init__(id=id)
        self.max_lines = max_lines
        self.max_chars = max_chars
        self.placeholder = ""  # shown while there is no line (e.g. "waiting for <path>")
        self.total = 0  # complete lines appended since the last clear (retained or dropped)
        self._lines: list[LogLine] = []
        self._row_start: list[int] = []  # first (global) row of each retained line
        self._rows_end = 0  # one past the last row
        self._first = 0  # global number of self._lines[0]: the lines dropped from the ring
        self._notes_dropped = 0  # of those, the viewer's own notes
        self._skipped = 0  # lines the reader skipped before they reached the ring (a burst larger than it)
        self._provisional = False  # the last line is a partial one, replaced when it is complete
        self._max_width = 0
        self._chars = 0  # characters retained (the second bound of the ring)
        self._wrap_width = 0
        self._query = ""
        self._current: int | None = None  # global number of the current search match
        self._cache: dict[int, Strip] = {}
        self._auto = False  # a scroll made by the view itself, not the reader

    # -- content ------------------------------------------------------------------------------------

    @property
    def dropped(self) -> int:
        """Log lines not shown any more: dropped from the ring, or skipped before they reached it."""
        return self._first - self._notes_dropped + self._skipped

    @property
    def line_count(self) -> int:
        """Lines retained (never more than ``max_lines``)."""
        return len(self._lines)

    def lines(self) -> list[str]:
        """The retained lines' plain text, oldest first (the partial last line included)."""
        return [line.plain for line in self._lines]

    def clear(self, placeholder: str = "") -> None:
        """Forget every line (another log, or the file started over)."""
        self._lines.clear()
        self._row_start.clear()
        self._rows_end = self._first = self.total = self._max_width = self._notes_dropped = self._skipped = 0
        self._chars = 0
        self._provisional = False
        self._current = None
        self._cache.clear()
        self.placeholder = placeholder
        self.follow = True
        self._update_size()
        self.refresh()

    def set_placeholder(self, words: str) -> None:
        """What the view says while it has no line (e.g. "waiting for <path>")."""
        if words != self.placeholder:
            self.placeholder = words
            self._update_size()
            self.refresh()

    def append(self, lines: Sequence[LogLine], partial: LogLine | None = None, *, skipped: int = 0) -> None:
        """Add complete ``lines`` and the last, unfinished line (``partial``) that replaces the previous one;
        ``skipped`` lines came before ``lines`` but were never parsed (a burst larger than the ring)."""
        if self._provisional:
            self._pop_last()
        for line in lines:
            self._push(line)
        self.total += sum(1 for line in lines if not line.note) + skipped
        self._skipped += skipped
        self._provisional = partial is not None
        if partial is not None:
            self._push(partial)
        removed_rows = self._trim()
        self._update_size()
        self._auto = True
        try:
            if self.follow:
                self.scroll_end(animate=False, immediate=True, x_axis=False)
            elif removed_rows:  # the rows above went away: keep the same lines in view
                self.scroll_to(y=max(0, self.scroll_y - removed_rows), animate=False)
        finally:
            self._auto = False
        if self.follow:  # a horizontal scrollbar that appeared moved the end: stay at it after the layout
            self.call_after_refresh(self._stick)
        self.refresh()

    def _push(self, line: LogLine) -> None:
        self._lines.append(line)
        self._chars += len(line.plain)
        self._row_start.append(self._rows_end)
        self._rows_end += self._rows_of(line)
        self._max_width = max(self._max_width, line.width)

    def _pop_last(self) -> None:
        self._chars -= len(self._lines.pop().plain)
        self._rows_end = self._row_start.pop()
        self._cache.pop(self._first + len(self._lines), None)

    def _trim(self) -> int:
        excess = max(0, len(self._lines) - self.max_lines)
        chars = self._chars - sum(len(line.plain) for line in self._lines[:excess])
        while chars > self.max_chars and excess < len(self._lines) - 1:  # very long lines: fewer of them
            chars -= len(self._lines[excess].plain)
            excess += 1
        if excess <= 0:
            return 0
        self._chars = chars
        removed = self._row_start[excess] - self._row_start[0]
        self._notes_dropped += sum(1 for line in self._lines[:excess] if line.note)
        del self._lines[:excess]
        del self._row_start[:excess]
        self._first += excess
        if self._current is not None and self._current < self._first:
            self._current = None
        return removed

    def _rows_of(self, line: LogLine) -> int:
        if not self.wrap or self._wrap_width <= 0:
            return 1
        return max(1, -(-line.width // self._wrap_width))

    def _rebuild_rows(self) -> None:
        self._row_start.clear()
        self._rows_end = 0
        for line in self._lines:
            self._row_start.append(self._rows_end)
            self._rows_end += self._rows_of(line)

    @property
    def _note_rows(self) -> int:
        """The first row says how many lines were dropped (or shows the placeholder)."""
        return 1 if self.dropped > 0 or (not self._lines and self.placeholder) else 0

    def _update_size(self) -> None:
        rows = (self._rows_end - (self._row_start[0] if self._row_start else 0)) + self._note_rows
        width = self._wrap_width if self.wrap else self._max_width
        self.virtual_size = Size(width, rows)

    # -- following, wrapping, jumping ---------------------------------------------------------------

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """The reader scrolling away from the end stops following; back at the end, it follows again."""
        super().watch_scroll_y(old_value, new_value)
        if not self._auto:
            self.follow = round(new_value) >= self.max_scroll_y

    def _stick(self) -> None:
        if self.follow and self.scroll_y < self.max_scroll_y:
            self._auto = True
            try:
                self.scroll_end(animate=False, immediate=True, x_axis=False)
            finally:
                self._auto = False

    def go_end(self) -> None:
        """Jump to the last line and follow."""
        self.follow = True
        self._auto = True
        try:
            self.scroll_end(animate=False, immediate=True, x_axis=False)
        finally:
            self._auto = False
        self.call_after_refresh(self._stick)

    def action_half_page(self, direction: int) -> None:
        """ctrl+d / ctrl+u: half a page down or up (up stops following, down to the end follows again)."""
        self.scroll_relative(y=direction * max(1, self.scrollable_content_region.height // 2), animate=False)

    def action_go_top(self) -> None:
        """Home: the first line."""
        self.go_top()

    def action_go_end(self) -> None:
        """End: the last line, following."""
        self.go_end()

    def go_top(self) -> None:
        """Jump to the first retained line (following stops)."""
        self.scroll_to(y=0, animate=False)
        self.follow = False

    def watch_wrap(self) -> None:
        """Rows change: rebuild them, keeping the top line (or the end, when following) in view."""
        top = self._anchor()
        self._rewrap(self.scrollable_content_region.width)
        self._update_size()
        if self.wrap and not self.show_vertical_scrollbar and self.virtual_size.height > self.content_region.height:
            # the wrapped rows will bring the vertical scrollbar: wrap to the width it leaves now, not a frame later
            self._rewrap(self.scrollable_content_region.width - self.styles.scrollbar_size_vertical)
        self._update_size()
        self._cache.clear()
        self._restore(top)
        self.refresh()

    def watch_show_vertical_scrollbar(self) -> None:
        """The scrollbar came (the wrapped rows outgrew the view) or went: the lines wrap to the width left, so no
        character ever sits under it (at 80x24 a short log lost two at each wrap once `w` brought the bar)."""
        self._follow_width()

    def _follow_width(self) -> None:
        width = self.scrollable_content_region.width
        if self.wrap and width > 0 and width != self._wrap_width:
            top = self._anchor()
            self._rewrap(width)
            self._update_size()
            self._restore(top)
            self.refresh()

    def _rewrap(self, width: int) -> None:
        self._wrap_width = max(1, width)
        self._rebuild_rows()

    def watch_colours(self) -> None:
        """Redraw every line with (or without) the log's colours."""
        self._cache.clear()
        self.refresh()

    def on_resize(self, event: Resize) -> None:
        """A new width re-wraps the lines."""
        if self.wrap and self.scrollable_content_region.width != self._wrap_width:
            self._follow_width()
        elif self.follow:
            self.call_after_refresh(self._stick)

    def _anchor(self) -> int | None:
        """The line to keep at the top while the rows change; None at the very top (the note row stays in view)."""
        return None if round(self.scroll_y) == 0 else self.top_line()

    def _restore(self, top: int | None) -> None:
        if self.follow:
            self.call_after_refresh(self.go_end)
            return
        self._auto = True
        try:
            self.scroll_to(y=0 if top is None else self.row_of(top), animate=False)
        finally:
            self._auto = False

    def row_of(self, number: int) -> int:
        """The view row where line ``number`` starts."""
        i = min(max(0, number - self._first), max(0, len(self._lines) - 1))
        if not self._row_start:
            return 0
        return self._row_start[i] - self._row_start[0] + self._note_rows

    def line_at(self, row: int) -> tuple[int, int] | None:
        """(global line number, its sub-row) shown at view row ``row``; None for the note row or past the end."""
        row -= self._note_rows
        if row < 0 or not self._row_start:
            return None
        g = row + self._row_start[0]
        if g >= self._rows_end:
            return None
        i = bisect_right(self._row_start, g) - 1
        return self._first + i, g - self._row_start[i]

    def top_line(self) -> int | None:
        """The global number of the first line in view."""
        at = self.line_at(round(self.scroll_y)) or self.line_at(round(self.scroll_y) + 1)
        return at[0] if at else None

    def jump_to(self, number: int) -> None:
        """Bring line ``number`` into view, a third down the screen (following stops unless it is the end)."""
        height = self.scrollable_content_region.height
        self.scroll_to(y=max(0, self.row_of(number) - height // 3), animate=False)
        self.follow = round(self.scroll_y) >= self.max_scroll_y

    # -- search -------------------------------------------------------------------------------------

    @property
    def current_match(self) -> int | None:
        """The global number of the line of the current match."""
        return self._current

    def set_query(self, query: str) -> None:
        """Highlight ``query`` everywhere (empty: no highlight)."""
        self._query = query
        self._current = None
        self._cache.clear()
        self.refresh()

    def find(self, start: int, *, backwards: bool = False) -> tuple[int, bool] | None:
        """The first line matching the query from line ``start`` on (or back), and whether it wrapped around."""
        n = len(self._lines)
        if not self._query or n == 0:
            return None
        step = -1 if backwards else 1
        # past the last line (the current match was the last line) the search goes on from the first, and back
        i0 = max(0, start - self._first) if step > 0 else min(start - self._first, n - 1)
        for k in range(n):
            i = i0 + step * k
            line = self._lines[i % n]
            if not line.note and smart_case_find(line.plain, self._query):
                return self._first + i % n, not 0 <= i < n
        return None

    def match_rank(self, number: int) -> tuple[int, int]:
        """(which matching line ``number`` is, counted from the oldest retained line; how many lines match)."""
        rank = count = 0
        for i, line in enumerate(self._lines):
            if not line.note and smart_case_find(line.plain, self._query):
                count += 1
                if self._first + i <= number:
                    rank = count
        return rank, count

    def select_match(self, number: int) -> None:
        """Make line ``number`` the current match and bring it into view: its line a third down the screen, and
        its first occurrence on screen (the view scrolls sideways to it, as `less -S` does, and back to column 0
        when it lies within the first screen width)."""
        for old in (self._current, number):
            if old is not None:
                self._cache.pop(old, None)
        self._current = number
        self.jump_to(number)
        spans = smart_case_find(self._lines[number - self._first].plain, self._query) if self._query else []
        if spans:
            plain = self._lines[number - self._first].plain
            self._reveal(number, cell_len(plain[: spans[0][0]]), cell_len(plain[: spans[0][1]]))
        self.refresh()

    def _reveal(self, number: int, start: int, end: int) -> None:
        """Cells ``start``…``end`` of line ``number`` (in view already) on screen too."""
        width, height = self.scrollable_content_region.size
        if self.wrap:  # the row the match is on, when the line goes on below the screen
            row = self.row_of(number) + start // max(1, self._wrap_width)
            if not round(self.scroll_y) <= row < round(self.scroll_y) + height:
                self.scroll_to(y=row - height // 3, animate=False)
                self.follow = round(self.scroll_y) >= self.max_scroll_y
            return
        x = round(self.scroll_x)
        if end <= width:
            x = 0
        elif not (x <= start and end <= x + width):  # a third of the screen before it, all of it if it can be
            x = min(start, max(start - width // 3, end - width))
        self.scroll_to(x=x, animate=False)

    # -- drawing ------------------------------------------------------------------------------------

    def _strip_of(self, number: int) -> Strip:
        cached = self._cache.get(number)
        if cached is not None:
            return cached
        line = self._lines[number - self._first]
        text = line.text if self.colours or line.note else Text(line.plain, end="")
        if line.note:
            text = text.copy()
            text.stylize(self.get_component_rich_style("log-view--note", partial=True))
        elif self._query:
            spans = smart_case_find(line.plain, self._query)
            if spans:
                text = text.copy()
                name = "log-view--current" if number == self._current else "log-view--match"
                style = self.get_component_rich_style(name, partial=True)
                for start, end in spans:
                    text.stylize(style, start, end)
        strip = Strip(text.render(self.app.console), line.width)
        if len(self._cache) >= _CACHE_LINES:
            self._cache.clear()
        if not self._provisional or number != self._first + len(self._lines) - 1:
            self._cache[number] = strip
        return strip

    def _note_strip(self, width: int, base: Style) -> Strip:
        dropped = f"… {counted(self.dropped, 'earlier line')} dropped"
        keeps = f"the viewer keeps the last {self.max_lines:,}"
        words = (
            first_fitting(
                [f"{dropped} ({keeps}; p opens the whole file in $PAGER)", f"{dropped} ({keeps}; p: the whole file)"]
                + [f"{dropped} (p: the whole file)"],
                width,
            )
            if self.dropped
            else self.placeholder
        )
        text = Text(words, style=self.get_component_rich_style("log-view--note", partial=True), end="")
        return Strip(text.render(self.app.console), text.cell_len).crop_extend(0, width, base)

    def render_line(self, y: int) -> Strip:
        """One row: the note row, or a line (its part on this row when wrapped), cropped to the view."""
        base = self.rich_style
        width = self.scrollable_content_region.width
        row = round(self.scroll_y) + y
        if row < self._note_rows:
            return self._note_strip(width, base).apply_style(base)
        at = self.line_at(row)
        if at is None:
            return Strip.blank(width, base)
        number, sub = at
        strip = self._strip_of(number)
        if self.wrap:
            start = sub * self._wrap_width
            strip = strip.crop_extend(start, start + width, base)
        else:
            x = round(self.scroll_x)
            strip = strip.crop_extend(x, x + width, base)
        return strip.apply_style(base)
