"""A worker's detail (Monitor, Enter on a worker row): command, environment with secrets masked, node,
GPUs and mask, ports, health history and the last lines of its log; `l` opens the full log, `y` copies
the command, `s` opens a shell on its node (the app suspended), Esc goes back. The plan, the log and the
node's hostname are read in a thread worker; the screen only draws.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult, SuspendNotSupported
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Resize
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from srt_tui.core.text.counts import counted
from srt_tui.monitor import cells
from srt_tui.monitor.model import JobSnapshot, WorkerStatus
from srt_tui.monitor.statuses.worker_facts import WorkerFacts, read_worker_facts
from srt_tui.slurm.reach import NoShell, ShellCommand, job_hostnames, node_shell
from srt_tui.tui.dismiss_once import DismissOnce
from srt_tui.tui.display import display_path, hang
from srt_tui.tui.monitor.serving_panel import serving_text
from srt_tui.tui.workers import ReportsWorkerErrors
from srt_tui.widgets.fit_parts import pack_parts
from srt_tui.widgets.layout import is_wide


class FactsLoaded(Message):
    """The worker read the plan and the log tail."""

    def __init__(self, facts: WorkerFacts, shell: ShellCommand | str, host: str) -> None:
        super().__init__()
        self.facts = facts
        #: the shell on its node, or why there is none
        self.shell = shell
        #: its node's host name as the jobs table shows it (Slurm's, or the local launcher's `localK`); "" until
        #: the job wrote endpoints.json
        self.host = host


def run_suspended(app: App[object], shell: ShellCommand) -> int:
    """Run the shell in the terminal with the app suspended (Textual gives the terminal back after it)."""
    with app.suspend():
        print(f"srt-tui: a shell on {shell.where} (exit returns to srt-tui)\n  {shell.display()}", flush=True)
        return subprocess.call(list(shell.argv), cwd=shell.cwd, env={**os.environ, **shell.env})


def _when(iso: str) -> str:
    """`2026-03-01 12:00:03` from ISO-8601 UTC (the header says UTC)."""
    return iso.replace("T", " ").rstrip("Z")


class WrappedPane(Static):
    """A pane whose lines the detail wraps itself, each under its own start: it says when its width changed (the
    narrow layout or a scrollbar came after they were wrapped, and the pane wrapped them again, to column 0)."""

    class Resized(Message):
        """The pane's width or height changed."""

    def on_resize(self, event: Resize) -> None:
        self.post_message(self.Resized())


