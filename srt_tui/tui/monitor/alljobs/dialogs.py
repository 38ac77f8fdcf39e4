"""The all-jobs view's modals: confirm removing an ended job from the lists, and one job's Slurm facts."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, Static

from srt_tui.core.text.counts import counted
from srt_tui.slurm.client import JobState
from srt_tui.tui.dismiss_once import DismissOnce
from srt_tui.tui.display import scrub
from srt_tui.tui.monitor.alljobs.source import JobsSource
from srt_tui.tui.monitor.dialogs import YesNoScreen
from srt_tui.tui.workers import ReportsWorkerErrors


class ConfirmHide(YesNoScreen):
    """Asks before removing an ended job from the lists: `y` removes it, `n`/Esc keeps it; files stay."""

    DEFAULT_CSS = """
    ConfirmHide { align: center middle; }
    #hide-box { width: 64; max-width: 95%; height: auto; border: round $warning; padding: 0 1; background: $surface; }
    #hide-title { text-style: bold; }
    #hide-note { color: $text-muted; margin: 1 0; }
    #hide-buttons { height: auto; align-horizontal: right; }
    #hide-buttons Button { margin-left: 1; }
    """
    prefix: ClassVar[str] = "hide"
    box_title: ClassVar[str] = "Remove from list"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Remove from the list"),
        Binding("n,escape", "answer(False)", "Keep it"),
    ]
    keys_hint: ClassVar[str] = "y removes it · Enter, n or Esc keeps it"

    def __init__(self, job_id: str, name: str, where: str) -> None:
        super().__init__(id="confirm-hide")
        self.job_id = job_id
        self.job_name = name
        self.where = where

    def compose(self) -> ComposeResult:
        with Vertical(id="hide-box"):
            yield Label(f"Remove job {self.job_id} ({self.job_name}) from the list?", id="hide-title")
            kept = f"Its directory {self.where} is kept. " if self.where else ""
            yield Static(
                f"{kept}It stays hidden across runs; `h` in all jobs (A) or `srt-tui jobs --unhide "
                f"{self.job_id}` brings it back.",
                id="hide-note",
            )
            yield from self.yes_no("Remove (y)", "Keep (n)", "warning")


def known_facts(job: JobState) -> list[tuple[str, str]]:
    """What the list already knows about the job, in scontrol's names (shown before, or without, scontrol)."""
    rows = [
        ("JobId", job.job_id),
        ("JobName", job.name),
        ("UserId", job.user),
        ("JobState", job.state),
        ("Reason", job.reason or "None"),
        ("Partition", job.partition),
        ("NumNodes", str(job.node_count)),
        ("NodeList", ",".join(job.nodes) or "(null)"),
        ("WorkDir", job.work_dir),
        ("StdOut", job.stdout),
    ]
    return [(k, v) for k, v in rows if v]


class SlurmFactsScreen(ReportsWorkerErrors, DismissOnce[None], ModalScreen[None]):
    """A job launched outside srt-tui and srtctl: what Slurm says about it (``scontrol show job``'s fields,
    asked in a worker; until then, or when Slurm cannot say, what the list knows). Esc closes."""

    DEFAULT_CSS = """
    SlurmFactsScreen { align: center middle; }
    #facts-box { width: 100%; max-width: 110; height: 90%; border: round $primary; background: $surface; }
    #facts-note { height: auto; padding: 0 1; color: $text-muted; }
    #facts-table { height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,enter", "close", "Close")]

    def __init__(self, job: JobState, source: JobsSource) -> None:
        super().__init__(id="slurm-facts")
        self.job = job
        self.source = source
        self.fields: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        with Vertical(id="facts-box"):
            yield Static("asking Slurm (scontrol show job)…", id="facts-note")
            yield DataTable(cursor_type="row", zebra_stripes=True, id="facts-table")

    def on_mount(self) -> None:
        box = self.query_one("#facts-box")
        box.border_title = f"Slurm job {self.job.job_id} · {self.job.name}"
        box.border_subtitle = "not launched by srt-tui or srtctl: Slurm's facts only · Esc closes"
        table = self.query_one(DataTable)
        table.add_column("FIELD", key="key", width=18)
        table.add_column("VALUE", key="value")
        self._show(known_facts(self.job))
        table.focus()
        self._load()

    def _show(self, rows: list[tuple[str, str]]) -> None:
        table = self.query_one(DataTable)
        table.clear()
        for key, value in rows:
            table.add_row(Text(key, style="bold"), value, key=key)

    @work(thread=True, exit_on_error=False, group="slurm-facts")
    def _load(self) -> None:
        try:
            fields = self.source.facts(self.job.job_id)
        except Exception as exc:  # Slurm down, or it forgot the job: the list's facts stay, with why
            self.app.call_from_thread(self._failed, str(exc) or type(exc).__name__)
            return
        self.app.call_from_thread(self._loaded, fields)

    def _loaded(self, fields: dict[str, str]) -> None:
        self.fields = fields
        self.query_one("#facts-note", Static).update(
            f"scontrol show job {self.job.job_id}: {counted(len(fields), 'field')}"
        )
        self._show(list(fields.items()))

    def _failed(self, error: str) -> None:
        # whole: the cause (`Munge encode failed … munge.socket.2`) is at the end of Slurm's message
        note = Text(f"Slurm did not say more: {scrub(error)}\nWhat the job list knows:")  # text, never markup
        self.query_one("#facts-note", Static).update(note)

    def action_close(self) -> None:
        """Back to the list."""
        self.dismiss(None)
