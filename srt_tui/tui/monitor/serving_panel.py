"""How fast the deployment serves, as an operator watches it on a Grafana board: TTFT, TPOT (inter-token)
and E2E latency p50/p99 over the last minute, tokens per second in and out, requests running and waiting,
KV-cache use, with sparklines. The job view shows the job's; the worker detail one worker's (`serving_text`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.console import RenderableType
from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from srt_tui.monitor import cells
from srt_tui.monitor.model import LatencyFamily, Serving
from srt_tui.monitor.statuses.history import SPARK_POINTS
from srt_tui.tui.monitor.router_panel import Pairs
from srt_tui.widgets.layout import is_wide

#: a bar per slot of the sparklines' window: the line spans the figures' minute
SPARK_WIDTH = SPARK_POINTS


def serving_pairs(
    s: Serving,
    st: Callable[[str], Style],
    sparks: bool = True,
    ended: bool = False,
    measured: bool = False,
    brief: bool = False,
) -> list[Text]:
    """`label value` groups (a latency's mean leading when its quantiles read `<100 ms`, added when `≈`; TTFT and E2E
    with what a client through the router sees beyond them, where the router adds some), each kept whole when
    a line wraps (``st`` maps dim/key/spark/bad to styles; ``sparks``: with sparklines, which narrow terminals leave
    out so the workers keep their rows; ``ended``: the job has ended, so no further scrape will come and the note says
    where its measured figures are; ``brief``: a short terminal's key figures, TTFT and TPOT (medians, or means where
    the buckets cannot resolve them: the panel's title names which, `cells.brief_title`) and output rate, with no E2E
    and no note while live). Requests running and waiting say which worker could not be
    read now (`running 2+? waiting 0+? (decode_1 hung)`)."""
    dim, spark = st("dim"), st("spark")

    def quantiles(label: str, field: LatencyFamily, points: tuple[float | None, ...]) -> Text:
        # the buckets cannot resolve `<100 ms`: the window's mean leads then (`cells.latency_parts`)
        t = Text.assemble((f"{label} ", st("key")))
        for text, word in cells.latency_parts(s, field, brief):
            t.append(text, style=dim if word else "")
        # what a client through the router sees beyond the engines: its E2E holds the same delayed first chunk (the
        # reason is said once, under the figures: with it, a TTFT group was wider than the panel at 80 columns)
        if field in ("ttft", "e2e") and (note := cells.client_ttft_note(s, brief=True, family=field)):
            t.append(note, style=dim)
        if (points := cells.latency_spark(s, field, points)) and sparks:
            t.append(" " + cells.sparkline(points, SPARK_WIDTH, cells.SPARK_FLOOR_LATENCY_S), style=spark)
        return t

    out = [quantiles("TTFT", "ttft", s.spark_ttft_s), quantiles("TPOT", "itl", s.spark_itl_s)]
    if not brief:
        out.append(quantiles("E2E", "e2e", ()))
    tokens = Text() if brief else Text.assemble(("in ", dim), cells.tokens_per_s(s.input_tok_per_s), ("  ", dim))
    tokens.append("out ", style=dim)
    tokens.append(cells.tokens_per_s(s.output_tok_per_s))
    if s.spark_output_tok and sparks:
        tokens.append(" " + cells.sparkline(s.spark_output_tok, SPARK_WIDTH, cells.SPARK_FLOOR_RATE), style=spark)
    out.append(tokens)
    # a worker whose metrics cannot be read now: its share unknown, and why (a short terminal's line keeps to its
    # figures: the worker's row, on the first screen there, says `hung`)
    unread = bool(s.unread)
    load = Text.assemble(
        ("running ", dim), cells.load(s.running, unread), ("  waiting ", dim), cells.load(s.waiting, unread)
    )
    if unread and not brief:
        load.append(f" ({', '.join(s.unread)})", style=st("bad"))
    out.append(load)
    out.append(Text.assemble(("KV ", dim), cells.percent(s.kv_usage)))
    # its span, and the workers its figures leave out (not current: `1 worker not current, left out`)
    window = cells.serving_note(s, "latency after two scrapes")
    if brief and not ended:
        return out
    if ended and not _has_rates(s):  # first seen after its end: dashes and zeros were no figures of its run
        window = "the job has ended: no figures were recorded while it ran (it was not watched)"
        window += " · R: what its benchmark measured" if measured else ""
    elif ended:  # `R` only when its benchmark wrote results (a manual job's R has nothing to show)
        # the window reaches its final counters (the job's last scrape), whatever ran after the last refresh
        span = cells.serving_span(s)
        window = "the job has ended: its last figures" + (f", {span}" if span else "")
        window += " · R: what its benchmark measured" if measured else ""
    if s.prefill_added:  # vllm-router's P/D: the prefill answers, then the decode starts; the sum's means are exact
        window += " · ≈ prefill + decode legs, mean exact"
    if reason := cells.client_ttft_reason(s):
        window += f" · {reason}"
    out.append(Text(f"({window})", style=dim))
    return out


def serving_text(s: Serving | None, st: Callable[[str], Style], ended: bool = False) -> Text:
    """One figure per line (the worker detail), or a note when the engine exports no serving metrics."""
    if s is None or s.empty:
        return Text("no serving metrics (the engine exports none, or none were read yet)", style=st("dim"))
    return Text("\n").join(serving_pairs(s, st, ended=ended))


def _has_rates(s: Serving) -> bool:
    """Whether any latency or token rate is known (not only the gauges)."""
    rates = (s.ttft_p50_s, s.itl_p50_s, s.e2e_p50_s, s.input_tok_per_s, s.output_tok_per_s)
    return any(v is not None for v in rates)


class ServingPanel(Widget):
    """The job's serving figures; hidden while the job has none (engines without serving families)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "serving-panel--dim",
        "serving-panel--key",
        "serving-panel--spark",
        "serving-panel--bad",
    }

    DEFAULT_CSS = """
    ServingPanel { height: auto; padding: 0 1; margin: 0 1; border: round $primary 50%; }
    ServingPanel.-short { border: none; border-top: round $primary 50%; }
    ServingPanel > .serving-panel--dim { color: $text-muted; }
    ServingPanel > .serving-panel--key { color: $text-primary; text-style: bold; }
    ServingPanel > .serving-panel--spark { color: $text-accent; }
    ServingPanel > .serving-panel--bad { color: $text-error; }
    """

    serving: reactive[Serving | None] = reactive(None, layout=True)
    #: the job has ended (set before `serving`): the note says so instead of waiting for scrapes
    ended: reactive[bool] = reactive(False)
    #: the ended job's benchmark wrote results (the note then points to `R`)
    measured: reactive[bool] = reactive(False)
    #: a short terminal (80x24; set before `serving`): the key figures on one line under a title rule, so the
    #: workers below keep their rows
    short: reactive[bool] = reactive(False)
    #: the job view has problems to show (set before `serving`): on a short terminal an ended job's figures give way
    crowded: reactive[bool] = reactive(False)

    def on_mount(self) -> None:
        self.border_title = self._title()

    def watch_serving(self, value: Serving | None) -> None:
        # an ended job seen only after its end (a new TUI) has its last gauges (running 0, KV 0 %) and no rate
        # or latency: a panel of dashes that said "its last figures"; hidden, R has what it measured. On a short
        # terminal its last figures (one line under the title's rule) give way only to problems to read: hidden
        # there always, an operator found a completed job's figures only at 120 columns, with rows to spare at 80x24
        stale = self.ended and value is not None and (not _has_rates(value) or (self.short and self.crowded))
        self.display = value is not None and not value.empty and not stale
        self.border_title = self._title()

    def watch_ended(self) -> None:
        self.watch_serving(self.serving)  # the job ended with the same figures: the rule above again

    def watch_short(self, short: bool) -> None:
        self.set_class(short, "-short")
        self.watch_serving(self.serving)

    def _title(self) -> str:
        """`Serving`; a short terminal's one line has no room for the note, so its title says what its figures are and
        their span: `Serving · p50 · over the last 62 s`, `Serving · mean · …` where the buckets cannot resolve the
        medians (it said `p50` over means), no statistic when the figures say their own (`cells.brief_title`); the
        workers they leave out (`1 worker not current, left out`)."""
        if not self.short:
            return "Serving"
        s = self.serving
        stat, span = (cells.brief_title(s), cells.serving_note(s)) if s is not None else ("p50", "")
        return " · ".join(part for part in ("Serving", stat, span) if part)

    def _st(self, name: str) -> Style:
        return self.get_component_rich_style(f"serving-panel--{name}", partial=True)

    def render(self) -> RenderableType:
        """The figures, wrapped between groups (never inside one) on narrow terminals."""
        s = self.serving
        if s is None:
            return Text("")
        pairs = serving_pairs(s, self._st, is_wide(self.app.size.width), self.ended, self.measured, self.short)
        return Pairs(pairs, self._st("dim"))
