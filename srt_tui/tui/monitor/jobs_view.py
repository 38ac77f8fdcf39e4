"""The jobs table: one row per tracked job, `/` filter, sortable columns, a one-line status bar."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import ClassVar

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Static
from textual.widgets.data_table import ColumnKey

from srt_tui.core.text.counts import counted
from srt_tui.core.text.words import nothing_matches
from srt_tui.monitor import cells
from srt_tui.monitor.model import JobSnapshot
from srt_tui.tui.monitor import jobs_model, sweep_rows
from srt_tui.widgets.filter_field import FilterField
from srt_tui.widgets.fit_columns import Fitted, fit_value
from srt_tui.widgets.fit_parts import fit_parts
from srt_tui.widgets.row_table import RowTable

_STATUS_STYLE = {"ok": "ok", "degraded": "warn", "failed": "bad", "ended": "dim", "waiting": "dim"}


class JobsTable(RowTable[Text]):
    """DataTable with theme-coloured status cells; its footer says what Enter does (DataTable's own hidden
    `enter` binding otherwise hides the screen's `Open`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Open", tooltip="Open the job in detail"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = DataTable.COMPONENT_CLASSES | {
        "jobs-table--ok",
        "jobs-table--warn",
        "jobs-table--bad",
        "jobs-table--dim",
    }

    DEFAULT_CSS = """
    JobsTable > .jobs-table--ok { color: $text-success; }
    JobsTable > .jobs-table--warn { color: $text-warning; text-style: bold; }
    JobsTable > .jobs-table--bad { color: $text-error; text-style: bold; }
    JobsTable > .jobs-table--dim { color: $text-muted; }
    """

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`enter Open` is offered only with a row to open (an empty list's footer offered it)."""
        return self.row_count > 0 if action == "select_cursor" else True

    def style_of(self, name: str) -> Style:
        """A component class's text style."""
        return self.get_component_rich_style(f"jobs-table--{name}", partial=True)


class JobsView(Vertical):
    """`show(...)` redraws from snapshots; the highlighted job survives refreshes, filtering and sorting."""

    #: ↑/↓ while the filter is typed move the highlighted job, the one Enter opens (the table has its own)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "filtered_cursor(1)", "Next match", show=False),
        Binding("up", "filtered_cursor(-1)", "Previous match", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(id=id)
        self._columns: tuple[Fitted, ...] = ()
        self._header: tuple[Fitted, ...] = ()
        self._compact = False
        #: STATE without the launcher where the id names it, in every row (`jobs_model.short_state`)
        self._short_state = False
        self._ids: list[str] = []
        #: each shown row's cells as (text, style), to set only what changed on the next refresh
        self._shown: dict[str, list[tuple[str, str]]] = {}
        #: the first cell object the table holds for each row (how `DataTable.sort`'s key tells rows apart)
        self._first: dict[str, Text] = {}
        #: the job the cursor goes to as soon as its row exists (the job just opened or submitted)
        self._follow: str | None = None
        #: the filter the rows were last drawn for: a new one puts the cursor on its best match
        self._query = ""

    @property
    def shown_columns(self) -> frozenset[str]:
        """The keys of the columns on screen at today's width."""
        return frozenset(c.key for c in self._columns)

    def compose(self) -> ComposeResult:
        yield FilterField(placeholder="filter: every word must match, !word excludes — Enter opens the job, Esc clears",
                    id="jobs-filter", classes="hidden")  # fmt: skip
        yield JobsTable(cursor_type="row", zebra_stripes=True, id="jobs-table")
        yield Static("", id="jobs-empty", classes="hidden")
        yield Static("", id="jobs-status")

    @property
    def table(self) -> JobsTable:
        """The DataTable."""
        return self.query_one(JobsTable)

    @property
    def highlighted_job(self) -> str | None:
        """Id of the job under the cursor."""
        row = self.table.cursor_row
        return self._ids[row] if self._ids and 0 <= row < len(self._ids) else None

    def action_filtered_cursor(self, step: int) -> None:
        """The highlighted job one row down or up, the filter keeping the keys."""
        if step > 0:
            self.table.action_cursor_down()
        else:
            self.table.action_cursor_up()

    def follow(self, job_id: str) -> None:
        """Put the cursor on ``job_id`` now, or when its row first appears: the list follows the job just
        watched, so `R`/`l`/`c` back in the list act on it (issue 21, defect 5)."""
        self._follow = job_id
        if job_id in self._ids:
            self.table.move_cursor(row=self._ids.index(job_id), animate=False)
            self._follow = None

    def show(
        self,
        snaps: list[JobSnapshot],
        now: datetime,
        *,
        query: str,
        sort: str,
        reverse: bool,
        width: int,
        status: str,
        reading: str = "",
    ) -> None:
        """Redraw the table; ``reading``: what the first refresh reads, said in place of `No jobs yet` until it
        answers."""
        table = self.table
        keep = self._follow or self.highlighted_job
        jobs_model.retain(snaps)
        cols, self._compact = jobs_model.columns(width, snaps, now, sort, reverse)
        state = next((c.width for c in cols if c.key == "slurm"), 0)
        self._short_state = jobs_model.short_state(snaps, now, self._compact, state)
        rows = jobs_model.arrange(snaps, query, sort, reverse, now)
        if query != self._query:  # typed: the cursor on the row the filter names best (Enter opens it)
            self._query = query
            keep = jobs_model.best_match(rows, query) or keep
        ids = [s.job_id for s in rows]
        marks = sweep_rows.tree_marks(rows)
        self._columns = cols
        styles = {name: table.style_of(name) for name in ("ok", "warn", "bad", "dim")}
        members: dict[str, list[str]] = {}
        for s in rows:
            if s.job_id in marks:
                members.setdefault(s.group, []).append(jobs_model.cell(s, "name", now, self._compact))
        drawn = {s.job_id: self._cells(s, now, styles, marks.get(s.job_id, ""), members.get(s.group, [])) for s in rows}
        if _keys(cols) == _keys(self._header) and set(ids) == set(self._ids) and len(ids) == len(self._ids):
            # the same rows and columns: set what changed, relabel the headers (the sort arrow) and resize the
            # columns it widens, re-order in place; no clear and no re-measuring of every cell (a sort key at 64
            # jobs cost a full table rebuild before, and every other one still did when the arrow moved)
            relabel = cols != self._header
            if relabel:
                self._relabel(cols)
            self._update_changed(drawn)
            if relabel or ids != self._ids:  # sorting also renews the table's render caches (the new labels)
                place = {id(self._first[j]): i for i, j in enumerate(ids)}
                table.sort(key=lambda values: place[id(values[0])])
                self._ids = ids
        else:
            if cols != self._header:
                self._header = cols
                table.clear(columns=True)
                for c in cols:
                    table.add_column(c.header, key=c.key, width=c.width)
            else:
                table.clear()
            self._first = {}
            self._ids = ids
            for job_id, row in drawn.items():
                table.add_row(*row, key=job_id)
                self._first[job_id] = row[0]
        self._shown = {job_id: [_look(t) for t in row] for job_id, row in drawn.items()}
        if keep in self._ids:
            table.move_cursor(row=self._ids.index(keep), animate=False)
            if keep == self._follow:
                self._follow = None
        empty = self.query_one("#jobs-empty", Static)
        if not snaps and reading:  # the first refresh has not answered: no job is known not to exist
            _say(empty, reading[:1].upper() + reading[1:])
        elif not snaps:
            _say(empty, "No jobs yet. Launch one in Launch mode (1), or press a to add a job by id or directory.")
        elif not rows:
            _say(empty, nothing_matches("job", query))
        empty.set_class(bool(rows), "hidden")
        shown = f"{len(rows)} of {counted(len(snaps), 'job')}" if query else counted(len(snaps), "job")
        # k9s's `pods(all)[4] </8>`: a kept filter is on the list's own frame, in the warning colour, with how to
        # leave it (`4 of 21 jobs · filter '8'` in the line under the list went unseen, and hid a job just submitted)
        table.set_class(bool(query), "-filtered")
        table.border_title = f" filter {query!r} · {shown} · Esc clears " if query else None
        order = "↓" if reverse else "↑"
        # `s` (which the footer leaves to `?`) is named with the sort it changes, `/` with the filter
        filtering = f"filter {query!r}" if query else "/ filter"
        parts = [shown, f"s sort {sort} {order}", filtering, *status.split(" · ")]
        # what gives way first at 80 columns: the `/` hint (not an active filter), the refresh timing, the `A`
        # hint, the sort (Slurm's state and a failed refresh stay)
        line = fit_parts([p for p in parts if p], width - 2, ("/ filter", "refreshed in", "A: ", "s sort "))
        for s in snaps:  # a job whose files cannot be read (⚠ in its row): what is wrong, in full
            if problem := cells.files_problem(s):
                line += f"\n⚠ {s.job_id}: {problem}"
        _say(self.query_one("#jobs-status", Static), line)

    def _relabel(self, cols: tuple[Fitted, ...]) -> None:
        """New headers and widths on the columns in place (the rows are kept); the table's size is measured again
        on its next idle, with no row to measure."""
        table = self.table
        resized = False
        for c in cols:
            column = table.columns[ColumnKey(c.key)]
            column.label = Text(c.header)
            if column.width != c.width:
                column.width = c.width
                resized = True
        if resized:
            table._require_update_dimensions = True  # noqa: SLF001 (DataTable's own flag: virtual size on idle)
            table.check_idle()
        self._header = cols

    def _update_changed(self, drawn: dict[str, list[Text]]) -> None:
        """Same columns, same rows in the same order: only the cells that look different are set (a refresh
        where nothing changed costs the table nothing; rebuilding every row each refresh re-laid the table)."""
        table = self.table
        for job_id, row in drawn.items():
            before = self._shown.get(job_id, [])
            for i, (c, text) in enumerate(zip(self._columns, row)):
                if i >= len(before) or before[i] != _look(text):
                    table.update_cell(job_id, c.key, text)
                    if i == 0:
                        self._first[job_id] = text

    def _cells(
        self, s: JobSnapshot, now: datetime, styles: dict[str, Style], mark: str = "", members: Sequence[str] = ()
    ) -> list[Text]:
        """One row's cells, coloured with ``styles`` (the table's, looked up once a redraw: each lookup walks
        the CSS); ``mark`` brackets a sweep's members (sweep_rows.tree_marks), whose names (``members``) tell which
        part of its name must stay in sight."""
        state = jobs_model.status(s)
        out = []
        for c in self._columns:
            text = jobs_model.cell(s, c.key, now, self._compact)
            if c.key == "slurm" and self._short_state:  # the launcher where the id names it (`local-12`): `RUNNING`
                text = cells.state_cell(s, short=True)
            if c.key == "name" and mark:  # a sweep member: the parts where the members differ stay in sight
                text = mark + sweep_rows.member_name(text, list(members), c.width - len(mark))
            if c.key == "stage" and len(text) > c.width:  # a queued job: Slurm's estimate before its reason
                text = jobs_model.wait_within(s, now, c.width) or text
            if c.key == "elapsed" and len(text) > c.width:  # a queued job: `2m10s` where `queued 2m10s` is too wide
                text = jobs_model.elapsed_within(s, now, c.width) or text
            text = fit_value(text, c.width)  # whole words only: `h100-2p1d-…`, never `workers he…`
            style = Style()
            if c.key in ("status", "stage"):
                style = styles[_STATUS_STYLE[state]]
            elif c.key == "elapsed" and cells.waited(s, now):  # a wait, not a run time: as the queued row's STAGE
                style = styles["dim"]
            elif c.key == "errors" and s.served_errors:
                style = styles["bad"]
            elif c.key == "healthy" and not s.is_final and any(w.health != "healthy" for w in s.workers):
                style = styles["warn" if s.stage not in ("serving", "router ready", "benchmark") else "bad"]
            elif c.key == "router" and s.router is not None and s.router.up is False and not s.is_final:
                style = styles["bad"]
            out.append(Text(text, style=style))
        return out


def _say(static: Static, text: str) -> None:
    """Set a Static's text only when it changed, and re-lay the screen only when its height may change: a
    Static's `update` re-lays the whole screen by default, which was half of a sort key's repaint."""
    before = str(static.content)
    if text == before:
        return
    width = static.content_size.width

    def rows(value: str) -> int | None:  # its height, when each line fits (None: it may wrap)
        lines = value.split("\n")
        return len(lines) if value and all(cell_len(line) <= width for line in lines) else None

    height = rows(text)
    static.update(text, layout=height is None or height != rows(before))


def _look(text: Text) -> tuple[str, str]:
    """What a cell shows: its characters and its style (rich's Text equality ignores the style)."""
    return text.plain, str(text.style)


def _keys(cols: tuple[Fitted, ...]) -> list[str]:
    """The columns' keys, in order (what a header label or width change leaves alone)."""
    return [c.key for c in cols]
