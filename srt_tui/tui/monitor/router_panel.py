"""The router at a glance: up/down, registrations per role (registered and healthy vs expected), its
own request/error/retry counters, and where the data came from (direct, relayed, stale)."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from srt_tui.core.text.counts import counted
from srt_tui.monitor import cells
from srt_tui.monitor.model import ROLE_LETTERS, JobSnapshot
from srt_tui.widgets.layout import is_wide

#: what the panel says of a job without a router
NO_ROUTER = "No router: clients talk to the workers directly."
#: beside the router's count once the summary shows the benchmark's own (`benchmark 30/30 completed`): the router's
#: also counts the benchmark's warm-up and smoke requests, `b`'s smoke tests and any client's (Help says so)
ROUTED_IN_ALL = "in all"
#: the fewest columns the panel's prose (a detail, a log line) wraps in: fewer and each line holds a word or two
PROSE = 20


class RouterPanel(Widget):
    """Renders the router of `snapshot` (or says the job has none)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "router-panel--ok",
        "router-panel--bad",
        "router-panel--warn",
        "router-panel--dim",
        "router-panel--key",
    }

    DEFAULT_CSS = """
    RouterPanel { height: auto; width: 1fr; }
    RouterPanel > .router-panel--ok { color: $text-success; }
    RouterPanel > .router-panel--bad { color: $text-error; text-style: bold; }
    RouterPanel > .router-panel--warn { color: $text-warning; }
    RouterPanel > .router-panel--dim { color: $text-muted; }
    RouterPanel > .router-panel--key { color: $text-primary; text-style: bold; }
    """

    snapshot: reactive[JobSnapshot | None] = reactive(None, layout=True)

    def _st(self, name: str) -> Style:
        return self.get_component_rich_style(f"router-panel--{name}", partial=True)

    def render(self) -> RenderableType:
        """Up to six short lines, plus nginx and one line per router when several sit behind nginx."""
        snap = self.snapshot
        if snap is None:
            return Text("")
        if snap.router is None:
            return Text(NO_ROUTER, style=self._st("dim"))
        return Group(*(part for part, _ in self._parts(snap)))

    def needed_width(self) -> int:
        """The fewest columns the panel reads whole in: its widest part that wraps only between its pairs (`registered
        P 1/1 (1 healthy)`, a router behind nginx on its line), prose no narrower than `PROSE`. Narrower, the job view
        puts the panel under the GPU grid (at 60 to 79 columns it had 8: `registe` / `red P`)."""
        snap = self.snapshot
        if snap is None:
            return 0
        if snap.router is None:
            return PROSE
        return max(need for _, need in self._parts(snap))

    def _parts(self, snap: JobSnapshot) -> list[tuple[RenderableType, int]]:
        """The panel's parts, each with the columns it needs to stay whole (see `needed_width`)."""
        r = snap.router
        assert r is not None
        out = Text()
        waiting = cells.not_started(snap)  # queued: nothing to ask yet (`unknown` read as one that does not answer)
        if snap.is_final:
            out.append("○ job ended", style=self._st("dim"))
        elif waiting:
            out.append("○ not started", style=self._st("dim"))
        elif r.up is True:
            out.append("● up", style=self._st("ok"))
        elif r.up is False:
            out.append(f"● {r.state}", style=self._st("bad"))
        else:
            out.append("● unknown", style=self._st("warn"))
        # a router that does not answer keeps the registrations it answered last, marked on their line
        kept = r.up is False and bool(r.registered)
        if r.source == "relay":
            out.append("  relayed", style=self._st("warn"))
        elif r.stale and not kept:
            out.append("  stale", style=self._st("warn"))
        registered: list[Text] = []
        if r.expected and not snap.is_final and not waiting:
            for role, want in sorted(r.expected.items(), key=lambda kv: "pda".find(kv[0][0])):
                have = r.registered.get(role, 0)
                ok = r.healthy.get(role, have if r.registration == "dynamo-health" else 0)
                style = self._st("ok") if have >= want and ok >= want else self._st("bad")
                role_text = Text("" if registered else "registered ", style=self._st("dim"))
                role_text.append(f"{ROLE_LETTERS.get(role, role)} {have}/{want}", style=style)
                if ok != have:
                    role_text.append(f" ({ok} healthy)", style=self._st("warn"))
                registered.append(role_text)
            if kept:
                registered[-1].append(" (stale)", style=self._st("warn"))
        counters = Pairs(
            [
                # the router's own total (warm-up and smoke requests included), not the benchmark's: "routed", and
                # `in all` where the summary shows the benchmark's own count (`benchmark 30/30 completed`)
                Text.assemble(
                    ("routed ", self._st("dim")),
                    cells.number(r.requests),
                    (f" {ROUTED_IN_ALL}" if snap.requests_from == "benchmark" else "", self._st("dim")),
                ),
                Text.assemble(
                    ("errors ", self._st("dim")),
                    (cells.number(r.errors), self._st("bad") if r.errors else Style()),
                ),
                Text.assemble(("retries ", self._st("dim")), cells.number(r.retries)),
            ],
            self._st("dim"),
        )
        tail = Text()
        if r.detail and r.detail != "health 200":
            tail.append("\n")
            tail.append(r.detail, style=self._st("bad" if r.up is False else "warn"))
        if r.last_error_line:
            tail.append("\n")
            tail.append("log: ", style=self._st("dim"))
            tail.append(r.last_error_line, style=self._st("bad"))
        # the router's name and its state wrap apart, never inside `○ job ended`
        head = Pairs([Text(r.type, style=self._st("key")), out], self._st("key"), " ")
        parts: list[tuple[RenderableType, int]] = [(head, head.widest)]
        if registered:
            pairs = Pairs(registered, Style())
            parts.append((pairs, pairs.widest))
        parts.append((counters, counters.widest))
        if tail:  # prose: it wraps between words
            parts.append((tail[1:], max(PROSE, *(len(word) for word in tail.plain.split()))))
        # in the narrow layout the summary's `url` line already shows the router's address; shown only whole
        if r.url and (is_wide(self.app.size.width) or r.url != snap.serving_url):
            parts.append((Whole(Text(r.url, style=self._st("dim"))), 0))
        if snap.nginx is not None:  # one line per router
            frontends = self._frontends(snap)
            parts.append((frontends, max(line.cell_len for line in frontends.split())))
        return parts

    def _state(self, up: bool | None, final: bool) -> tuple[str, Style]:
        if final:
            return "○", self._st("dim")
        if up is True:
            return "●", self._st("ok")
        return ("●", self._st("bad")) if up is False else ("●", self._st("warn"))

    def _frontends(self, snap: JobSnapshot) -> Text:
        """srtctl's multi-frontend layout: nginx and one line per router behind it (its node as the GPU grid names
        it, its registrations, or `hung`/`down`, and request counter), so an uneven spread or one router down shows
        at a glance."""
        n = snap.nginx
        assert n is not None
        out = Text()
        idle = snap.is_final or cells.not_started(snap)  # ended, or not started: no state to show
        mark, style = self._state(n.up, idle)
        out.append(f"{n.name} ", style=self._st("key"))
        out.append(mark, style=style)
        out.append(f" {cells.node_label(snap, n.node_index)}", style=self._st("dim"))
        out.append(f" → {counted(len(snap.routers), 'router')}", style=self._st("dim"))
        if n.detail:
            out.append(f"  {n.detail}", style=self._st("bad" if n.up is False else "warn"))
        for r in snap.routers:
            mark, style = self._state(r.up, idle)
            out.append(f"\n  {r.name} ", style=self._st("key"))
            out.append(mark, style=style)
            out.append(f" {cells.node_label(snap, r.node_index)}  ", style=self._st("dim"))
            out.append(cells.registered_cell(r) if not idle else "-", style=self._st("dim"))
            out.append("  routed ", style=self._st("dim"))
            out.append(cells.number(r.requests))
        return out


class Whole:
    """A line shown whole or not at all: a URL cut where the panel ends (`http://10.251.0.11:80` over `00`)
    reads as another address."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.text.cell_len <= options.max_width:
            yield self.text


class Pairs:
    """`label value` pairs on one line two spaces apart, wrapped between pairs (never inside one) when
    the panel is too narrow, so `retries` never ends a line without its number."""

    def __init__(self, pairs: list[Text], style: Style, gap: str = "  ") -> None:
        self.pairs = pairs
        self.style = style
        self.gap = gap

    @property
    def widest(self) -> int:
        """The widest pair: the fewest columns in which no pair is broken."""
        return max((pair.cell_len for pair in self.pairs), default=0)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        line = Text()
        for pair in self.pairs:
            if line and line.cell_len + len(self.gap) + pair.cell_len > options.max_width:
                yield line
                line = Text()
            if line:
                line.append(self.gap, style=self.style)
            line.append_text(pair)
        yield line
