"""One job in detail: summary (with, while it serves, its URL, the SSH port-forward to it and the last
smoke test), per-node GPU grid (with utilisation when the job runs a GPU exporter), router panel, workers
with counters and sparklines; `l` opens one of its logs in the log viewer."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from textwrap import shorten
from typing import ClassVar

from rich.measure import Measurement
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from srt_tui.core.text.cut import cut_at_word
from srt_tui.monitor import cells
from srt_tui.monitor.files.jobfiles import quoted
from srt_tui.monitor.files.log_tail import strip_ansi
from srt_tui.monitor.model import JobSnapshot, LogRef
from srt_tui.monitor.role_health import stage_words
from srt_tui.slurm.client import ENDED_WITH_REASON
from srt_tui.slurm.reach import port_forward
from srt_tui.tui.display import hang
from srt_tui.tui.monitor.live_grid import LiveGpuGrid
from srt_tui.tui.monitor.router_panel import RouterPanel
from srt_tui.tui.monitor.serving_panel import ServingPanel
from srt_tui.tui.monitor.worker_table import WorkerTable
from srt_tui.widgets.fit_parts import pack_parts
from srt_tui.widgets.layout import is_tall, is_wide

#: the job view's last line while part of it is below the screen
MORE_BELOW = "↓ more below · ctrl+d scrolls down, ctrl+u up"
#: plan.json `frontend` of a job without a router (`none` in plans written before the fork's spellings)
DIRECT = ("", "direct", "none")


def state_words(snap: JobSnapshot) -> tuple[str, str]:
    """(who runs it and its state, the reason worth showing): `Slurm PENDING`/`Resources`, `local RUNNING`/``."""
    runner = "Slurm" if snap.launcher in ("", "slurm") else snap.launcher.lower()  # as the jobs table says it
    reason = snap.slurm_reason if snap.slurm_state == "PENDING" or snap.slurm_state in ENDED_WITH_REASON else ""
    return f"{runner} {snap.slurm_state}", "" if reason == "None" else reason  # snapshots not built by the monitor


def counted_by(snap: JobSnapshot) -> str:
    """Whose live counters make the job's totals (the router panel shows each router's own): the router's, every
    router's behind nginx, or the serving workers' when no router counts."""
    fronts = snap.routers or ((snap.router,) if snap.router is not None else ())
    counted = [r for r in fronts if r.requests is not None]
    if counted:
        return f"{len(counted)} routers" if len(counted) > 1 else "router"
    return "workers"


def requests_origin(snap: JobSnapshot) -> str:
    """Whose counters the job's `requests` are: `counted_by` while it runs; after the end the benchmark's
    measured requests (the router's total also counts warm-up and smoke requests) or the last seen."""
    if snap.is_final:
        return snap.requests_from if snap.requests is not None else ""
    return counted_by(snap) if snap.requests is not None else ""


def requests_words(snap: JobSnapshot) -> str:
    """The job's request and error counts named by whose they are, so they never contradict the router panel's
    or the workers' own: `requests 3.6k, errors 4 (router)`. After a benchmark, its own measured requests completed
    of its total, `benchmark 30/30 completed` (`28/30 completed, 2 failed`), from its results: never beside the
    router's count (`routed 43 in all` in its panel, as the workers' REQ), which also counts the warm-up and smoke
    requests (`benchmark 30 of 43 routed` read as two counts of one thing)."""
    if bench := cells.benchmark_words(snap):
        return bench
    number, errors, origin = cells.number(snap.requests), cells.number(snap.errors), requests_origin(snap)
    return f"requests {number}, errors {errors}" + (f" ({origin})" if origin else "")


def forward_line(snap: JobSnapshot, login: str) -> str | None:
    """The SSH line that brings the serving URL to a laptop (None when the job does not serve)."""
    url = snap.serving_url
    return port_forward(url, login) if url else None


def title_parts(snap: JobSnapshot, width: int | None) -> str:
    """The first line's facts after the job's id and name, whole ones dropped to fit ``width`` columns (the
    profile first: the header names it; then the node count: the GPU grid shows it; then the engine)."""
    title = len(f"{snap.job_id} {snap.name}  ")
    engine = f"{snap.engine} behind {snap.frontend}" if snap.frontend not in DIRECT else snap.engine
    nodes = f"{snap.nodes} node{'s' if snap.nodes != 1 else ''} × {snap.gpus_per_node} GPUs" if snap.nodes else ""
    parts = [p for p in (snap.topology, engine, f"profile {snap.profile}", nodes) if p]
    for least in (f"profile {snap.profile}", nodes, engine):
        if width is None or title + len(" · ".join(parts)) <= width:
            break
        parts = [p for p in parts if p != least]
    return " · ".join(parts)


def summary(
    snap: JobSnapshot,
    now: datetime,
    st: Callable[[str], Style],
    login: str = "",
    smoke: str = "",
    width: int | None = None,
    short: bool = False,
    *,
    slurm_down: bool = False,
) -> Text:
    """Three lines: who/what, where it is (state and stage), its counters and where the data came from (``st``
    maps ok/bad/dim/key to styles); while it serves, a fourth: its URL and the SSH port-forward from ``login``
    (on a line of its own when both do not fit ``width``); then the last smoke test (``short``: only its line's
    first whole parts). Within ``width`` the title drops whole facts rather than be cut, and the stage's detail
    wraps (None: everything on one line, for the tooltip)."""
    t = Text()
    t.append(f"{snap.job_id} {snap.name}", style=st("key"))
    t.append("  " + title_parts(snap, width), style=st("dim"))
    t.append("\n")
    where = state_line(snap, st, width)
    t.append_text(where)
    t.append("\n")
    counters = [Text(cells.elapsed_words(snap, now))]
    if expected := cells.starts_in(snap, now):  # Slurm's estimate, as `squeue --start` gives it
        counters.append(Text(expected))
    left, warn = cells.time_left(snap, now)
    if left:  # the scheduler ends the job at its limit: say so before it does
        counters.append(Text(("⚠ " if warn else "") + left, style=st("bad") if warn else Style()))
    counters += [Text(requests_words(snap)), Text(f"{cells.rate(snap.rate_per_s)} req/s")]
    # whole parts: one that does not fit beside the others starts the next line (at 80 columns the line was cut
    # `… errors 0 (router) · 0 r…`)
    for i, part in enumerate(counters):
        if i and width is not None and len(t.plain.rsplit("\n", 1)[-1]) + len(" · ") + part.cell_len > width:
            t.append("\n")
        elif i:
            t.append(" · ")
        t.append_text(part)
    # the sources last, in the first wording that fits beside the counters (at 80 columns they were cut after
    # `slurm ✓`), else on a line of their own; a failing one's error is whole in the Problems panel
    room = width - len(t.plain.rsplit("\n", 1)[-1]) - len(" · ") if width is not None else None
    wordings = sources_wordings(snap, st, slurm_down)
    beside = next((w for w in wordings if room is None or w.cell_len <= room), None)
    if beside is not None:
        t.append(" · ", style=st("dim"))
        t.append_text(beside)
    else:
        t.append("\n")
        t.append_text(next((w for w in wordings if width is None or w.cell_len <= width), wordings[-1]))
    t.append_text(reach_lines(snap, st, login, width, where.plain.split()))
    if smoke:
        t.append("\nsmoke test ", style=st("dim"))
        lines = packed(smoke, width - len("smoke test ") if width else None)[: 1 if short else None]
        # an ended job's is history (`smoke_words` marks it): not in the colours of how the job answers now
        style = "dim" if snap.is_final else "bad" if smoke.startswith("✗") else "ok"
        t.append(f"\n{' ' * len('smoke test ')}".join(lines), style=st(style))
    return t


#: the marks a finished smoke test's line starts with (all answered, or not / could not run)
SMOKE_OUTCOMES = ("✓", "✗")


def smoke_words(line: str, at: datetime | None, now: datetime, ended: bool) -> str:
    """The last smoke test's line with when it ran, from the app's clock, after its outcome: `✓ 20/20 ok, 0 failed ·
    2 min ago · latency …` (it said no time and stayed forever). An ended job keeps it as history, marked `2 min ago,
    before the job ended`: how its URL answered last is often the clue to why it ended, and this session alone knows
    it (a new TUI would not show it), so it is kept, never read as how the job answers now. A test still running
    (its live line, `12/20 done, …`, has no outcome mark) has no time yet."""
    if not line or at is None or not line.startswith(SMOKE_OUTCOMES):
        return line
    when = cells.ago((now - at).total_seconds()) + (", before the job ended" if ended else "")
    outcome, sep, rest = line.partition(" · ")
    return f"{outcome} · {when}{sep}{rest}"


#: the longest a failing source's error is in the summary, cut at a word (the Problems panel has it whole)
SOURCE_ERROR_MAX = 70


def sources_wordings(snap: JobSnapshot, st: Callable[[str], Style], slurm_down: bool = False) -> list[Text]:
    """Where the job's data came from, longest first: `sources slurm ✓  job dir ✓  http ✗ decode_0: connection
    refused …` (an error cut at a word), then without the errors, then `sources all ✓` or the failing ones alone,
    `sources ✗ http` (the Problems panel says why, and the tooltip has the whole line). ``slurm_down``: the app's
    probe says Slurm does not answer, so its last answer is marked `slurm ? stale`, never ✓ (the header read
    `Slurm ✗ unreachable` over `sources slurm ✓`)."""
    marks, full = Text.assemble(("sources ", st("dim"))), Text.assemble(("sources ", st("dim")))
    stale = [src.name for src in snap.sources if src.ok and slurm_down and src.name == "slurm"]
    for i, src in enumerate(snap.sources):
        sign, style = ("?", "dim") if src.name in stale else ("✓", "ok") if src.ok else ("✗", "bad")
        mark = Text.assemble("  " if i else "", f"{src.name} ", (sign, st(style)))
        marks.append_text(mark)
        full.append_text(mark)
        if src.name in stale:
            full.append(" stale: Slurm does not answer now", style=st("dim"))
        elif not src.ok and src.error:
            full.append(" " + shorten(src.error, SOURCE_ERROR_MAX, placeholder=" …"), style=st("bad"))
    failing = [src.name for src in snap.sources if not src.ok]
    brief = Text.assemble(("sources ", st("dim")))
    if failing:
        brief.append(f"✗ {', '.join(failing)}", style=st("bad"))
    if stale:
        brief.append(("  " if failing else "") + f"? {', '.join(stale)} stale", style=st("dim"))
    if not failing and not stale:
        brief.append("all ✓", style=st("ok"))
    return [full, marks, brief] if snap.sources else [Text("sources", style=st("dim"))]


def stage_detail(snap: JobSnapshot, reason: str) -> str:
    """The stage's detail worth adding after it: `serving at http://…`, not `serving serving…`, nor `benchmark
    c=4 (2/2) 12/30 req running the benchmark`; `Slurm PENDING
    (Resources) · stage pending`, not `… Resources`; a failure's sentence without its `; log: …` (the Problems
    panel names that log, and `l` opens it)."""
    detail, stage = snap.stage_detail, cells.stage_cell(snap)
    if not detail or stage.endswith(detail) or detail == reason:
        return ""
    if stage_words(snap)[1]:  # `degraded · no healthy decode worker (2 hung)`, not `… at http://…` (the url line)
        return ""
    if snap.bench is not None and snap.stage == "benchmark":  # its progress says more than `running the benchmark`
        return ""
    detail = detail.removeprefix(f"{snap.stage} ")
    return detail.removesuffix(f"; log: {snap.failure_log}") if snap.failure_log else detail


def state_line(snap: JobSnapshot, st: Callable[[str], Style], width: int | None) -> Text:
    """Where the job is, on a line of its own (at 80 columns a line is cut at its end, and the stage was the word
    cut when the counters came first): its state, stage and the stage's detail, which is never cut (a failure's
    sentence is why the job ended): past ``width`` the stage goes when it repeats the state (`Slurm FAILED ·
    stage failed`), then the detail wraps whole words onto indented lines."""
    state, reason = state_words(snap)
    head = Text(state)
    if reason:
        head.append(f" ({reason})", style=st("dim"))
    stage = Text.assemble(" · stage ", (cells.stage_cell(snap), st("key")))
    detail = stage_detail(snap, reason)
    too_long = width is not None and len(f"{head.plain}{stage.plain} {detail}") > width
    if detail and too_long and snap.stage == snap.slurm_state.lower():
        stage = Text(" ·")
    head.append_text(stage)
    if not detail:
        return head
    words = detail.split(" ")
    first = pack_parts([head.plain, *words], width, " ")[0][len(head.plain) :]
    rest = pack_parts(words[len(first.split()) :], width - 2 if width else None, " ")
    return Text.assemble(head, (first + "".join(f"\n  {line}" for line in rest), st("dim")))


def reach_lines(snap: JobSnapshot, st: Callable[[str], Style], login: str, width: int | None, shown: list[str]) -> Text:
    """While the job serves: `url` and the SSH port-forward from ``login`` (the laptop's localhost:PORT then
    reaches it), each whole: on one line when both fit ``width``, else the forward on a line of its own and the
    URL only when the state line has not ``shown`` it (`serving at http://…`)."""
    t = Text()
    url = snap.serving_url
    if not url:
        return t
    forward = forward_line(snap, login) if login else None
    hint = " (y: copy)"
    apart = forward is not None and width is not None and len(f"url {url} · {forward}{hint}") > width
    if not apart or url not in shown:
        t.append("\nurl ", style=st("dim"))
        t.append(url, style=st("key"))
    if forward is None:
        return t
    if apart:
        t.append("\nforward ", style=st("dim"))
        hint = hint if width is None or len(f"forward {forward}{hint}") <= width else ""
    else:
        t.append(" · ", style=st("dim"))
    t.append(forward)
    t.append(hint, style=st("dim"))
    return t


def packed(line: str, width: int | None) -> list[str]:
    """``line``'s ` · `-separated parts packed into lines of ``width``, so a figure wraps whole (the smoke test's
    TTFT at 80 columns) instead of being cut."""
    return pack_parts(line.split(" · "), width)


class JobSummary(Static):
    """The summary lines, coloured from the theme."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "job-summary--ok",
        "job-summary--bad",
        "job-summary--dim",
        "job-summary--key",
    }

    DEFAULT_CSS = """
    JobSummary { height: auto; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    JobSummary > .job-summary--ok { color: $text-success; }
    JobSummary > .job-summary--bad { color: $text-error; text-style: bold; }
    JobSummary > .job-summary--dim { color: $text-muted; }
    JobSummary > .job-summary--key { color: $text-primary; text-style: bold; }
    """

    def show(
        self,
        snap: JobSnapshot | None,
        now: datetime,
        login: str = "",
        smoke: str = "",
        width: int | None = None,
        short: bool = False,
        *,
        slurm_down: bool = False,
    ) -> None:
        """Redraw within ``width`` columns (the screen's; the padding is taken off here), the smoke test on one
        line when ``short``; what a line had to leave out is in the tooltip."""
        if snap is None:
            self.update(Text("Waiting for the first refresh of this job…", style=self._st("dim")))
            self.tooltip = None
            return
        inner = width - 2 if width else None
        shown = summary(snap, now, self._st, login, smoke, inner, short, slurm_down=slurm_down)
        self.update(shown)
        whole = summary(snap, now, self._st, login, smoke, slurm_down=slurm_down).plain
        cut = inner is not None and (whole != shown.plain or any(len(x) > inner for x in whole.splitlines()))
        self.tooltip = whole if cut else None

    def _st(self, name: str) -> Style:
        return self.get_component_rich_style(f"job-summary--{name}", partial=True)


#: the deepest a Problems line's wrapped lines go (a long subject would leave them no room)
HANG_MAX = 20


class ProblemsPanel(Static):
    """What is wrong (failing sources, down router, unhealthy workers) and the last log lines of each."""

    _snap: JobSnapshot | None = None

    COMPONENT_CLASSES: ClassVar[set[str]] = {"problems-panel--bad", "problems-panel--dim"}

    DEFAULT_CSS = """
    ProblemsPanel { height: auto; max-height: 9; padding: 0 1; margin: 0 1; border: round $error 60%; }
    ProblemsPanel > .problems-panel--bad { color: $text-error; }
    ProblemsPanel > .problems-panel--dim { color: $text-muted; }
    """

    def show(self, snap: JobSnapshot | None) -> None:
        """Redraw; hidden when nothing is wrong. Why the job ended is the summary's (whole, on its state line):
        here the log that says so with its one line that says why (`failure_line`, read by the Monitor's
        refresh from the log's tail), and what else is wrong."""
        if snap is None:
            self.display = False
            return
        self._snap = snap
        bad = self.get_component_rich_style("problems-panel--bad", partial=True)
        dim = self.get_component_rich_style("problems-panel--dim", partial=True)
        text = Text()
        for line in cells.problems(snap, with_log=False, with_stage=False):
            self._hang(text, line, bad)
        failing = snap.failing_worker
        unwritten = " (never written)" if snap.failure_log_missing else ""
        if snap.failure_log and failing is None:  # an infra/router log: its path and lines, as a worker's below
            self._hang(text, f"{failing_name(snap)}: {snap.failure_log}{unwritten}", dim)
            self._log_lines(text, snap.failure_tail, snap, bad, dim)
        # the worker that failed the job first, then the others that are not healthy (not those that merely
        # stopped with an ended job)
        for w in sorted(snap.workers, key=lambda w: w.name != failing):
            unwell = w.health not in ("healthy", "unknown") and not snap.stopped_with_job(w.name)
            if w.name == failing or (w.log_tail and unwell):
                mine = w.name == failing
                self._hang(text, f"{w.name}: {w.log}{unwritten if mine else ''}", dim)
                self._log_lines(text, w.log_tail, snap if mine else None, bad, dim)
        text.rstrip()
        self.display = bool(text)
        self.update(text)

    def _log_lines(self, text: Text, tail: tuple[str, ...], failed: JobSnapshot | None, bad: Style, dim: Style) -> None:
        """A log's last lines under its name, with why the job failed when this log is the failing one (``failed``):
        what the job recorded of the step's end (`it was killed by signal 9 …`) and its line that says why."""
        said = failed.failure_line if failed is not None else ""
        notes = [x for x in cells.failure_why(failed) if x != said] if failed is not None else []
        for line, why in log_lines(tail, said, *notes):
            self._hang(text, f"  {cut_at_word(line, PROBLEM_LINE_MAX)}", bad if why else dim)

    def on_resize(self) -> None:
        if self._snap is not None:  # wrap again to the new width
            self.show(self._snap)

    def _hang(self, text: Text, line: str, style: Style) -> None:
        """Append ``line`` and a newline, its wrapped lines in its value column: after its subject (`decode_1 `,
        `decode_1: `) or under its own indent (a log line), not at column 0, where they read as a problem of their
        own (as the worker detail's health history wraps)."""
        stripped = line.lstrip(" ")
        lead = len(line) - len(stripped)
        subject = stripped.split(" ", 1)[0] if " " in stripped else ""
        indent = lead if lead else min(len(subject) + 1, HANG_MAX)
        width = self.content_region.width
        # the first line as wide as the panel; the rest wrapped to the value column's width
        first = Text(line, style=style).wrap(self.app.console, width)[0] if width - indent > 10 else None
        rest = line[len(first.plain) :].strip(" ") if first is not None else ""
        if first is None or not rest:
            text.append(line + "\n", style=style)
            return
        text.append_text(first)
        text.append("\n")
        hang(text, Text(rest, style=style), self.app.console, width, indent)


#: the longest a log line is in the Problems panel, cut at a word
PROBLEM_LINE_MAX = 200
#: a worker's last log lines the Problems panel shows
TAIL_LINES = 3


def log_lines(tail: tuple[str, ...], said: str, *notes: str) -> list[tuple[str, bool]]:
    """A worker's lines in the Problems panel, each with whether it says why the job failed, in file order: the
    log's last ``TAIL_LINES``, the one that says why (``said``) marked where it is, or first when it comes before
    them; ``notes`` (the log explains nothing: `no error in its log; it was killed by signal 9 …`; or it was never
    written, and srun's own lines say why) before them. The line that says why was put first wherever it was
    (`ready`, then the lines above it, out of file order)."""
    last = tail[-TAIL_LINES:]
    plain = [quoted(strip_ansi(line)) for line in last]
    out = [(note, True) for note in notes if note]
    if said and said not in plain:
        out.append((said, True))
    out += [(line, bool(said) and p == said) for line, p in zip(last, plain)]
    return out


def failing_name(snap: JobSnapshot) -> str:
    """The name of the log that failed the job (`nats`), or its file name when the job lists no such log."""
    from srt_tui.monitor.snapshot.build import failing_ref

    ref = failing_ref(snap.failure_log, snap.logs)
    return ref.name if ref is not None else snap.failure_log.rsplit("/", 1)[-1]


class JobView(Vertical):
    """`show(snapshot, now, width)` redraws; `log_choice()` says which log `l` opens. ``login`` is the
    `user@host` of the port-forward line; ``smoke`` the last smoke test's line per job, ``smoke_at`` when it ran."""

    def __init__(self, *, id: str | None = None, login: str = "") -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(id=id)
        self.snapshot: JobSnapshot | None = None
        self.login = login
        self.smoke: dict[str, str] = {}
        #: when each job's smoke test ended (or started, while it runs), by the app's clock
        self.smoke_at: dict[str, datetime] = {}

    def compose(self) -> ComposeResult:
        yield JobSummary("", id="job-summary")
        with Horizontal(id="job-top"):
            yield LiveGpuGrid(id="job-grid")
            yield RouterPanel(id="job-router")
        yield ServingPanel(id="job-serving")
        yield WorkerTable(id="job-workers")
        yield ProblemsPanel("", id="job-problems")
        yield Static(MORE_BELOW, id="job-more")

    def on_mount(self) -> None:
        self.query_one("#job-top").border_title = "GPUs · router"
        self.query_one("#job-workers").border_title = "Workers"
        self.query_one("#job-problems").border_title = "Problems"
        self.watch(self, "scroll_y", lambda: self._say_more(), init=False)

    def on_resize(self) -> None:
        self.call_after_refresh(self._say_more)

    def _say_more(self) -> None:
        """`↓ more below` on the view's last line while part of it is below (a short terminal: 80x24)."""
        more = self.query_one("#job-more", Static)
        below = self.max_scroll_y - self.scroll_y >= 1
        if more.display != below:
            more.display = below

    def show(self, snap: JobSnapshot | None, now: datetime, width: int, *, slurm_down: bool = False) -> None:
        """Redraw from a snapshot (None: the job has not been refreshed yet); on a short terminal (80x24) the
        panels above the workers keep to one line where they can, so ~4 workers stay on the first screen.
        ``slurm_down``: the app's Slurm probe says Slurm does not answer, so its last answer is stale."""
        self.snapshot = snap
        short = not is_tall(self.app.size.height)
        smoke = (
            smoke_words(self.smoke.get(snap.job_id, ""), self.smoke_at.get(snap.job_id), now, snap.is_final)
            if snap is not None
            else ""
        )
        self.query_one(JobSummary).show(snap, now, self.login, smoke, width, short, slurm_down=slurm_down)
        grid, top = self.query_one(LiveGpuGrid), self.query_one("#job-top")
        grid.wide = is_wide(width)
        grid.legend_below = not short
        grid.room = width - top.styles.margin.width - top.styles.gutter.width - grid.styles.margin.right
        grid.snapshot = snap
        top.border_subtitle = grid.legend() if short else None
        self.query_one(RouterPanel).snapshot = snap
        self._place_router(width)
        problems = self.query_one(ProblemsPanel)
        problems.show(snap)
        panel = self.query_one(ServingPanel)
        panel.short = short
        panel.crowded = bool(problems.display)
        panel.ended = snap is not None and snap.is_final
        panel.measured = snap is not None and snap.requests_from == "benchmark"
        panel.serving = snap.serving if snap is not None else None
        self.query_one(WorkerTable).show(snap, width)
        self.call_after_refresh(self._say_more)

    def _place_router(self, width: int) -> None:
        """The router panel beside the GPU grid when the room left by the grid holds its widest part, else under the
        grid with the panel's whole width (from 60 to 79 columns it had ~8: `registe` / `red P`; at 40, none)."""
        top, grid, router = self.query_one("#job-top"), self.query_one(LiveGpuGrid), self.query_one(RouterPanel)
        console = self.app.console
        grid_width = Measurement.get(console, console.options, grid.render()).maximum
        room = width - top.styles.margin.width - top.styles.gutter.width - grid_width - grid.styles.margin.right
        top.set_class(router.needed_width() > room, "-stacked")

    def logs(self) -> list[LogRef]:
        """Every log of the job."""
        return list(self.snapshot.logs) if self.snapshot is not None else []

    def log_choice(self) -> tuple[list[LogRef], int] | None:
        """The job's logs and the one `l` opens: the highlighted worker's, else the one that failed the
        job (the launch script's output when srun never started that step), else the router's, else the launch
        script's output (None: the job has no log yet)."""
        logs = self.logs()
        if not logs:
            return None
        from srt_tui.monitor.snapshot.build import failing_ref

        worker = self.query_one(WorkerTable).highlighted_worker
        snap = self.snapshot
        failed = failing_ref(snap.failure_log, snap.logs) if snap is not None and snap.failure_log else None
        if snap is not None and snap.failure_log_missing:  # srun never started it: its words are in Slurm's output
            failed = next((ref for ref in logs if ref.kind == "job"), failed)
        workers = {w.name for w in snap.workers} if snap is not None else set()
        if failed is not None and failed.name not in workers:
            return logs, logs.index(failed)  # no worker failed the job: `l` opens what did (nats, etcd, nginx…)
        picks: list[Callable[[LogRef], bool]] = [
            lambda ref: ref.name == worker,
            lambda ref: failed is not None and ref == failed,
            lambda ref: ref.kind == "router",
            lambda ref: ref.kind == "job",
        ]
        for pick in picks:
            index = next((i for i, ref in enumerate(logs) if pick(ref)), None)
            if index is not None:
                return logs, index
        return logs, 0