class WorkerDetail(ReportsWorkerErrors, DismissOnce[str | None], ModalScreen[str | None]):
    """Dismissed with `"log"` when the operator asks for the full log (the Monitor opens it), else None;
    the Monitor hands it each newer snapshot (`follow`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_detail", "Back"),
        # a dialog: the app's `q` and `?` do not reach past it; `q` leaves it as it leaves every view on top
        Binding("q", "dismiss_detail", "Back", show=False),
        Binding("question_mark", "app.help", "Help"),
        Binding("l", "open_log", "Full log"),
        # `y` copies, as in the job view behind it (`c` there cancels the job: one Esc apart, never two meanings)
        Binding("y", "copy_command", "Copy command"),
        Binding("s", "shell", "Shell on node"),
        # a Slurm job that has ended: `shell` is hidden (no node to open one on); `s` then says so and what to read
        Binding("s", "no_shell", "Why no shell (the job has ended)", show=False),
        # as in the job view behind it
        Binding("ctrl+d", "scroll_body(1)", "Scroll down", show=False, tooltip="Scroll the detail half a page"),
        Binding("ctrl+u", "scroll_body(-1)", "Scroll up", show=False, tooltip="Scroll the detail back"),
    ]

    #: how `s` runs the shell (tests replace it: a headless app cannot suspend)
    run_shell: ClassVar[Callable[[App[object], ShellCommand], int]] = staticmethod(run_suspended)

    DEFAULT_CSS = """
    WorkerDetail { align: center middle; }
    WorkerDetail > #worker-detail-box {
        width: 100%; height: 1fr; border: round $primary; border-title-color: $text-primary;
        background: $surface;
    }
    WorkerDetail #worker-detail-panes { height: 1fr; }
    WorkerDetail #worker-detail-body { height: 1fr; width: 3fr; padding: 0 1; }
    WorkerDetail #worker-detail-log { height: 1fr; width: 2fr; padding: 0 1; border-left: vkey $primary 50%; }
    WorkerDetail.-narrow #worker-detail-log, WorkerDetail.-slim #worker-detail-log { display: none; }
    WorkerDetail .worker-detail--section { height: auto; width: 1fr; }
    WorkerDetail > .worker-detail--key { color: $text-primary; text-style: bold; }
    WorkerDetail > .worker-detail--dim { color: $text-muted; }
    WorkerDetail > .worker-detail--ok { color: $text-success; }
    WorkerDetail > .worker-detail--bad { color: $text-error; }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "worker-detail--key",
        "worker-detail--dim",
        "worker-detail--ok",
        "worker-detail--bad",
    }

    def __init__(
        self,
        status: WorkerStatus,
        job_id: str,
        job_dir: Path,
        *,
        read_only: bool = False,
        ended: bool = False,
        stopped: bool = False,
        placed: bool = True,
        job: JobSnapshot | None = None,
    ) -> None:
        super().__init__(id="worker-detail")
        #: `--read-only`: no shell on the job's nodes (it could change anything there)
        self.read_only = read_only
        #: the job has ended: its serving figures are the last ones (no scrape will come)
        self.ended = ended
        #: this worker stopped with its ended job (`JobSnapshot.stopped_with_job`): its health reads `ended`
        self.stopped = stopped
        #: the job has nodes (`JobSnapshot.placed`); a queued one has none: its plan's `node0` names no node
        self.placed = placed
        #: the job's newest snapshot (None: not known), for what `s` says of a job that has ended
        self.job = job
        self.status = status
        self.job_id = job_id
        self.job_dir = job_dir
        self.facts: WorkerFacts | None = None
        self.shell: ShellCommand | str | None = None
        self.host = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="worker-detail-box"):
            with Horizontal(id="worker-detail-panes"):
                with VerticalScroll(id="worker-detail-body"):
                    yield WrappedPane("", id="worker-detail-text", classes="worker-detail--section")
                # wide terminals: the log tail beside the facts, never below a long environment
                with VerticalScroll(id="worker-detail-log"):
                    yield WrappedPane("", id="worker-detail-log-text", classes="worker-detail--section")
            yield Footer()

    def action_scroll_body(self, direction: int) -> None:
        """ctrl+d / ctrl+u: the facts half a page down or up (PgDn/PgUp work too)."""
        body = self.query_one("#worker-detail-body", VerticalScroll)
        body.scroll_relative(y=direction * max(1, body.scrollable_content_region.height // 2), animate=False)

    def on_mount(self) -> None:
        self.query_one("#worker-detail-box").border_title = f"{self.status.name} · job {self.job_id}"
        self.query_one("#worker-detail-body").focus()
        self._draw()
        self._load(self.job_dir, self.status.name)

    @work(thread=True, exclusive=True, group="worker-detail", name="worker-detail", exit_on_error=False)
    def _load(self, job_dir: Path, name: str) -> None:
        facts = read_worker_facts(job_dir, name)
        hosts, index = job_hostnames(str(job_dir)), self.status.node_index
        try:
            shell: ShellCommand | str = node_shell(self.job_id, str(job_dir), index, hosts)
        except NoShell as exc:
            shell = str(exc)
        self.post_message(FactsLoaded(facts, shell, hosts[index] if 0 <= index < len(hosts) else ""))

    @on(FactsLoaded)
    def _loaded(self, message: FactsLoaded) -> None:
        self.facts = message.facts
        self.shell = message.shell
        self.host = message.host
        self._draw()

    def _st(self, name: str) -> Style:
        return self.get_component_rich_style(f"worker-detail--{name}", partial=True)

    def _serving_style(self, name: str) -> Style:
        return self._st({"spark": "ok"}.get(name, name))

    #: the panes' widths the text was last wrapped to
    _wrapped_for: tuple[int, int] = (-1, -1)

    def _widths(self) -> tuple[int, int]:
        """The facts' and the log's pane widths now."""
        text, log = (self.query_one(f"#{pane}", Static) for pane in ("worker-detail-text", "worker-detail-log-text"))
        return text.content_region.width, log.content_region.width

    @on(WrappedPane.Resized)
    def _pane_resized(self) -> None:
        """Wrap again to a pane's new width (a height change alone, from the text itself, needs nothing)."""
        if self.query("#worker-detail-text") and self._widths() != self._wrapped_for:
            self._draw()

    def _draw(self) -> None:
        if not self.query("#worker-detail-text"):  # closing: its widgets are gone before the screen is
            return
        self._wrapped_for = self._widths()
        w, f = self.status, self.facts
        key, dim = self._st("key"), self._st("dim")
        t = Text()
        t.append(f"{w.name}", style=key)
        # its node's name as the worker table, sinfo and srun say it, then which of the job's nodes it is
        # (`host node2 (plan node1)` read as two different nodes)
        if self.host:
            t.append(f"  {w.role} · on {self.host}, the job's {ordinal(w.node_index + 1)} node")
        elif not self.placed:  # queued: Slurm has named no node yet
            t.append(f"  {w.role} · the job's {ordinal(w.node_index + 1)} node, not placed yet")
        else:
            t.append(f"  {w.role} · node{w.node_index}")
        if f is not None and f.nnodes > 1:
            t.append(f" (+{counted(f.nnodes - 1, 'node')})")
        t.append(f" · GPUs {cells.gpus(w.gpus)}\n")
        mask_var = (f.mask_var if f else "") or "mask"
        t.append("mask  ", style=key)
        # wraps in its value column (`GPUs)` fell back to column 0 at 80 columns), as the health history does
        mask = f"{mask_var}={w.mask}" if w.mask else f"{mask_var} not set by srt-tui (the whole node's GPUs)"
        self._hang(t, mask, len("mask  "), first=False)
        if f is not None and f.ports:
            t.append("ports ", style=key)
            room = self.query_one("#worker-detail-text", Static).content_region.width - 6
            # a line never ends between a port's label and its number (`kv_events` / `5200`)
            ports = pack_parts([f"{label} {port}" for label, port in f.ports], max(room, 1), "  ")
            self._hang(t, "\n".join(ports), 6, first=False)
        if f is not None:
            planned = dict(f.urls)
            base = planned.get("url", "")
            for label, url in f.urls:  # the plan's `<ip:nodeN>` placeholders as endpoints.json resolved them
                shown = url.replace(base, w.url, 1) if w.url and base and url.startswith(base) else url
                t.append(f"{label:<12}", style=dim)
                t.append(f"{shown}\n")
        t.append("\nhealth  ", style=key)
        # stopped with its job: `ended  with the job`, not `down`, the same words as its history's last row
        health, detail = cells.health_words(w.health, w.detail, self.stopped)
        now = Text("ended", style=dim) if self.stopped else self._health(health)
        if detail:
            now.append(f"  {detail}", style=dim)
        self._hang(t, now, len("health  "), first=False)  # a long detail wraps in its value column
        for change in w.health_history:
            label = f"  {_when(change.at)} UTC  " if change.at else "  time not known  "  # an ended job's, untimed
            t.append(label, style=dim)
            health, detail = cells.health_words(change.health, change.detail, self.stopped)
            words = Text(health, style=dim) if (health, detail) == cells.STOPPED_WITH_JOB else self._health(health)
            if detail:
                words.append(f"  {detail}", style=dim)
            self._hang(t, words, len(label), first=False)  # under the value, not at column 0 under the times
        if not w.health_history:
            t.append("  no changes seen yet\n", style=dim)
        if w.serving is not None:  # its engine declares serving families
            t.append("\nserving", style=key)
            if stale := cells.read_ago(w.serving, w.unread):  # hung: its last minute's figures, said so, never current
                t.append("  ")
                self._hang(t, Text(f"({stale})", style=self._st("bad")), len("serving  "), first=False)
            else:  # an ended job's figures say their own window (its last minute, or the whole time it served)
                t.append(f"  ({'' if self.ended else 'last minute, '}from its own metrics)\n", style=dim)
            t.append_text(serving_text(w.serving, self._serving_style, ended=self.ended))
            t.append("\n")
        if f is None:
            t.append("\nreading the plan…\n", style=dim)
        elif f.problem:
            t.append(f"\n{f.problem}\n", style=self._st("bad"))
        else:
            t.append("\ncommand", style=key)
            t.append("  (y copies it)\n", style=dim)
            self._hang(t, f.command, 2)
            if isinstance(self.shell, ShellCommand) and not self.read_only and not self._no_nodes():
                t.append("shell", style=key)
                t.append(f"  on {self.shell.where} (s opens it)\n", style=dim)
                self._hang(t, self.shell.display(), 2)
            if f.container_image:
                t.append("container  ", style=key)
                t.append(f"{f.container_image}\n")
            t.append("\nenvironment", style=key)
            t.append("  (secrets masked)\n", style=dim)
            for name, value in f.env:
                self._hang(t, Text.assemble((name, key if name == f.mask_var else ""), f"={value}"), 2)
            if not f.env:
                t.append("  (none)\n", style=dim)
        beside = is_wide(self.size.width or self.app.size.width)
        log = self._log_text(f, "#worker-detail-log-text" if beside else "#worker-detail-text")
        if not beside:  # narrow: one column, the log tail last
            t.append("\n")
            t.append_text(log)
        t.rstrip()
        self.query_one("#worker-detail-text", Static).update(t)
        self.query_one("#worker-detail-log-text", Static).update(log if beside else "")

    def _health(self, health: str) -> Text:
        """A health word in its colour (healthy: ok; anything else: bad)."""
        return Text(health, style=self._st("ok" if health == "healthy" else "bad"))

    def _hang(
        self, t: Text, value: str | Text, indent: int, *, first: bool = True, into: str = "#worker-detail-text"
    ) -> None:
        """Append `value` and a newline, its wrapped lines under its own start (`indent` columns in), not back at
        the left edge where they would read as the next section; `first`: the first line is indented too; `into`:
        the pane it is drawn in (its width)."""
        text = value if isinstance(value, Text) else Text(value)
        hang(t, text, self.app.console, self.query_one(into, Static).content_region.width, indent, first=first)

    def _log_text(self, f: WorkerFacts | None, into: str) -> Text:
        """The log's path and its last lines (empty until the plan was read), each wrapped under its own start in
        the pane ``into``; `(l opens it)` whole on the heading, never split across a line's end."""
        t = Text()
        if f is None or f.problem:
            return t
        key, dim = self._st("key"), self._st("dim")
        t.append("log", style=key)
        t.append("  (l opens it)\n", style=dim)
        self._hang(t, Text(display_path(f.log), style=key), 2, into=into)
        for line in f.log_tail:
            self._hang(t, Text(line[:300], style=dim), 2, into=into)
        if not f.log_tail:
            t.append("  (empty or not written yet)\n", style=dim)
        t.rstrip()
        return t

    def on_resize(self) -> None:
        self._draw()

    def follow(self, snap: JobSnapshot | None) -> None:
        """Redraw from a newer snapshot of the job (health and its history move while the detail is open)."""
        status = next((w for w in snap.workers if w.name == self.status.name), None) if snap is not None else None
        ended = snap is not None and snap.is_final
        stopped = snap is not None and snap.stopped_with_job(self.status.name)
        placed = snap is None or snap.placed
        now = (ended, stopped, placed)
        self.job = snap if snap is not None else self.job
        if status is not None and (status != self.status or now != (self.ended, self.stopped, self.placed)):
            self.status, self.ended, self.stopped, self.placed = status, ended, stopped, placed
            if self.is_mounted:
                self._draw()
                self.refresh_bindings()  # a job that ended meanwhile: `s` says why there is no shell

    def action_dismiss_detail(self) -> None:
        self.dismiss(None)

    def action_open_log(self) -> None:
        self.dismiss("log")

    def action_copy_command(self) -> None:
        if self.facts is not None and self.facts.command:
            self.app.copy_to_clipboard(self.facts.command)
            # sent as OSC 52: a terminal (or tmux without `set-clipboard on`) may drop it; nothing here can tell
            self.notify("command sent to the clipboard (OSC 52)", timeout=3)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`--read-only` hides the shell, as it hides every action that can change a job; so does a Slurm job that
        has ended (srun cannot join it), whose `s` says why instead."""
        if action == "shell":
            return not (self.read_only or self._no_nodes())
        if action == "no_shell":
            return not self.read_only and self._no_nodes()
        return True

    def _no_nodes(self) -> bool:
        """The job has ended on Slurm: it holds no node to open a shell on (a local job's shell is its directory)."""
        return bool(self._no_shell_why())

    def _no_shell_why(self) -> str:
        """`job 7 has ended (failed at …, 3m ago): it holds no node to open a shell on`, as `srt-tui shell` says it;
        "" when a shell can open."""
        return cells.no_shell(self.job, datetime.now().astimezone()) if self.job is not None else ""

    def action_no_shell(self) -> None:
        """`s` on an ended Slurm job: why there is no shell, and what to read instead (its log, `l`)."""
        self.notify(f"{self._no_shell_why()}; l opens its log instead", severity="warning", timeout=8)

    def action_shell(self) -> None:
        """A shell on the worker's node, the app suspended until it exits."""
        if self._no_nodes():  # srun would fail after a blank screen (second operator pass)
            self.action_no_shell()
            return
        if not isinstance(self.shell, ShellCommand):
            self.notify(self.shell or "reading the job's nodes…", severity="warning", timeout=8)
            return
        try:
            code = type(self).run_shell(self.app, self.shell)
        except SuspendNotSupported:
            self.app.copy_to_clipboard(self.shell.display())
            self.notify(f"this terminal cannot hand over; run it yourself (copied): {self.shell.display()}", timeout=15)
            return
        except OSError as exc:
            self.notify(f"the shell did not start: {exc.strerror or exc}", severity="error", timeout=10)
            return
        self.notify(f"back from the shell on {self.shell.where} (exit code {code})", timeout=4)


def worker_detail_for(snap: JobSnapshot | None, name: str | None, read_only: bool = False) -> WorkerDetail | None:
    """The detail screen of worker ``name`` of a job (None when the job or worker is not known)."""
    if snap is None or name is None:
        return None
    status = next((w for w in snap.workers if w.name == name), None)
    if status is None:
        return None
    return WorkerDetail(
        status,
        snap.job_id,
        Path(snap.job_dir),
        read_only=read_only,
        ended=snap.is_final,
        stopped=snap.stopped_with_job(name),
        placed=snap.placed,
        job=snap,
    )


def ordinal(n: int) -> str:
    """`1st`, `2nd`, `3rd`, `4th` … `11th`, `12th`, `13th`, `21st`."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
