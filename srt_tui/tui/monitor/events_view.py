"""The Events view of a job (Monitor, `e`): its story oldest first, the newest at the bottom as in a log — every
stage its launch script wrote and every worker health change this Monitor saw (`monitor.timeline`). The job's
`status.jsonl` is read in a thread worker, again at each refresh of the Monitor while the job runs."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Footer, Static

from srt_tui.core.text.counts import counted
from srt_tui.monitor.model import JobSnapshot
from srt_tui.monitor.timeline import JOB, Story, TimelineEntry, offset, started, timeline
from srt_tui.tui.context import ContextHub
from srt_tui.tui.dismiss_once import DismissOnce
from srt_tui.tui.header import AppHeader
from srt_tui.tui.workers import ReportsWorkerErrors
from srt_tui.widgets.fit_columns import FitColumn, fit, natural_widths, total_width
from srt_tui.widgets.fit_parts import pack_parts
from srt_tui.widgets.row_table import RowTable

#: the columns, the detail last, wrapped by words within the room left (a row as tall as its detail needs); SINCE,
#: then WHO give way first on a terminal too narrow for them beside a short detail
FIT: tuple[FitColumn, ...] = (
    FitColumn("time", "TIME", 0), FitColumn("since", "SINCE", 2), FitColumn("who", "WHO", 1, cap=16),
    FitColumn("what", "WHAT", 0, cap=18), FitColumn("detail", "DETAIL", 0),
)  # fmt: skip
#: the table's vertical scrollbar
SCROLLBAR = 2
#: the detail's width when the other columns are fitted: narrower than its text, it wraps onto more lines
DETAIL_MIN = 24


def wrapped(detail: str, width: int) -> tuple[Text, int]:
    """An event's detail on lines of whole words within ``width`` (at 80 columns `serving at http://…` and `(retry
    in 2.0 s)` were cut at the screen's edge), and the lines it takes: a word wider than that (a URL) folds."""
    lines = pack_parts(detail.split(" "), width, " ")
    return Text("\n".join(lines), overflow="fold"), sum(-(-max(cell_len(line), 1) // width) for line in lines)


class EventsRead(Message):
    """The worker read the job's `status.jsonl` and `cancel.json`."""

    def __init__(self, story: Story) -> None:
        super().__init__()
        self.story = story


class EventsScreen(ReportsWorkerErrors, DismissOnce[None]):
    """One job's events; Esc or q goes back to the Monitor, which hands it each newer snapshot (`follow`)."""

    DEFAULT_CSS = """
    EventsScreen #events-title { height: auto; padding: 0 1; color: $text-muted; }
    EventsScreen #events-table { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("q", "back", "Back", show=False),
        Binding("r", "reload", "Reload"),
    ]

    def __init__(self, hub: ContextHub, snap: JobSnapshot) -> None:
        super().__init__(id="events")
        self.hub = hub
        self.snap = snap
        self.story: Story | None = None
        self._shown: list[TimelineEntry] = []

    @property
    def job_id(self) -> str:
        """The job shown (the Monitor hands newer snapshots of it)."""
        return self.snap.job_id

    def compose(self) -> ComposeResult:
        yield AppHeader("monitor", self.hub)
        yield Static(f"Events of {self.snap.job_id} {self.snap.name}: reading {self.snap.job_dir} …", id="events-title")
        yield RowTable[str | Text](id="events-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(RowTable).focus()
        self.action_reload()

    def on_resize(self) -> None:
        self._fill(force=True)

    def follow(self, snap: JobSnapshot | None) -> None:
        """A newer snapshot of the job: its workers' health history, and the file read again while it runs."""
        if snap is None or snap.job_id != self.snap.job_id:
            return
        running = not self.snap.is_final
        self.snap = snap
        if running:  # an ended job's file no longer grows (its last stage is read once more when it ends)
            self.action_reload()
        else:
            self._fill()

    def action_back(self) -> None:
        self.dismiss(None)

    def action_reload(self) -> None:
        self._read(Path(self.snap.job_dir))

    @work(thread=True, exclusive=True, group="events", name="events", exit_on_error=False)
    def _read(self, job_dir: Path) -> None:
        from srt_tui.monitor.timeline import read_story

        self.post_message(EventsRead(read_story(job_dir)))  # bounded; no events when missing or refused

    @on(EventsRead)
    def _events_read(self, message: EventsRead) -> None:
        self.story = message.story
        self._fill()

    def _fill(self, force: bool = False) -> None:
        """The rows, newest at the bottom; the cursor follows the newest unless the operator moved it up."""
        if self.story is None:
            return
        stopped = frozenset(w.name for w in self.snap.workers if self.snap.stopped_with_job(w.name))
        entries = timeline(self.story.events, self.snap.workers, self.story.cancel, stopped, self.story.check_every_s)
        if entries == self._shown and not force:
            return
        table = self.query_one(RowTable)
        at_end = table.row_count == 0 or table.cursor_row >= table.row_count - 1
        self._shown = entries
        start = started(entries)
        bad = "bold red"
        rows = [
            {
                "time": e.at.astimezone().strftime("%H:%M:%S") if e.at is not None else "-",
                "since": offset(e, start),
                "who": e.who,
                "what": Text(e.what, style=bad) if e.bad else e.what,
                "detail": e.detail,
            }
            for e in entries
        ]
        plain = ({k: v.plain if isinstance(v, Text) else v for k, v in row.items()} for row in rows)
        room = (self.size.width or 120) - SCROLLBAR
        natural = natural_widths([f.key for f in FIT], plain)
        # the other columns are fitted beside a short detail, which then takes the room left and wraps within it
        fitted = fit(FIT, {**natural, "detail": min(natural["detail"], DETAIL_MIN)}, room)
        rest = room - total_width(fitted) + next(c.width for c in fitted if c.key == "detail")
        fitted = tuple(replace(c, width=max(DETAIL_MIN, min(natural["detail"], rest))) if c.key == "detail" else c
                       for c in fitted)  # fmt: skip
        table.refit(fitted)
        width = next(c.width for c in fitted if c.key == "detail")
        for row in rows:
            row["detail"], height = wrapped(str(row["detail"]), width)
            table.add_row(*(row[column.key] for column in fitted), height=height)
        if at_end and rows:
            table.move_cursor(row=len(rows) - 1)
        day = start.astimezone().strftime("%Y-%m-%d") if start is not None else ""
        # the count named (`· 18 ·` alone said nothing of what it counted)
        count = counted(len(entries), "event")
        if healths := sum(e.who != JOB for e in entries):  # `srt-tui events` lists the job's own, without these
            count += f" ({counted(healths, 'health change')} this Monitor saw)"
        title = f"Events of {self.snap.job_id} {self.snap.name} · {count} · local time, from {day}"
        if not entries:
            title = f"Events of {self.snap.job_id} {self.snap.name}: none yet (its launch script has not started)"
        self.query_one("#events-title", Static).update(title)
