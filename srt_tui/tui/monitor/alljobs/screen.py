"""All my Slurm jobs, squeue-style (k9s's "all namespaces"): `A` from the Monitor opens it, `A`/Esc goes
back. Enter on a job srt-tui or srtctl launched opens its job view from its output directory; on any other
job it shows Slurm's facts. `d` removes an ended job from the lists (directory kept), `h` shows the hidden;
`/` filters the rows as the Monitor's jobs list does, `s` steps through the orders.

The list is refreshed in a thread worker and re-armed only after the previous refresh finished, so a
Slurm that does not answer is shown as such and never freezes or stacks refreshes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from textwrap import shorten
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable, Footer, Input, Static

from srt_tui.core.text.counts import counted
from srt_tui.core.text.words import best_named, nothing_matches
from srt_tui.monitor.alljobs.cells import SORT_ARROWS, SORTS, arrange
from srt_tui.monitor.alljobs.query import MyJob, MyJobs
from srt_tui.tui.context import ContextHub
from srt_tui.tui.dismiss_once import DismissOnce
from srt_tui.tui.header import AppHeader
from srt_tui.tui.monitor.alljobs import columns
from srt_tui.tui.monitor.alljobs.dialogs import ConfirmHide, SlurmFactsScreen
from srt_tui.tui.monitor.alljobs.source import JobsSource
from srt_tui.tui.rearm import RearmedLoop
from srt_tui.tui.workers import ReportsWorkerErrors
from srt_tui.widgets.filter_field import FilterField
from srt_tui.widgets.fit_parts import fit_parts
from srt_tui.widgets.row_table import RowTable

REFRESH_S = 5.0


@dataclass(frozen=True)
class OpenJob:
    """The operator chose a job with an output directory: the Monitor opens its job view."""

    job_id: str
    job_dir: Path


@dataclass
class JobsListed(Message):
    """A refresh of the list finished (its error, if Slurm did not answer, is inside)."""

    listing: MyJobs


class AllJobsScreen(ReportsWorkerErrors, DismissOnce[OpenJob | None]):
    """Every Slurm job of the user; the app context gives the clock and read-only mode; ``refresh_s=None``
    lists once (tests, screenshots)."""

    DEFAULT_CSS = """
    AllJobsScreen #alljobs-title { height: 1; padding: 0 1; background: $panel; color: $text-primary; }
    AllJobsScreen #alljobs-table { height: 1fr; }
    AllJobsScreen #alljobs-empty { height: auto; padding: 1 2; color: $text-muted; }
    AllJobsScreen #alljobs-status { height: auto; max-height: 3; padding: 0 1; background: $panel; color: $text-muted; }
    AllJobsScreen #alljobs-filter { margin: 0 1; }
    AllJobsScreen .hidden { display: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open"),
        Binding("escape,A", "back", "Back"),
        Binding("q", "back", "Back", show=False),  # a view opened on top: `q` leaves it, as everywhere
        Binding("d,delete", "hide", "Remove"),
        Binding("u", "unhide", "Unhide"),
        Binding("h", "toggle_hidden", "Hidden"),
        Binding("r", "refresh", "Refresh", show=False, tooltip="Ask Slurm now (the list refreshes every 5 s)"),
        Binding("slash", "filter", "Filter", tooltip="Filter the jobs: every word must appear, !word must not"),
        Binding("s", "sort", "Sort", tooltip="Sort by the next column (job, name, state, time, then squeue's order)"),
        # while the filter is typed: the highlighted job, the one Enter opens (the table moves its own cursor)
        Binding("down", "filtered_cursor(1)", "Next match", show=False),
        Binding("up", "filtered_cursor(-1)", "Previous match", show=False),
    ]

    def __init__(self, hub: ContextHub, source: JobsSource, *, refresh_s: float | None = REFRESH_S) -> None:
        super().__init__(id="alljobs")
        self.hub = hub
        self.source = source
        self.refresh_s = refresh_s
        self.listing: MyJobs | None = None
        self.show_hidden = False
        self.query_text = ""
        self.sort = SORTS[0]
        self._ids: list[str] = []
        self._header: tuple[object, ...] = ()
        #: the filter the rows were last drawn for: a new one puts the cursor on its best match
        self._drawn_query = ""
        self._loop = RearmedLoop(self, self._list)

    # -- layout -------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield AppHeader("monitor", self.hub)
        yield Static("All my Slurm jobs", id="alljobs-title")
        yield FilterField(placeholder="filter: words that must appear, !word that must not (Esc clears)",
                    id="alljobs-filter", classes="hidden")  # fmt: skip
        yield RowTable[Text](cursor_type="row", zebra_stripes=True, id="alljobs-table")
        yield Static("", id="alljobs-empty", classes="hidden")
        yield Static("asking Slurm…", id="alljobs-status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#alljobs-table").focus()
        self.refresh_now()

    def on_unmount(self) -> None:
        self._loop.stop()

    def on_resize(self) -> None:
        self.redraw()

    @property
    def read_only(self) -> bool:
        """`--read-only`: removing and restoring are hidden."""
        return self.hub.context.read_only

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Read-only mode hides removing and restoring (k9s hides its mutating keys too)."""
        if action == "unhide" and not self.show_hidden:
            return False
        return not (action in ("hide", "unhide") and self.read_only)

    # -- refresh (re-armed only after the previous one finished) ------------------------------------

    def refresh_now(self) -> None:
        """List now, or right after the refresh that is running."""
        self._loop.run_now()

    @work(thread=True, group="alljobs", name="alljobs-refresh", exit_on_error=False)
    def _list(self) -> None:
        try:
            listing = self.source.list_jobs()
        except Exception as exc:  # a bug in a source: shown like Slurm failing, never raised into the app
            listing = MyJobs("", (), f"{type(exc).__name__}: {exc}")
        self.post_message(JobsListed(listing))

    @on(JobsListed)
    def _listed(self, message: JobsListed) -> None:
        self.listing = message.listing
        self.redraw()
        self._loop.finished(self.refresh_s)

    # -- drawing ------------------------------------------------------------------------------------

    def shown(self) -> list[MyJob]:
        """The rows of the table (hidden ones only while `h` is on)."""
        return self.listing.shown(self.show_hidden) if self.listing is not None else []

    def redraw(self) -> None:
        """Draw the latest listing."""
        if not self.is_mounted:
            return
        table = self.query_one(RowTable)
        keep = self.highlighted
        cols = columns.columns(self.size.width or 80)
        arrow = SORT_ARROWS.get(self.sort, "")
        header = (cols, self.sort)
        if header != self._header:
            self._header = header
            table.clear(columns=True)
            for key, title, width in cols:
                table.add_column(title + (arrow if key == self.sort else ""), key=key, width=width)
        else:
            table.clear()
        now = self.hub.context.now()
        rows = arrange(self.shown(), self.query_text, self.sort, now)
        if self.query_text != self._drawn_query:  # typed: the cursor on the row it names best (Enter opens it)
            self._drawn_query = self.query_text
            best = best_named([(j.job_id, j.job.name) for j in rows], self.query_text) if self.query_text else None
            keep = rows[best].job_id if best is not None else keep
        self._ids = [j.job_id for j in rows]
        for job in rows:
            style = "dim" if job.hidden or job.job.is_terminal else ""
            cells = [Text(columns.text(job, key, now, width), style=style) for key, _, width in cols]
            table.add_row(*cells, key=job.job_id)
        if keep in self._ids:
            table.move_cursor(row=self._ids.index(keep), animate=False)
        self._status(rows)

    def _status(self, rows: list[MyJob]) -> None:
        listing = self.listing
        empty = self.query_one("#alljobs-empty", Static)
        status = self.query_one("#alljobs-status", Static)
        if listing is None:
            return
        user = listing.user or "you"
        self.query_one("#alljobs-title", Static).update(f"All my Slurm jobs · {user}")
        hidden = sum(j.hidden for j in listing.jobs)
        listed = len(listing.shown(self.show_hidden))
        if listing.error:
            empty.update(f"Slurm did not answer: {listing.error}\nr retries · Esc goes back to srt-tui's jobs")
        elif not rows and listed and self.query_text:  # jobs there are, the filter hides them all
            empty.update(nothing_matches("job", self.query_text))
        elif not rows:
            empty.update(f"No Slurm jobs of {user} (queued, running, or recently ended).")
        empty.set_class(bool(rows) and not listing.error, "hidden")
        count = (
            f"{len(rows)} of {counted(listed, 'job')} (filter: {self.query_text})"
            if self.query_text
            else counted(len(rows), "job")
        )
        parts = [count]
        parts += ["s sort / filter" if self.sort == SORTS[0] else f"sorted by {self.sort} (s)"]
        parts.append("Enter: job view (srt-tui, srtctl) or Slurm facts")
        if hidden:
            parts.append(f"{hidden} hidden" + (" (marked *)" if self.show_hidden else " (h shows)"))
        if listing.error:
            parts.append(f"Slurm ✗ {shorten(listing.error, 60, placeholder=' …')}")  # at a word, never mid-word
        elif listing.took_s:
            parts.append(f"read in {listing.took_s:.2f} s")  # what the figure is: the listing's squeue time
        # whole parts within the line (at 80 columns): the timing gives way first, then the Enter hint (in `?`)
        status.update(fit_parts(parts, (self.size.width or 80) - 2, ("read in", "s sort", "Enter: ", "sorted by")))

    # -- actions ------------------------------------------------------------------------------------

    @property
    def highlighted(self) -> str | None:
        """The job id under the cursor."""
        row = self.query_one(RowTable).cursor_row
        return self._ids[row] if self._ids and 0 <= row < len(self._ids) else None

    def job(self, job_id: str | None) -> MyJob | None:
        """The listed job with this id."""
        return next((j for j in self.shown() if j.job_id == job_id), None)

    @on(DataTable.RowSelected, "#alljobs-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        """Job view from the output directory, or Slurm's facts for a job launched another way."""
        job = self.job(self.highlighted)
        if job is None:
            return
        if job.job_dir is not None:
            self.dismiss(OpenJob(job.job_id, job.job_dir))
        else:
            self.app.push_screen(SlurmFactsScreen(job.job, self.source))

    def action_back(self) -> None:
        """Esc clears the filter first (as in the Monitor's jobs list), then goes back to srt-tui's jobs."""
        flt = self.query_one("#alljobs-filter", Input)
        if self.query_text or not flt.has_class("hidden"):
            flt.value = ""
            self.query_text = ""
            flt.add_class("hidden")
            self.query_one("#alljobs-table").focus()
            self.redraw()
            return
        self.dismiss(None)

    def action_filter(self) -> None:
        """`/`: the filter field, focused."""
        flt = self.query_one("#alljobs-filter", Input)
        flt.remove_class("hidden")
        flt.focus()

    @on(Input.Changed, "#alljobs-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.query_text = event.value.strip()
        self.redraw()

    @on(Input.Submitted, "#alljobs-filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        """Enter opens the job the filter names best (the highlighted row), as Enter on the list does; a filter
        matching nothing (or empty) leaves the keys to the list."""
        if not self.query_text:
            self.query_one("#alljobs-filter").add_class("hidden")
        self.query_one("#alljobs-table").focus()
        if self.query_text:
            self.action_open()

    def action_filtered_cursor(self, step: int) -> None:
        """The highlighted job one row down or up, the filter keeping the keys."""
        table = self.query_one(RowTable)
        if step > 0:
            table.action_cursor_down()
        else:
            table.action_cursor_up()

    def action_sort(self) -> None:
        """`s`: the next order (job, name, state, time, then squeue's own)."""
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        self.redraw()

    def action_refresh(self) -> None:
        """Ask Slurm now."""
        self.refresh_now()

    def action_toggle_hidden(self) -> None:
        """Show (marked) or hide the jobs removed from the list."""
        self.show_hidden = not self.show_hidden
        self.redraw()
        self.refresh_bindings()

    def action_hide(self) -> None:
        """Remove an ended job from the lists after a confirmation; a queued or running one is refused."""
        job = self.job(self.highlighted)
        if job is None or self.read_only:
            return
        if job.hidden:
            self.notify(f"{job.job_id} is already hidden (u shows it again).")
            return
        if not job.job.is_terminal:
            self.notify(
                f"{job.job_id} is {job.job.state}: only ended jobs leave the list (cancel it first).",
                severity="warning",
            )
            return
        where = str(job.job_dir) if job.job_dir else ""
        self.app.push_screen(ConfirmHide(job.job_id, job.job.name, where), callback=partial(self._hide, job.job_id))

    def _hide(self, job_id: str, yes: bool | None) -> None:
        from srt_tui.state.hidden import hide

        if not yes:
            return
        hide([job_id])
        self._mark(job_id, True)
        self.notify(f"Removed {job_id} from the list (h shows hidden jobs).")

    def action_unhide(self) -> None:
        """List a hidden job again."""
        from srt_tui.state.hidden import unhide

        job = self.job(self.highlighted)
        if job is None or not job.hidden or self.read_only:
            return
        unhide([job.job_id])
        self._mark(job.job_id, False)
        self.notify(f"{job.job_id} is listed again.")

    def _mark(self, job_id: str, hidden: bool) -> None:
        """Apply a hide/unhide to the listing at once (the next refresh reads the state file again)."""
        if self.listing is None:
            return
        jobs = tuple(MyJob(j.job, j.found, hidden) if j.job_id == job_id else j for j in self.listing.jobs)
        self.listing = MyJobs(self.listing.user, jobs, self.listing.error, self.listing.took_s)
        self.redraw()
