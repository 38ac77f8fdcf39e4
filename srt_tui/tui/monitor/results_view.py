"""The Results view of a job (Monitor, `R`): its per-concurrency table and two terminal plots.

Output tok/s per GPU against tok/s per user (srtctl's Pareto axes) and latency against concurrency,
drawn with textual-plotext. A sweep member is compared with the group's other tracked members on one
plot, the Pareto frontier marked. Reading the files runs in a thread worker; the screen only draws.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import DataTable, Footer, Static
from textual_plotext import PlotextPlot

from srt_tui.core.jobdir.contract import SweptValue
from srt_tui.core.results.model import LevelResult
from srt_tui.core.results.swept import CONCURRENCY, latency_axis
from srt_tui.core.results.table import LabelledResults, number
from srt_tui.core.text.counts import counted
from srt_tui.tui.context import ContextHub
from srt_tui.tui.dismiss_once import DismissOnce
from srt_tui.tui.header import AppHeader
from srt_tui.tui.monitor.results_load import Comparison, load_comparison, pareto_frontier
from srt_tui.tui.workers import ReportsWorkerErrors
from srt_tui.widgets.fit_columns import FitColumn, Fitted, fit, natural_widths, total_width
from srt_tui.widgets.fit_parts import pack_parts
from srt_tui.widgets.row_table import RowTable

#: the latencies, each a column: both figures (`TTFT p50/p99`) where they fit, else each its median (`TTFT p50`)
LATENCIES = (("ttft", "TTFT"), ("tpot", "TPOT"), ("itl", "ITL"), ("e2e", "E2E"))
#: the columns that stay with both figures of each latency: narrower, every latency shows its median instead
PAIRS_KEEP = 2
#: the table's vertical scrollbar
SCROLLBAR = 2
#: the latency plot's x axis of one concurrency C spans 0 to C times this: the points (at C) clear of the legend
ONE_CONCURRENCY_X = 1.15


def columns(sweep: bool, pairs: bool, params: tuple[str, ...] = ()) -> tuple[FitColumn, ...]:
    """Every column, in order, with its priority: 0 always shown, higher numbers give way first on a narrow terminal,
    whole (at 80 columns the header read `TTFT p50/p99  TPO`, then TPOT and ITL had given way and E2E was none).
    JOB stays in a sweep, followed by what it varies (``params``: `OSL`); one job's table gives JOB up first (the title
    names the job)."""
    figures = " p50/p99" if pairs else " p50"
    return (
        FitColumn("job", "JOB", 0 if sweep else 4), *(FitColumn(f"swept:{p}", p.upper(), 0) for p in params),
        FitColumn("conc", "CONC", 0), FitColumn("ok", "OK", 5),
        FitColumn("fail", "FAIL", 2), FitColumn("rps", "REQ/S", 6), FitColumn("out", "OUT TOK/S", 3),
        FitColumn("gpu", "TOK/S/GPU", 0), FitColumn("user", "TOK/S/USER", 0),
        *(FitColumn(key, name + figures, 0 if key in ("ttft", "tpot") else 1) for key, name in LATENCIES),
    )  # fmt: skip


def fitted_columns(
    rows: list[dict[bool, dict[str, str | Text]]], sweep: bool, room: int, params: tuple[str, ...] = ()
) -> tuple[tuple[Fitted, ...], bool]:
    """The columns that fit ``room`` and whether latencies show both figures: they do while that keeps every column
    of priority `PAIRS_KEEP` or less, FAIL among them; else each latency shows its median, so TPOT, ITL and E2E stay
    at 80 columns."""

    def fitted(pairs: bool) -> tuple[Fitted, ...]:
        cols = columns(sweep, pairs, params)
        plain = ({k: v.plain if isinstance(v, Text) else v for k, v in row[pairs].items()} for row in rows)
        return fit(cols, natural_widths([c.key for c in cols], plain), room)

    both = fitted(True)
    kept = {f.key for f in both}
    if (
        all(c.key in kept for c in columns(sweep, True, params) if c.priority <= PAIRS_KEEP)
        and total_width(both) <= room
    ):
        return both, True
    return fitted(False), False


class ResultsLoaded(Message):
    """The worker read the job's (and its sweep's) results."""

    def __init__(self, comparison: Comparison) -> None:
        super().__init__()
        self.comparison = comparison


class ResultsFailed(Message):
    """The worker could not read them (shown in the view, never raised)."""

    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


#: one colour per job, the same in the plots (plotext's name) and in the table's JOB cell (Rich's name)
COLOURS = (("cyan", "cyan"), ("magenta", "magenta"), ("green", "green"), ("orange", "dark_orange"),
           ("yellow", "yellow"), ("red", "red"))  # fmt: skip


def _cells(
    job: LabelledResults, values: Mapping[str, SweptValue], lv: LevelResult, colour: str, pairs: bool
) -> dict[str, str | Text]:
    """One row's cells by column key: the job's swept values (``values``) under `swept:<param>`, each latency as
    `p50/p99` (``pairs``) or its median."""
    latencies = {"ttft": lv.ttft, "tpot": lv.tpot, "itl": lv.itl, "e2e": lv.e2el}
    return {
        "job": Text(job.job, style=f"bold {colour}"),
        **{f"swept:{p}": str(v) for p, v in values.items()},
        "conc": str(lv.concurrency),
        "ok": "-" if lv.completed is None else str(lv.completed),
        "fail": "-" if lv.failed is None else str(lv.failed),
        "rps": number(lv.request_throughput, 2),
        "out": number(lv.output_throughput),
        "gpu": number(lv.output_per_gpu),
        "user": number(lv.output_per_user),
        **{key: f"{number(lat.p50)}/{number(lat.p99)}" if pairs else number(lat.p50) for key, lat in latencies.items()},
    }


def series_points(series: list[tuple[LabelledResults, list[tuple[float, float]]]]) -> list[tuple[float, float]]:
    """Every plotted point of every job."""
    return [p for _, xy in series for p in xy]


def _padded(values: list[float]) -> tuple[float, float]:
    """Axis limits a tenth of the range beyond the data, so no point sits on the frame, and at least a twentieth
    of the values themselves: points a hair apart (394.0 and 394.4 tok/s) are not spread over the whole axis
    with six-digit ticks, as if they differed."""
    low, high = min(values), max(values)
    pad = max((high - low) * 0.1, abs(high) * 0.05) or 1.0
    return max(low - pad, 0.0), high + pad


class ResultsScreen(ReportsWorkerErrors, DismissOnce[None]):
    """One job's results (a sweep's, when it is a member); Esc goes back to the Monitor."""

    DEFAULT_CSS = """
    ResultsScreen #results-title { height: auto; padding: 0 1; color: $text-muted; }
    ResultsScreen #results-table { height: auto; max-height: 40%; }
    ResultsScreen #results-plots { height: 1fr; }
    ResultsScreen #results-plots PlotextPlot { width: 1fr; height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        # `q` leaves a view opened on top, as in the log viewer and Help (on a mode's screen it quits)
        Binding("q", "back", "Back", show=False),
        Binding("r", "reload", "Reload"),
    ]

    def __init__(self, hub: ContextHub, job_id: str, job_dir: Path, tracked: Mapping[str, Path]) -> None:
        super().__init__(id="results")
        self.hub = hub
        self.job_id = job_id
        self.job_dir = job_dir
        self.tracked = dict(tracked)
        self.comparison: Comparison | None = None

    def compose(self) -> ComposeResult:
        yield AppHeader("monitor", self.hub)
        yield Static(f"Results of {self.job_id}: reading {self.job_dir} …", id="results-title")
        yield RowTable[str | Text](id="results-table", cursor_type="row", zebra_stripes=True)
        with Horizontal(id="results-plots"):
            yield PlotextPlot(id="results-pareto")
            yield PlotextPlot(id="results-latency")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()
        self.action_reload()

    def on_resize(self) -> None:
        if self.comparison is not None:
            self._fill(self.comparison)

    def _fill(self, c: Comparison) -> None:
        """The rows, in the columns that fit the screen's width (the least important give way whole)."""
        rows = [
            {pairs: _cells(job, values, lv, COLOURS[i % len(COLOURS)][1], pairs) for pairs in (True, False)}
            for i, (job, values) in enumerate(c.swept)
            for run in job.results.runs
            for lv in run.levels
        ]
        room = (self.size.width or 120) - SCROLLBAR
        fitted, pairs = fitted_columns(rows, c.group is not None, room, c.params)
        table = self.query_one(RowTable)
        table.refit(fitted)
        for row in rows:
            table.add_row(*(row[pairs][column.key] for column in fitted))
        if c.has_results:  # its parts whole on each line (at 80 columns `· ◆` ended a line, `Pareto frontier` the next)
            parts = [self._head(c), "latencies in ms", "◆ Pareto frontier"]
            self.query_one("#results-title", Static).update("\n".join(pack_parts(parts, (self.size.width or 120) - 2)))

    def action_back(self) -> None:
        self.dismiss(None)

    def action_reload(self) -> None:
        self._load(self.job_id, self.job_dir, self.tracked)

    @work(thread=True, exclusive=True, group="results", name="results", exit_on_error=False)
    def _load(self, job_id: str, job_dir: Path, tracked: Mapping[str, Path]) -> None:
        try:
            comparison = load_comparison(job_id, job_dir, tracked)
        except Exception as exc:  # a directory that vanished or cannot be read: said in the view
            self.post_message(ResultsFailed(f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(ResultsLoaded(comparison))

    @on(ResultsFailed)
    def _failed(self, message: ResultsFailed) -> None:
        self.query_one("#results-title", Static).update(f"Results of {self.job_id}: cannot read them: {message.error}")

    @on(ResultsLoaded)
    def _loaded(self, message: ResultsLoaded) -> None:
        self.comparison = c = message.comparison
        title = self.query_one("#results-title", Static)
        head = self._head(c)
        if not c.has_results and c.manual:  # waiting would not help: say so, and what measures it instead
            title.update(
                f"{head}: no results: this job runs no benchmark (benchmark: manual), so none will come. For figures, "
                f"`b` in its job view sends a smoke test (`srt-tui bench {c.job_id}` from a shell)."
            )
        elif not c.has_results:
            title.update(f"{head}: no benchmark results yet (no sa-bench_*/results_concurrency_*.json in its logs).")
        # nothing to draw: no empty table and plot frames across the screen under the title (operator pass 9)
        for part in ("#results-table", "#results-plots"):
            self.query_one(part).display = c.has_results
        self._fill(c)
        self._draw_pareto(c)
        self._draw_latency(c)

    @staticmethod
    def _head(c: Comparison) -> str:
        """The title's first part: the job, or the sweep and its members."""
        if c.group is not None:
            return f"Sweep {c.group}: {counted(len(c.jobs), 'member')} ({', '.join(j.job for j in c.jobs)})"
        return f"Results of {c.job_id} {c.jobs[0].name}".rstrip()

    def _draw_pareto(self, c: Comparison) -> None:
        widget = self.query_one("#results-pareto", PlotextPlot)
        plt = widget.plt
        plt.clear_data()
        plt.clear_figure()
        series: list[tuple[LabelledResults, list[tuple[float, float]]]] = []
        for job in c.jobs:
            pts = [(lv.output_per_user, lv.output_per_gpu) for lv in job.results.levels]
            series.append((job, [(x, y) for x, y in pts if x is not None and y is not None]))
        points = series_points(series)
        frontier = pareto_frontier(points)
        if frontier:  # a thin line under the points, each frontier point marked on top of them
            plt.plot([x for x, _ in frontier], [y for _, y in frontier], marker="braille", color="gray")
        # no legend: it would hide the points at high throughput/GPU; each job's colour is its JOB cell's
        for i, (_, xy) in enumerate(series):
            if xy:
                plt.scatter([x for x, _ in xy], [y for _, y in xy], marker="●", color=COLOURS[i % len(COLOURS)][0])
        if frontier:
            plt.scatter([x for x, _ in frontier], [y for _, y in frontier], marker="◆", color="white")
            plt.xlim(*_padded([x for x, _ in points]))
            plt.ylim(*_padded([y for _, y in points]))
        plt.title("out tok/s/GPU vs tok/s/user")
        plt.xlabel("tok/s/user")
        widget.refresh()

    def _draw_latency(self, c: Comparison) -> None:
        """Latency against concurrency, or, for a sweep whose members all ran one concurrency, against what it
        varies (`latency_axis`); TTFT on the right axis where one line is drawn (one job, a sweep of one parameter)."""
        widget = self.query_one("#results-latency", PlotextPlot)
        plt = widget.plt
        plt.clear_data()
        plt.clear_figure()
        axis = latency_axis(c.swept)
        highest = {"left": 0.0, "right": 0.0}
        drawn: set[float] = set()
        ttfts: set[float] = set()
        one_line = c.group is None or not axis.per_job and len(axis.series) == 1
        for i, series in enumerate(axis.series):
            points = [(x, lv) for x, lv in series.points if lv.tpot.p50 is not None]
            if not points:
                continue
            highest["left"] = max(highest["left"], *(lv.tpot.p50 or 0.0 for _, lv in points))
            highest["right"] = max(highest["right"], *(lv.ttft.p50 or 0.0 for _, lv in points))
            xs = [x for x, _ in points]
            drawn.update(xs)
            prefix = f"{series.label} " if c.group and series.label else ""
            colour = COLOURS[i % len(COLOURS)][0]
            _line(plt, xs, [lv.tpot.p50 or 0.0 for _, lv in points], label=f"{prefix}TPOT p50", color=colour)
            if one_line:
                ttft = [(x, lv) for x, lv in points if lv.ttft.p50 is not None]
                ttfts.update(lv.ttft.p50 or 0.0 for _, lv in ttft)
                _line(plt, [x for x, _ in ttft], [lv.ttft.p50 or 0.0 for _, lv in ttft], label="TTFT p50 (right)",
                      yside="right", color="orange")  # fmt: skip
        # latency from 0: a change of 0.1 % is not drawn across the whole plot (noise read as a trend); a flat TTFT
        # (one x, or an osl sweep's) at half height of the right axis, not on TPOT's top nor under the legend
        for side, top in highest.items():
            if top > 0:
                headroom = 2.0 if side == "right" and len(ttfts) == 1 else 1.1
                plt.ylim(0, top * headroom, yside=side)  # type: ignore[arg-type]  # plotext takes "left"/"right"
        if len(drawn) == 1:  # x from 0 too: its points at the right, clear of the legend at the top left
            plt.xlim(0, next(iter(drawn)) * ONE_CONCURRENCY_X)
        concurrencies = {lv.concurrency for job in c.jobs for lv in job.results.levels}
        plt.title(latency_title(axis.name, drawn, concurrencies, widget.size.width - 4))
        plt.xlabel(axis.name)
        widget.refresh()


def latency_title(x: str, xs: set[float], concurrencies: set[int], width: int) -> str:
    """The latency plot's title within ``width`` (plotext drops a longer one), in the longest wording that fits: what
    it draws against ``x`` (a swept parameter: at which concurrency), or, when every job ran one and the same
    concurrency and nothing else varies, that there is no curve to draw and how to get one (a sweep of one
    concurrency drew an empty frame)."""
    if x != CONCURRENCY:
        at = f" (concurrency {next(iter(concurrencies))})" if len(concurrencies) == 1 else ""
        fits = (w for w in (f"latency (ms) vs {x}{at}", f"latency (ms) vs {x}") if len(w) <= width)
        return next(fits, f"ms vs {x}")
    if len(xs) != 1:
        return "latency (ms) vs concurrency"
    one = f"one concurrency ({int(next(iter(xs)))})"
    wordings = (f"{one}: sweep more than one to see a curve", f"{one}: sweep more for a curve", f"{one}: no curve")
    return next((w for w in wordings if len(w) <= width), one)


def _line(plt: Any, xs: list[float], ys: list[float], **style: str) -> None:
    """One series of the latency plot: a line through its points, or a point marked `●` when it has one (a line
    of one point is a single braille dot, unseen: the frame looked empty)."""
    if len(xs) == 1:
        plt.scatter(xs, ys, marker="●", **style)
    else:
        plt.plot(xs, ys, **style)
