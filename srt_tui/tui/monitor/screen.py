"""Monitor mode: every tracked job in a table, one job in detail, live.

Polling follows dolphie's loop: one named async worker awaits the feed on the app's loop (job-index file
reads go to a thread), and the next poll is armed only after the previous one finished, so a slow source can
delay data but never stacks polls or freezes the screen. `r` polls now (or right after the running
poll). Everything time-dependent reads the app context's `clock`; tests hand in frozen snapshots.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import partial
from pathlib import Path
from textwrap import shorten
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.widgets import ContentSwitcher, DataTable, Input
from textual.worker import Worker, WorkerState

from srt_tui.monitor.feeds import SnapshotFeed
from srt_tui.monitor.feeds.process import ChildFeed
from srt_tui.monitor.model import JobSnapshot, SourceState
from srt_tui.monitor.statuses.history import SPARK_SLOT_S, WINDOW_S
from srt_tui.slurm.local import is_local_job
from srt_tui.slurm.reach import login_address
from srt_tui.state.hidden import HiddenWatch
from srt_tui.tui.context import AppContext, ContextHub
from srt_tui.tui.header import AppHeader
from srt_tui.tui.help_screen import ColumnLegend
from srt_tui.tui.logs.screen import LogViewerScreen
from srt_tui.tui.messages import HoldKeys, SlurmStatus
from srt_tui.tui.mode_screen import ModeScreen
from srt_tui.tui.monitor import jobs_model, worker_table
from srt_tui.tui.monitor.alljobs.dialogs import ConfirmHide
from srt_tui.tui.monitor.alljobs.screen import REFRESH_S, AllJobsScreen, OpenJob
from srt_tui.tui.monitor.alljobs.source import JobsSource, LiveJobsSource
from srt_tui.tui.monitor.dialogs import ConfirmCancel
from srt_tui.tui.monitor.events_view import EventsScreen
from srt_tui.tui.monitor.feed import Canceller, default_cancel
from srt_tui.tui.monitor.job_view import JobView
from srt_tui.tui.monitor.jobs_model import SORTS
from srt_tui.tui.monitor.jobs_view import JobsView
from srt_tui.tui.monitor.messages import (
    AddFailed,
    CancelFailed,
    JobAdded,
    JobCancelled,
    JobsListed,
    PollFailed,
    SmokeDone,
    SnapshotsUpdated,
)
from srt_tui.tui.monitor.results_view import ResultsScreen
from srt_tui.tui.monitor.router_panel import ROUTED_IN_ALL
from srt_tui.tui.monitor.worker_detail import WorkerDetail, worker_detail_for
from srt_tui.tui.monitor.worker_table import WorkerTable
from srt_tui.tui.palette import PaletteAction
from srt_tui.tui.rearm import RearmedLoop
from srt_tui.tui.workers import ReportsWorkerErrors
from srt_tui.widgets.fit_columns import legend
from srt_tui.widgets.fit_footer import FitFooter

POLL_INTERVAL_S = 2.0
#: a full garbage collection every this many refreshes (about a minute at 1,024 endpoints); see `_settle_heap`
SETTLE_EVERY = 20
#: the job view's smoke test (`b`): as many requests as `srt-tui bench`'s default, as many at once
SMOKE_REQUESTS = 20
SMOKE_CONCURRENCY = 4
#: the footer's keys that leave it, first to last, when it is too narrow for them all; `?` Help lists every key. Clone
#: is for after a job (an ended job's view has room for it), Results for once its benchmark measured: at 80 columns
#: a running job's view keeps Events, Logs and Cancel (Events had left it first), the list `/` and All jobs
FOOTER_GIVES_WAY = (
    "clone", "results", "events", "all_jobs", "smoke", "logs", "cancel_job", "filter", "select_cursor", "clear_filter",
    "back",
)  # fmt: skip

#: what a job's key says with no job selected
NO_JOB = "No job selected: press a to add one to watch (its id or directory), A for all my Slurm jobs."
#: the actions that act on a job: hidden (the footer does not offer them) while no job is selected (an empty or
#: filtered-out list); their keys then say so (`no_job`, `no_cancel`)
NEEDS_A_JOB = frozenset(
    {"open", "logs", "results", "events", "cancel_job", "clone", "smoke", "copy_forward", "hide_job", "worker_detail"}
)


class MonitorScreen(ReportsWorkerErrors, ModeScreen):
    """Live jobs. The Launch flow calls `focus_job` right after a submit.

    ``feed`` (default: the live monitor), ``canceller`` (default: scancel / the local launcher),
    ``jobs`` (tracked from the start) and ``discover`` (also track every job in the job index) are
    injectable; ``poll_interval=None`` never polls (frozen ``snapshots`` are shown as they are).
    """

    CSS_PATH = "monitor.tcss"
    #: Help's legend of the two tables' headers and marks (an operator asked what `▲`, SRC, RTR or Q meant), read
    #: from the column definitions the tables are drawn with
    HELP_COLUMNS: ClassVar[tuple[ColumnLegend, ...]] = (
        ColumnLegend("The jobs list's columns (↓ or ↑ after a header: sorted by it)", legend(jobs_model.COLUMNS)),
        ColumnLegend("The job view's workers table", legend(worker_table.COLUMNS)),
    )
    #: what the marks beyond the columns mean: the sparklines' span (an operator read 24 s of bars beside 60 s figures)
    #: and their glyphs, one meaning each in every line (`cells.sparkline`)
    HELP_LEGEND: ClassVar[str] = (
        f"Sparklines (TREND, Serving): the last {WINDOW_S:.0f} s, the span of the figures beside them, one bar per "
        f"{SPARK_SLOT_S:.0f} s; a blank bar: nothing was read then (a hung worker's goes blank); ▁: read, and zero "
        "(idle: no request, no token); ▂ to █: above zero, up to the line's highest.\n"
        f"Requests: the router panel's `routed` (`routed 43 {ROUTED_IN_ALL}` once a benchmark ended) and the workers' "
        "REQ count every request since the process started: the benchmark's warm-up and smoke requests, `b`'s smoke "
        "tests and any client's too; the jobs list's ERR and `srt-tui status`'s REQ and ERR count the same (the "
        "router's, else the workers'). An ended job's `benchmark 30/30 completed` counts the benchmark's own measured "
        "requests only, those completed of its total, as Results (R) does. The router's `errors` count the answers "
        "it failed: a request waiting on a hung worker is none, nor is one its client gave up on (a smoke test's "
        "timeout)."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open"),
        # Esc goes back one step: on the list a kept `/` filter is that step, and the footer says so (it said
        # `esc Back` there, yet Esc cleared the filter and stayed), as the wizard's filters say `esc Close filter`
        Binding("escape", "back", "Back"),
        Binding("escape", "clear_filter", "Clear filter"),
        # the job view is a view on top of the list: `q` goes back to it, as from every view on top; on the list
        # this binding is off and the app's `q` quits (an operator quit with a job view open, meaning to go back)
        Binding("q", "leave_job", "Back", show=False),
        # the footer shows what fits its width (`FOOTER_GIVES_WAY`); the sort is named by the line under the list
        Binding("slash", "filter", "Filter", tooltip="Filter the jobs (Esc clears)"),
        Binding("s", "sort", "Sort", show=False, tooltip="Sort the jobs by the next column"),
        Binding("S", "reverse", "Reverse", show=False, tooltip="Reverse the jobs' order"),
        Binding("l", "logs", "Logs"),
        Binding("R", "results", "Results"),
        Binding("e", "events", "Events", tooltip="The job's events: every stage and worker health change, in order"),
        Binding("c", "cancel_job", "Cancel", tooltip="Cancel job (asks first)"),
        # `c` where there is nothing to cancel (an ended job, no job): why, in a toast (it did nothing visible)
        Binding("c", "no_cancel", "Why no cancel", show=False),
        Binding(
            "C", "clone", "Clone", tooltip="Clone the job into Launch: its recipe, profile and topology, on the preview"
        ),
        Binding("b", "smoke", "Smoke", tooltip="Smoke test: 20 requests through the job's URL, ok/failed, latency"),
        # `b` where no smoke test can run (the job has ended, is queued or still starting; the jobs list): why, in a
        # toast (it did nothing at all), while the footer offers Smoke only where it runs
        Binding("b", "no_smoke", "Why no smoke test", show=False),
        # a job's keys where no job is selected (`NEEDS_A_JOB` hides them): why, in a toast
        Binding("l,R,e,C", "no_job", "Why no job", show=False),
        Binding(
            "y",
            "copy_forward",
            "Copy SSH forward",
            show=False,  # the job view's url line says `y: copy`
            tooltip="Copy the `ssh -N -L` line that reaches the job's URL from a laptop",
        ),
        Binding(
            "a",
            "add_job",
            "Add job",
            show=False,  # in `?` help: at 80 columns the footer keeps ? and q
            tooltip="Add a job to watch: a job directory, or a job id (Slurm's or local-N) with a known directory",
        ),
        Binding("A", "all_jobs", "All jobs", tooltip="Every Slurm job of mine, also those srt-tui did not submit"),
        Binding("d,delete", "hide_job", "Remove", show=False),  # in `?` help, as a and r
        Binding("r", "refresh", "Refresh", show=False),
        # a short terminal scrolls the job view (the worker table keeps PgUp/PgDn): the `↓ more below` line says so
        Binding("ctrl+d", "scroll_job(1)", "Scroll down", show=False, tooltip="Scroll the job view half a page"),
        Binding("ctrl+u", "scroll_job(-1)", "Scroll up", show=False, tooltip="Scroll the job view back"),
    ]

    #: what is drawn: a change of any of these redraws the shown view (not under a modal or in another mode)
    snapshots: reactive[list[JobSnapshot]] = reactive(list, always_update=True, init=False)
    query_text: reactive[str] = reactive("", init=False)
    sort: reactive[str] = reactive("submitted", init=False)
    reverse: reactive[bool] = reactive(True, init=False)
    poll_error: reactive[str] = reactive("", init=False)
    last_took_s: reactive[float | None] = reactive(None, init=False)

    def __init__(
        self,
        hub: ContextHub,
        feed: SnapshotFeed | None = None,
        *,
        jobs: Mapping[str, Path] | None = None,
        snapshots: Sequence[JobSnapshot] = (),
        canceller: Canceller | None = None,
        discover: bool = True,
        poll_interval: float | None = POLL_INTERVAL_S,
        jobs_source: JobsSource | None = None,
    ) -> None:
        super().__init__(id="monitor")
        self.hub = hub
        self.feed: SnapshotFeed = feed if feed is not None else ChildFeed()
        self.canceller: Canceller = canceller or default_cancel
        self.tracked: dict[str, Path] = dict(jobs or {})
        self.discover = discover
        self._recovered = False
        self.poll_interval = poll_interval
        self.set_reactive(MonitorScreen.snapshots, list(snapshots))
        for s in self.snapshots:
            self.tracked.setdefault(s.job_id, Path(s.job_dir))
        self.focused_job: tuple[str, Path] | None = None
        self.selected: str | None = None
        self.polls = 0
        self._loop = RearmedLoop(self, self._start_poll)
        self._poll_worker: Worker[None] | None = None
        #: the all-jobs view's rows (A); a job opened from there goes back there on Esc
        self.jobs_source: JobsSource = jobs_source or LiveJobsSource()
        self._back_to_all = False
        #: removed from the list this session (d): a poll already under way must not bring them back
        self.removed: set[str] = set()
        #: the hidden jobs as the last discovery read them (None: no discovery): one shown again elsewhere
        #: (`srt-tui jobs --unhide`) leaves `removed`, one hidden elsewhere (`--hide`) leaves the list
        self._hidden_now: frozenset[str] | None = None
        #: the hidden set's file, read again on a refresh only when it changed on disk
        self._hidden_file = HiddenWatch()
        #: what the last refresh heard from Slurm and told the app, (ok, error): said again only when it changes
        self._slurm_said: tuple[bool, str] | None = None
        #: jobs opened or added on purpose this session: shown even when hidden
        self._on_purpose: set[str] = set()
        #: the view open over this screen that follows each refresh (a worker's detail, the events), or None
        self._detail: WorkerDetail | EventsScreen | None = None
        #: what the footer last showed: focus and each key's `check_action` (see `_keys_may_have_changed`)
        self._keys_shown: tuple[object, ...] = ()
        #: keys typed meanwhile wait for the refresh under way (the list before its first one, a job opened
        #: before its first snapshot: `2 g Enter l` found no row, `A … Enter l` no log yet)
        self._keys_wait = False
        #: the job just submitted and how (`focus_job`), until its snapshot is in and the filter checked against it
        self._reveal: tuple[str, str] | None = None
        #: what the first refresh reads until it answers (`reading the job index…`), said instead of `No jobs yet`
        self._reading = ""

    # -- layout -------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield AppHeader("monitor", self.hub)
        with ContentSwitcher(initial="jobs-view", id="monitor-views"):
            yield JobsView(id="jobs-view")
            yield JobView(id="job-view", login=login_address())
        yield FitFooter(FOOTER_GIVES_WAY)

    def on_mount(self) -> None:
        self.query_one("#jobs-table").focus()
        if self.poll_interval is not None and not self.snapshots:  # the first refresh: what it reads, said
            self._reading = "reading the job index…" if self.discover else ""
            if self.tracked:
                self._list_unread(self.tracked)
        self.redraw()
        # the header's Slurm probe going down (or back) redraws: the job view then marks Slurm's answers stale
        self.hub.watch(self, self._context_changed, init=False)
        if self.poll_interval is not None:
            self._wait_for_refresh()
            self.poll_now()

    def _wait_for_refresh(self, wait: bool = True) -> None:
        """Keys typed from now on wait for the refresh under way (or, ``wait`` False, it is in: they go on)."""
        if wait != self._keys_wait:
            self._keys_wait = wait
            self.post_message(HoldKeys(wait))

    async def on_unmount(self) -> None:
        self._loop.stop()
        await self.feed.aclose()
        if self.polls:  # what `_settle_heap` froze goes back to the collector (an app, or a test, that
            gc.unfreeze()  # outlives this screen must not keep its cycles forever)

    def on_screen_resume(self) -> None:
        self.redraw()

    def on_resize(self) -> None:
        self.redraw()

    # -- clock and state ----------------------------------------------------------------------------

    def now(self) -> datetime:
        """The app's clock (frozen in tests and screenshots)."""
        return self.hub.context.now()

    @property
    def read_only(self) -> bool:
        """`--read-only`: every mutating action is hidden."""
        return self.hub.context.read_only

    @property
    def in_job_view(self) -> bool:
        """Whether one job is shown in detail."""
        return self.query_one(ContentSwitcher).current == "job-view"

    def snapshot_of(self, job_id: str | None) -> JobSnapshot | None:
        """The latest snapshot of a job (None until the first refresh read it: a job only listed is no snapshot to act
        on, and keys typed for it wait for that refresh)."""
        return next((s for s in self.snapshots if s.job_id == job_id and not jobs_model.is_listed(s)), None)

    def current_job(self) -> str | None:
        """The job the keys act on: the one shown in detail, else the highlighted row."""
        if self.in_job_view:
            return self.selected
        return self.query_one(JobsView).highlighted_job

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Read-only mode hides the mutating actions (k9s); job-view keys only show there; what cannot apply to the job
        the keys act on is hidden (an ended job: no Cancel, Smoke or forward; a queued one: no Smoke) or, while it
        cannot yet, disabled (Smoke while the job starts). `redraw` and the list's cursor refresh the footer."""
        if action in ("cancel_job", "hide_job") and self.read_only:
            return False
        if action in NEEDS_A_JOB and self.current_job() is None:  # an empty list offered `l Logs`, `c Cancel`
            return False
        if action == "no_job":  # a job's key with no job (`l` falls through to this binding then)
            return self.current_job() is None
        if action in ("hide_job", "all_jobs"):  # list keys: the job view's footer stays as it was
            return not self.in_job_view
        snap = self.snapshot_of(self.current_job()) if action in ("cancel_job", "smoke", "copy_forward") else None
        if snap is not None and snap.is_final:  # nothing to cancel, nothing serves
            return False
        if action in ("smoke", "copy_forward"):  # one job's keys: shown in its view, usable once it serves
            if snap is not None and snap.stage == "pending":  # still queued: nothing will serve for a while
                return False
            return self.in_job_view and (None if snap is None or not snap.is_ready else True)
        if action == "no_smoke":  # `smoke` said no (`b` falls through to this binding then)
            return True
        if action == "no_cancel":  # `cancel_job` said no (`c` falls through to this binding then)
            return not self.read_only
        if action in ("open", "filter", "sort", "reverse"):
            return not self.in_job_view
        if action in ("scroll_job", "leave_job"):
            return self.in_job_view
        if action == "back":  # on the bare jobs list there is nothing to go back from: no `esc Back` there
            return self.in_job_view
        if action == "clear_filter":  # on the list, Esc clears a kept filter (`esc Back` falls through to this)
            return not self.in_job_view and self._filter_open()
        return not (action == "worker_detail" and not self.in_job_view)

    def palette_actions(self) -> list[PaletteAction]:
        """The palette's Monitor entries; the job ones only when a job is selected (`check_action` decides the rest)."""
        job = self.current_job()
        out = [PaletteAction("All jobs", "Every Slurm job of mine, also those srt-tui did not submit", "all_jobs"),
               PaletteAction("Add job", "Track a job launched elsewhere (id or directory)", "add_job"),
               PaletteAction("Refresh", "Poll every job now", "refresh")]  # fmt: skip
        if job is None:
            return out
        worker = self.query_one(WorkerTable).highlighted_worker if self.in_job_view else None
        return [
            PaletteAction("Open job", f"Job {job} in detail: GPUs, router, workers", "open"),
            PaletteAction("Open log", f"Follow the logs of job {job}", "logs"),
            PaletteAction("Results", f"Benchmark results of job {job} (and its sweep)", "results"),
            PaletteAction("Events", f"Job {job}'s stages and worker health changes, in order", "events"),
            PaletteAction("Cancel job", f"Cancel job {job} (asks first)", "cancel_job"),
            PaletteAction("Clone job", f"Job {job}'s recipe, profile and topology in Launch, on the preview",
                          "clone"),
            PaletteAction("Smoke test", f"Send {SMOKE_REQUESTS} requests through job {job}'s URL: ok/failed, latency",
                          "smoke"),
            PaletteAction("Copy SSH forward", f"The ssh -L line that reaches job {job}'s URL from a laptop",
                          "copy_forward"),
            PaletteAction("Remove job", f"Remove ended job {job} from the list (its directory is kept)", "hide_job"),
            *([PaletteAction("Worker detail", f"{worker}: command, env, GPUs, ports, health", "worker_detail")]
              if worker else []),
            *out,
        ]  # fmt: skip

    # -- polling (dolphie: re-arm only after the previous poll finished) ----------------------------

    def poll_now(self) -> None:
        """Start a poll now, or right after the one that is running."""
        self._loop.run_now()

    @property
    def _polling(self) -> bool:
        """A poll is under way (its snapshots have not arrived yet)."""
        return self._loop.running

    def _start_poll(self) -> None:
        self._poll_worker = self._poll(dict(self.tracked), self.discover)

    # not `exclusive`: cancelling a running refresh would only waste its probes; `_polling` is the guard,
    # and a poll is started only after the previous one finished
    @work(group="monitor-poll", name="monitor-poll", exit_on_error=False)
    async def _poll(self, jobs: dict[str, Path], discover: bool) -> None:
        started = time.monotonic()
        try:
            if discover:
                jobs = {**await self._discovered(), **jobs}
            snaps = await self.feed.refresh(jobs)
        except Exception as exc:  # the feed itself failed; sources failing are inside the snapshots
            self.post_message(PollFailed(f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(SnapshotsUpdated(snaps, time.monotonic() - started))

    async def _discovered(self) -> dict[str, Path]:
        """`_discover` in a thread, then the hidden set as it stands taken in (`_hidden_seen`)."""
        jobs = await asyncio.to_thread(self._discover)
        self._hidden_seen(await asyncio.to_thread(self._hidden_file.current))
        return jobs

    def _hidden_seen(self, hidden: frozenset[str]) -> None:
        """The hidden set as this refresh read it: a job hidden since the last one (`srt-tui jobs --hide 6` in
        another shell) leaves the list even if it was opened or submitted here on purpose: the later word wins (it
        stayed listed until a restart)."""
        if self._hidden_now is not None:
            self._on_purpose -= hidden - self._hidden_now
        self._hidden_now = hidden

    def _discover(self) -> dict[str, Path]:
        """Every job of the job index (file reads: run in a thread); the first time, listed at once (`JobsListed`)
        while the first refresh reads them."""
        from srt_tui.state.jobindex import index_warnings, job_bases, known_jobs, recover_interrupted

        # removed from the list (d): not discovered again; opened on purpose: shown
        hidden = self._hidden_file.current()
        if not self._recovered:  # once: damaged index entries, what an `apply` killed mid-submission left
            self._recovered = True
            if not self.polls:  # nothing shown yet: the index's jobs, before settling (which may ask Slurm)
                self.post_message(JobsListed({j: d for j, d in known_jobs().items() if j not in hidden}))
            from srt_tui.slurm.orphans import settle

            for note in [*index_warnings(), *settle(), *recover_interrupted(job_bases())]:
                self.app.call_from_thread(self.notify, note, severity="warning", timeout=20)
            hidden = self._hidden_file.current()
        return {j: d for j, d in known_jobs().items() if j not in hidden}

    @on(JobsListed)
    def _listed(self, message: JobsListed) -> None:
        self._list_unread({**message.jobs, **self.tracked})

    def _list_unread(self, jobs: Mapping[str, Path]) -> None:
        """Before the first refresh answers: ``jobs`` listed by id, their state and stage `…`/`reading…`, and the
        line under the list saying what is read (a slow Slurm or shared filesystem is shown, not waited on)."""
        if self.polls:
            return
        self._reading = jobs_model.reading_line(jobs) if jobs else ""
        shown = {s.job_id for s in self.snapshots}
        self.snapshots = [*self.snapshots, *(jobs_model.listed_row(j, d) for j, d in jobs.items() if j not in shown)]

    def _rearm(self) -> None:
        self._loop.finished(self.poll_interval)

    @on(SnapshotsUpdated)
    def _updated(self, message: SnapshotsUpdated) -> None:
        self.polls += 1
        self._reading = ""
        _settle_heap(full=self.polls % SETTLE_EVERY == 1)
        gone = set(self.removed)  # d during this poll
        if self._hidden_now is not None:
            self.removed &= self._hidden_now
            gone = self.removed | (self._hidden_now - self._on_purpose)  # and `srt-tui jobs --hide` elsewhere
            for job_id in gone:
                self.tracked.pop(job_id, None)
        shown = [s for s in message.snapshots if s.job_id not in gone]
        for s in shown:
            self.tracked.setdefault(s.job_id, Path(s.job_dir))
        self.set_reactive(MonitorScreen.last_took_s, message.took_s)
        self.set_reactive(MonitorScreen.poll_error, "")
        self.snapshots = shown  # one redraw for the three
        if self._detail is not None:
            self._detail.follow(self.snapshot_of(self._detail.job_id))
        self._tell_slurm(live_slurm(shown))
        self._reveal_focused()
        self._rearm()
        self._wait_for_refresh(False)

    def _tell_slurm(self, slurm: SourceState | None) -> None:
        """What this refresh heard from Slurm becomes the app's word (the header's), when it changed: the header
        asked every 30 s and said ✓ for half a minute after slurmctld had gone, while the job view said ✗."""
        said = (slurm.ok, slurm.error) if slurm is not None else None
        if slurm is None or said == self._slurm_said:
            return
        self._slurm_said = said
        reason = "the Monitor's Slurm query answered" if slurm.ok else f"the Monitor's Slurm query: {slurm.error}"
        self.app.post_message(SlurmStatus(slurm.ok, reason))

    @on(PollFailed)
    def _failed(self, message: PollFailed) -> None:
        self.poll_error = message.error
        self._rearm()
        self._wait_for_refresh(False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A poll that died without posting its result (it never should) still re-arms the loop."""
        if (
            event.worker is self._poll_worker
            and self._polling
            and event.state in (WorkerState.ERROR, WorkerState.CANCELLED)
        ):
            self._rearm()
            self._wait_for_refresh(False)

    # -- drawing ------------------------------------------------------------------------------------

    def _status_line(self) -> str:
        parts = [self._reading] if self._reading and not self.poll_error else []
        slurm = live_slurm(self.snapshots)
        if slurm is not None:
            parts.append("Slurm ✓" if slurm.ok else f"Slurm ✗ {shorten(slurm.error, 60, placeholder=' …')}")
        if self.poll_error:  # shortened at a word, never mid-word
            parts.append(f"refresh failed: {shorten(self.poll_error, 60, placeholder=' …')}")
        if self.read_only:
            parts.append("read-only")
        parts.append("A: all my Slurm jobs")
        if not self.poll_error and self.last_took_s is not None:  # last: what 80 columns may cut
            parts.append(f"refreshed in {self.last_took_s:.2f} s every {self.poll_interval:g} s")
        return " · ".join(parts)

    def _redraw_shown(self) -> None:
        """dolphie: skip drawing under a modal or in another mode (keep polling); resuming redraws."""
        if self.is_current:
            self.redraw()

    watch_snapshots = watch_query_text = watch_sort = watch_reverse = _redraw_shown
    watch_poll_error = watch_last_took_s = _redraw_shown

    def _context_changed(self, context: AppContext) -> None:
        """A new Slurm state from the app's probe redraws the job shown (not e.g. a new profile label)."""
        if context.slurm_state != self._slurm_drawn:
            self._slurm_drawn = context.slurm_state
            self.redraw()

    #: the app's Slurm state when the job view was last drawn
    _slurm_drawn = ""

    def redraw(self) -> None:
        """Draw the latest snapshots (the jobs table, and the job view when it is shown)."""
        if not self.is_mounted:
            return
        now = self.now()
        width = self.size.width or 80
        self.query_one(JobsView).show(
            self.snapshots,
            now,
            query=self.query_text,
            sort=self.sort,
            reverse=self.reverse,
            width=width,
            status=self._status_line(),
            reading=self._reading,
        )
        if self.in_job_view:
            slurm_down = self.hub.context.slurm_state == "down"
            self.query_one(JobView).show(self.snapshot_of(self.selected), now, width, slurm_down=slurm_down)
        self._keys_may_have_changed()  # a job that ended, or began to serve, changes what its keys can do

    @on(DataTable.RowHighlighted, "#jobs-table")
    def _row_highlighted(self) -> None:
        self._keys_may_have_changed()  # `c Cancel job` follows the highlighted job (none for an ended one)

    def _keys_may_have_changed(self) -> None:
        """Refresh the footer only when what the keys can do changed: a refresh recomposes Textual's Footer (a
        dozen widgets styled anew), which on every poll and cursor move was a third of a key's repaint."""
        keys = (b for bindings in self._bindings.key_to_bindings.values() for b in bindings)
        shown = (self.focused, *(self.check_action(b.action, ()) for b in keys))
        if shown != self._keys_shown:
            self._keys_shown = shown
            self.refresh_bindings()

    # -- navigation ---------------------------------------------------------------------------------

    def open_job(self, job_id: str) -> None:
        """Show one job in detail."""
        self.selected = job_id
        self.query_one(JobsView).follow(job_id)  # back in the list, the cursor is on this job
        self.query_one(ContentSwitcher).current = "job-view"
        slurm_down = self.hub.context.slurm_state == "down"
        self.query_one(JobView).show(self.snapshot_of(job_id), self.now(), self.size.width or 80, slurm_down=slurm_down)
        self.query_one("#job-workers").focus(scroll_visible=False)  # the summary first, at its top
        self.query_one(JobView).scroll_home(animate=False)
        self.refresh_bindings()

    def focus_job(self, job_id: str, job_dir: Path, how: str = "submitted") -> None:
        """Track (and show) the job that was just submitted (``how``: or `opened` from all my Slurm jobs), and refresh
        now; a kept `/` filter that would hide it from the list is cleared (`_reveal_focused`)."""
        self.focused_job = (job_id, job_dir)
        self.tracked[job_id] = job_dir
        self.removed.discard(job_id)  # opened on purpose: shown again
        self._on_purpose.add(job_id)
        self._reveal = (job_id, how)
        self._reveal_focused()
        if self.is_mounted:
            self.open_job(job_id)
            if self.poll_interval is not None:
                if self.snapshot_of(job_id) is None:  # its view fills with the refresh: keys wait for it
                    self._wait_for_refresh()
                self.poll_now()

    def focus_group(self, group: str, jobs: dict[str, Path]) -> None:
        """Track the jobs of a sweep just submitted and list its rows alone: the `/` filter set to its group id (the
        list's frame says so; Esc lists every job again), and refresh now."""
        for job_id, job_dir in jobs.items():
            self.tracked[job_id] = job_dir
            self.removed.discard(job_id)  # submitted on purpose: shown again
            self._on_purpose.add(job_id)
        self._reveal = None  # the filter is the group's: nothing to reveal past it
        if self.is_mounted:
            if self.in_job_view:
                self.action_back()
            self.query_one("#jobs-filter", Input).value = group
            self.query_text = group
            self.query_one("#jobs-table").focus()
            self.refresh_bindings()
            if self.poll_interval is not None:
                self.poll_now()

    @on(DataTable.RowSelected, "#jobs-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.open_job(str(event.row_key.value))

    @on(DataTable.RowSelected, "#job-workers")
    def _worker_selected(self, event: DataTable.RowSelected) -> None:
        self.action_worker_detail()

    def action_worker_detail(self) -> None:
        """The highlighted worker's detail; its `l` opens that worker's log in the log viewer."""
        name = self.query_one(WorkerTable).highlighted_worker
        snap = self.snapshot_of(self.selected)
        detail = worker_detail_for(snap, name, self.read_only) if self.in_job_view else None
        if detail is not None and name is not None:
            self._detail = detail
            self.app.push_screen(detail, partial(self._worker_detail_closed, name))

    def _worker_detail_closed(self, name: str, result: str | None) -> None:
        self._detail = None
        logs = self.query_one(JobView).logs()
        names = [ref.name for ref in logs]
        if result == "log" and name in names:  # the full-screen log viewer, on this worker's log
            viewer = LogViewerScreen(logs, names.index(name), ended=self._job_ended())
            self.app.push_screen(viewer, partial(self._worker_log_closed, name))

    def _worker_log_closed(self, name: str, _result: None = None) -> None:
        """Back from a log opened in a worker's detail: that detail again, as `q` and Esc go back one view at a
        time (they went back two, to the job view)."""
        if self.in_job_view and self.query_one(WorkerTable).highlighted_worker == name:
            self.action_worker_detail()

    def _job_ended(self) -> bool:
        """The job the keys act on has ended (its logs will not grow)."""
        snap = self.snapshot_of(self.current_job())
        return snap is not None and snap.is_final

    def action_scroll_job(self, direction: int) -> None:
        """ctrl+d / ctrl+u: the job view half a page down or up."""
        view = self.query_one(JobView)
        view.scroll_relative(y=direction * max(1, view.scrollable_content_region.height // 2), animate=False)

    def action_open(self) -> None:
        job = self.query_one(JobsView).highlighted_job
        if job is not None and not self.in_job_view:
            self.open_job(job)

    def action_leave_job(self) -> None:
        """`q` in the job view: back to the list (Esc's first step)."""
        self.action_back()

    def action_back(self) -> None:
        if self.in_job_view:
            self.query_one(ContentSwitcher).current = "jobs-view"
            self.query_one("#jobs-table").focus()
            self.redraw()
            self.refresh_bindings()
            if self._back_to_all:  # opened from all my Slurm jobs: back there
                self._back_to_all = False
                self.action_all_jobs()
            return
        self.action_clear_filter()

    def action_clear_filter(self) -> None:
        """Esc on the list: a kept `/` filter (or its field) cleared, every job listed again."""
        if self._filter_open():
            self._clear_filter()

    def _reveal_focused(self) -> None:
        """Once the job just submitted (`focus_job`) has a snapshot: a kept filter that would hide it is cleared, and
        a toast says so. As GitHub Desktop's usability test found of a branch filter kept past creating a branch, and
        k9s does by starting a view afresh when one jumps to a resource, the operator's attention has moved to the new
        job: a list that hides it (filter `8` hid a just-submitted job 14) leaves the cursor elsewhere, so the keys
        that act on the highlighted job (`c`, `l`, `R`) would act on another one."""
        if self._reveal is None or not self.is_mounted:
            return
        job_id, how = self._reveal
        snap = self.snapshot_of(job_id)
        if snap is None:  # its first refresh is on the way
            return
        self._reveal = None
        if self.query_text and not jobs_model.matches(snap, self.query_text):
            kept = self.query_text
            self._clear_filter()
            self.notify(f"Filter {kept!r} cleared: it would hide job {job_id}, just {how}.", timeout=8)

    def _clear_filter(self) -> None:
        """No filter: its field emptied and gone, every job listed, the keys to the list."""
        flt = self.query_one("#jobs-filter", Input)
        flt.value = ""
        self.query_text = ""
        flt.add_class("hidden")
        if not self.in_job_view:
            self.query_one("#jobs-table").focus()
        self.refresh_bindings()

    def _filter_open(self) -> bool:
        """Whether the jobs list is filtered or its filter shown (what Esc then clears)."""
        return bool(self.query_text) or not self.query_one("#jobs-filter", Input).has_class("hidden")

    def action_filter(self) -> None:
        if self.in_job_view:
            self.action_back()
        flt = self.query_one("#jobs-filter", Input)
        flt.remove_class("hidden")
        flt.focus()
        self.refresh_bindings()

    @on(Input.Changed, "#jobs-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.query_text = event.value.strip()

    @on(Input.Submitted, "#jobs-filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        """Enter opens the job the filter names best (the highlighted row), as Enter on the list and in every
        filter of the wizard do; the list, still filtered, is one Esc back. A filter matching nothing (or empty)
        leaves the keys to the list. The field leaves with the keys (`_filter_left`): the list's frame says the
        filter."""
        self.query_one("#jobs-table").focus()
        job = self.query_one(JobsView).highlighted_job
        if self.query_text and job is not None:
            self.open_job(job)
        self.refresh_bindings()

    @on(Input.Blurred, "#jobs-filter")
    def _filter_left(self) -> None:
        """The keys went back to the list (Enter, Tab, a click): the field goes, a kept filter said by the list's
        frame (`filter '8' · 4 of 21 jobs · Esc clears`; the field left on screen went unseen); `/` brings it back
        with the filter to edit. Not when a screen opened on top (the field keeps its place under it)."""
        if self.is_current:
            self.query_one("#jobs-filter").add_class("hidden")
            self.refresh_bindings()

    @on(DataTable.HeaderSelected, "#jobs-table")
    def _header(self, event: DataTable.HeaderSelected) -> None:
        key = str(event.column_key.value)
        key = {"status": "stage", "profile": "name", "topology": "name", "healthy": "stage", "router": "stage"}.get(
            key, key
        )
        if key == self.sort:
            self.reverse = not self.reverse
        elif key in SORTS:
            self._sort_by(key)

    def _sort_by(self, key: str) -> None:
        """Sort by `key`, largest first for the numbers and the newest first (one redraw)."""
        self.set_reactive(MonitorScreen.reverse, key in ("rate", "errors", "elapsed", "submitted"))
        self.sort = key

    def action_sort(self) -> None:
        """The next order among the columns on screen (and submission time, which has none): at 80 columns an
        order by a column that gave way showed no arrow anywhere."""
        shown = self.query_one(JobsView).shown_columns
        orders = [key for key in SORTS if key == "submitted" or key in shown or not shown]
        at = orders.index(self.sort) if self.sort in orders else -1
        self._sort_by(orders[(at + 1) % len(orders)])

    def action_reverse(self) -> None:
        self.reverse = not self.reverse

    def action_logs(self) -> None:
        """The log viewer, full screen, on the highlighted worker's log (the failing one on a failed job). From the
        jobs list, Esc in the viewer comes back to the list, where `l` was pressed (as lazygit and k9s do): it
        landed in the job view the log was read through."""
        from_list = not self.in_job_view
        if from_list:
            job = self.query_one(JobsView).highlighted_job
            if job is None:
                return
            self.open_job(job)
        choice = self.query_one(JobView).log_choice()
        if choice is None:
            if from_list:
                self.action_back()
            self.notify("This job has no log yet.", severity="warning")
            return
        back = self._log_closed_to_list if from_list else None
        self.app.push_screen(LogViewerScreen(*choice, ended=self._job_ended()), back)

    def _log_closed_to_list(self, _result: object = None) -> None:
        """The log viewer opened from the jobs list closed: the list again, its cursor on the job."""
        if self.in_job_view:
            self.action_back()

    def action_refresh(self) -> None:
        if self.poll_interval is None:
            self.redraw()
            return
        self.notify("refreshing…", timeout=1)
        self.poll_now()

    def action_results(self) -> None:
        """The job's Results view (its sweep's, when it is a member); it reads the files in a worker."""
        job = self.current_job()
        snap = self.snapshot_of(job)
        if job is None:
            self.notify("No job selected.", severity="warning")
            return
        job_dir = Path(snap.job_dir) if snap is not None else self.tracked.get(job)
        if job_dir is None:
            self.notify(f"{job}: its job directory is not known.", severity="warning")
            return
        tracked = {**{s.job_id: Path(s.job_dir) for s in self.snapshots}, **self.tracked}
        self.app.push_screen(ResultsScreen(self.hub, job, job_dir, tracked))

    def action_events(self) -> None:
        """The job's events, oldest first (its stages and the worker health changes seen); they follow each refresh."""
        snap = self.snapshot_of(self.current_job())
        if snap is None:
            self.notify("No job selected.", severity="warning")
            return
        self._detail = EventsScreen(self.hub, snap)
        self.app.push_screen(self._detail, self._events_closed)

    def _events_closed(self, _result: None = None) -> None:
        self._detail = None

    # -- cancel (confirmation first; hidden in read-only mode) -------------------------------------

    def action_cancel_job(self) -> None:
        if self.read_only:
            return
        job = self.current_job()
        snap = self.snapshot_of(job)
        if job is None or snap is None or snap.is_final:
            self.action_no_cancel()
            return
        how = (
            "the local launcher's stop (SIGTERM to the job's process group)"
            if is_local_job(job)
            else f"`scancel {job}`"
        )
        queued = snap.slurm_state == "PENDING"
        self.app.push_screen(ConfirmCancel(job, snap.name, how, queued), callback=partial(self._confirmed, job))

    def action_no_job(self) -> None:
        """A job's key (`l`, `R`, `e`, `C`) with no job selected: say so, and how to get one, not nothing."""
        self.notify(NO_JOB, severity="warning", timeout=5)

    def action_no_cancel(self) -> None:
        """`c` where nothing can be cancelled: why, as `srt-tui cancel` says it (`job 12 has ended (cancelled):
        nothing to cancel`); the footer offers Cancel only where it runs, and a key that did nothing was silent."""
        job = self.current_job()
        snap = self.snapshot_of(job)
        if job is None:
            self.notify(NO_JOB, severity="warning", timeout=5)
        elif snap is None:
            self.notify(f"job {job} has not been read yet: nothing to cancel now.", severity="warning", timeout=5)
        elif snap.is_final:
            self.notify(f"job {job} has ended ({snap.stage}): nothing to cancel.", severity="warning", timeout=5)
        else:  # it runs after all (a refresh in between): ask, as `c` does
            self.action_cancel_job()

    def _confirmed(self, job_id: str, yes: bool | None) -> None:
        snap = self.snapshot_of(job_id)
        if yes and snap is not None:
            self._cancel(job_id, Path(snap.job_dir))

    @work(thread=True, group="cancel", name="cancel", exit_on_error=False)
    def _cancel(self, job_id: str, job_dir: Path) -> None:
        try:
            detail = self.canceller(job_id, job_dir)
        except Exception as exc:  # shown to the operator, never raised into the app
            self.post_message(CancelFailed(job_id, f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(JobCancelled(job_id, detail or ""))

    @on(JobCancelled)
    def _cancelled(self, message: JobCancelled) -> None:
        self.notify(message.detail or f"Cancelled {message.job_id}.")
        if self.poll_interval is not None:
            self.poll_now()

    @on(CancelFailed)
    def _cancel_failed(self, message: CancelFailed) -> None:
        self.notify(f"Cancelling {message.job_id} failed: {message.error}", severity="error", timeout=10)

    # -- clone (C): the job back into the wizard --------------------------------------------------------

    def action_clone(self) -> None:
        """Read the job's recipe, profile and topology back (in a thread); the app opens Launch on its preview."""
        job = self.current_job()
        snap = self.snapshot_of(job)
        job_dir = Path(snap.job_dir) if snap is not None else self.tracked.get(job or "")
        if job is None or job_dir is None:
            self.notify("No job selected.", severity="warning")
            return
        self._clone(job, job_dir, (snap.launcher if snap is not None else "") or "slurm")

    @work(thread=True, group="clone", name="clone", exit_on_error=False)
    def _clone(self, job: str, job_dir: Path, launcher: str) -> None:
        from srt_tui.core.api import prepare_job
        from srt_tui.core.errors import SrtError
        from srt_tui.core.jobdir.clone import read_clone
        from srt_tui.tui.messages import CloneJob

        try:
            cloned = read_clone(job_dir)
            prepared = prepare_job(cloned.recipe, cloned.profile, cloned.source)
        except (SrtError, OSError) as exc:
            why = "; ".join(p.render() for p in exc.problems) if isinstance(exc, SrtError) else str(exc)
            self.app.call_from_thread(self.notify, f"Cannot clone {job}: {why}", severity="error", timeout=12)
            return
        self.post_message(CloneJob(cloned, prepared, launcher))

    # -- smoke test (b) and the SSH port-forward (y) ---------------------------------------------------

    def action_smoke(self) -> None:
        """Send requests through the job's public URL in a worker; the summary shows the outcome."""
        job = self.current_job()
        snap = self.snapshot_of(job)
        if job is None or snap is None:
            self.notify("No job selected.", severity="warning")
            return
        if any(w.name == "smoke" and w.is_running for w in self.workers):
            self.notify("A smoke test is already running.", severity="warning")
            return
        from srt_tui.monitor.probes.smoke import SmokeProgress

        view = self.query_one(JobView)
        view.smoke[job] = SmokeProgress(SMOKE_REQUESTS, SMOKE_CONCURRENCY).line()
        view.smoke_at[job] = self.now()
        self.redraw()
        self._smoke(snap)

    def action_no_smoke(self) -> None:
        """`b` where the smoke test cannot run: why, as `srt-tui bench` refuses it (`job 7 is not serving yet (stage
        router starting)`, `job 7 has ended (cancelled at …)`); from the list, where it runs."""
        from srt_tui.monitor.probes.smoke import not_serving

        if not self.in_job_view:
            self.notify("The smoke test (b) runs from a job's view: Enter opens the highlighted job.", timeout=5)
            return
        snap = self.snapshot_of(self.current_job())
        if snap is None:
            self.notify("No smoke test: this job has not been read yet.", severity="warning", timeout=5)
            return
        why = not_serving(snap, self.now())
        if why is None:  # it serves after all (a refresh in between): run it
            self.action_smoke()
            return
        self.notify(f"No smoke test: {why.message}.", severity="warning", timeout=8)

    @work(group="smoke", name="smoke", exit_on_error=False)
    async def _smoke(self, snap: JobSnapshot) -> None:
        from srt_tui.monitor.probes.smoke import NotServing, done_line, public_url, router_note, run_smoke

        try:
            url = await asyncio.to_thread(public_url, snap)  # reads endpoints.json
            result = await run_smoke(
                url, SMOKE_REQUESTS, SMOKE_CONCURRENCY, lambda p: self._smoke_progressed(snap.job_id, p.line())
            )
        except NotServing as exc:
            self.post_message(SmokeDone(snap.job_id, f"✗ {exc}", ok=False))
            return
        self.post_message(SmokeDone(snap.job_id, done_line(result, router_note(snap)), ok=result.failed == 0))

    def _smoke_progressed(self, job: str, line: str) -> None:
        """The running test's live line (`12/20 done, 0 failed · …`), told by its worker as each request ends and
        every second meanwhile: only the job view of that job is drawn again, not the jobs table."""
        if not self.is_mounted:
            return
        view = self.query_one(JobView)
        view.smoke[job] = line
        if self.in_job_view and self.selected == job:
            slurm_down = self.hub.context.slurm_state == "down"
            view.show(self.snapshot_of(job), self.now(), self.size.width or 80, slurm_down=slurm_down)

    @on(SmokeDone)
    def _smoke_done(self, message: SmokeDone) -> None:
        """The outcome goes to the job view's own `smoke test` line; a toast only where that line is not shown (the
        list, another job, a screen on top): at 80×24 a toast over the job view covered the workers' HEALTH."""
        view = self.query_one(JobView)
        view.smoke[message.job_id] = message.line
        view.smoke_at[message.job_id] = self.now()  # the job view says how long ago it ran
        shown = self.is_current and self.in_job_view and self.selected == message.job_id
        if not shown:
            self.notify(f"{message.job_id} smoke test: {message.line}",
                        severity="information" if message.ok else "error", timeout=10)  # fmt: skip
        self.redraw()

    def action_copy_forward(self) -> None:
        """Copy the SSH line that brings the job's URL to a laptop (OSC 52: works over SSH too)."""
        from srt_tui.tui.monitor.job_view import forward_line

        snap = self.snapshot_of(self.current_job())
        line = forward_line(snap, self.query_one(JobView).login) if snap is not None else None
        if line is None:
            self.notify("This job does not serve now: no URL to forward.", severity="warning")
            return
        self.app.copy_to_clipboard(line)
        self.notify(f"sent to the clipboard (OSC 52): {line}", timeout=4)

    # -- add a job launched elsewhere ----------------------------------------------------------------

    def action_add_job(self) -> None:
        from srt_tui.tui.prompts import PathPrompt

        self.app.push_screen(
            PathPrompt(
                "Add a job to watch: its Slurm job id, local id or job directory",
                note="Enter adds · Esc cancels",
                check=_why_not_a_job,
            ),
            callback=self._add_ref,
        )

    def _add_ref(self, ref: str | None) -> None:
        if ref:
            self._resolve(ref)

    @work(thread=True, group="add-job", name="add-job", exit_on_error=False)
    def _resolve(self, ref: str) -> None:
        from srt_tui.core.jobdir.contract import JobDirError, read_job_meta
        from srt_tui.state.jobindex import find_job_dir, remember_job

        path = find_job_dir(ref)
        if path is None:  # the prompt checked it: gone since
            self.post_message(AddFailed(ref, _why_not_a_job(ref) or "no job directory found for it"))
            return
        try:
            job_id = read_job_meta(path).job_id or path.name
        except JobDirError:  # tracked under its directory's name: the jobs table says what is wrong
            job_id = path.name
        remember_job(job_id, path)
        self.post_message(JobAdded(job_id, path))

    @on(JobAdded)
    def _added(self, message: JobAdded) -> None:
        self.tracked[message.job_id] = message.job_dir
        self._on_purpose.add(message.job_id)
        self.notify(f"Tracking {message.job_id} ({message.job_dir}).")
        if self.poll_interval is not None:
            self.poll_now()

    @on(AddFailed)
    def _add_failed(self, message: AddFailed) -> None:
        self.notify(f"Cannot add {message.ref}: {message.error}", severity="error", timeout=10)

    # -- all my Slurm jobs (A) and removing ended jobs from the list (d) ------------------------------

    def action_all_jobs(self) -> None:
        """Every Slurm job of the user; a job with an output directory chosen there opens here."""
        refresh = None if self.poll_interval is None else REFRESH_S
        screen = AllJobsScreen(self.hub, self.jobs_source, refresh_s=refresh)
        self.app.push_screen(screen, callback=self._from_all_jobs)

    def _from_all_jobs(self, chosen: OpenJob | None) -> None:
        if chosen is not None:
            self._back_to_all = True
            self.focus_job(chosen.job_id, chosen.job_dir, "opened")

    def action_hide_job(self) -> None:
        """Remove the highlighted ended job from the list (confirmed; its directory is kept)."""
        job = self.current_job()
        snap = self.snapshot_of(job)
        if job is None or snap is None or self.read_only:
            return
        if not snap.is_final:
            self.notify(f"{job} is {snap.stage}: only ended jobs leave the list (cancel it first).", severity="warning")
            return
        self.app.push_screen(ConfirmHide(job, snap.name, snap.job_dir), callback=partial(self._hidden, job))

    def _hidden(self, job_id: str, yes: bool | None) -> None:
        from srt_tui.state.hidden import hide

        if not yes:
            return
        hide([job_id])
        self.removed.add(job_id)
        self._on_purpose.discard(job_id)
        self.tracked.pop(job_id, None)
        self.snapshots = [s for s in self.snapshots if s.job_id != job_id]  # redraws (watch_snapshots)
        self.notify(f"Removed {job_id} from the list; its directory is kept (all jobs, A, then h shows it).")


def _settle_heap(full: bool) -> None:
    """After each refresh, move every object alive now (the app, the snapshots, the tables' render caches) out of
    the collector's generations; every `SETTLE_EVERY` refreshes, from the first, collect them all first. At 1,024
    endpoints a full collection walked them all and paused the event loop for up to ~0.3 s at random, inside a
    key press; frozen once only, what the refreshes and keys left in the oldest generation (~110k objects of
    render caches) still made each full pass 20-60 ms (benchmarks/monitor_keys.py). Frozen objects are still
    freed by reference counting; a cycle frozen before it became garbage waits for the next full collection."""
    if full:
        gc.unfreeze()
        gc.collect()
    gc.freeze()


def live_slurm(snapshots: list[JobSnapshot]) -> SourceState | None:
    """What Slurm said in the last refresh: the `slurm` source of a job still active (an ended job's snapshot is
    frozen with what Slurm said when it ended: the status line kept `Slurm ✓` with slurmctld gone)."""
    return next((src for snap in snapshots if not snap.is_final and (src := snap.source("slurm")) is not None), None)


def _why_not_a_job(ref: str) -> str | None:
    """Why `a` (Add job) cannot watch ``ref``, or None when it names a job directory (read from disk: run in a
    thread). Said under the field, which stays open to fix it."""
    from srt_tui.core.jobdir.contract import JOB_FILE
    from srt_tui.core.owned import valid_job_id
    from srt_tui.core.paths import default_output_dir
    from srt_tui.state.jobindex import find_job_dir

    if find_job_dir(ref) is not None:
        return None
    path = Path(ref).expanduser()
    if "/" in ref or ref.startswith(("~", ".")):
        if path.is_dir():
            return f"{path} holds no {JOB_FILE}: not a job directory srt-tui wrote"
        return f"{path} does not exist"
    if not valid_job_id(ref):
        return f"{ref!r} is neither a job id (digits, or local-<digits>) nor a job directory's path"
    return f"no job directory for job {ref} (not in my job index nor in {default_output_dir()}): give its directory"
