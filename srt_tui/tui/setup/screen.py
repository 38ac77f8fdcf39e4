"""Setup mode: probe the cluster (in a thread worker), review the proposal beside its evidence, edit, write.

The probe runner is injected (``SetupScreen(hub, runner=...)``) so tests and screenshots use recorded
probe results; the default runner probes the live cluster.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Button, ContentSwitcher, DataTable, Footer, Input, Label, ProgressBar, Static

from srt_tui.setup.findings import Finding
from srt_tui.setup.overwrite import existing_profile, file_mpi_plugin, mpi_plugin_note, profile_changes
from srt_tui.setup.probes import STEPS, ProbeOptions, ProbeRun, ProbeRunner, run_probes
from srt_tui.setup.proposal import (
    OperatorChoices,
    Proposal,
    build_proposal,
    choice_problems,
    parse_aliases,
    write_proposal,
)
from srt_tui.tui.context import ContextHub
from srt_tui.tui.header import AppHeader
from srt_tui.tui.messages import SlurmStatus
from srt_tui.tui.mode_screen import ModeScreen
from srt_tui.tui.palette import PaletteAction
from srt_tui.tui.setup.dialogs import ConfirmOverwrite
from srt_tui.tui.setup.messages import ProbeProgress, ProbesDone
from srt_tui.tui.setup.view import evidence_text, findings_text, probing_text, steps_text, value_lines, wrap_value
from srt_tui.tui.workers import ReportsWorkerErrors
from srt_tui.widgets.row_table import RowTable
from srt_tui.widgets.typed_input import TypedInput

#: (input id, label, hint) of the operator's choices on the review step. A hint reads as one (`e.g. …`, or
#: `default: …` for what is written when the field stays empty) and is dimmed: `/shared/outputs` in the same place
#: as a typed value looked set (issue 21). Once the probes answered, the `default: …` hints say the probed value.
FIELDS: tuple[tuple[str, str, str], ...] = (
    ("name", "Profile name", "default: my-cluster"),
    ("account", "Account", "e.g. llm-perf"),
    ("time_limit", "Time limit", "e.g. 04:00:00"),
    ("max_nodes", "Max nodes", "e.g. 4"),
    ("output_dir", "Output dir", "e.g. /shared/outputs"),
    ("models", "Model aliases", "e.g. qwen=/models/qwen3"),
    ("containers", "Containers", "e.g. sglang=/img/s.sqsh"),
)

#: the profile key each field sets, where its `default: …` hint is the proposal's value for an empty field
DEFAULTED = {"account": "default_account", "time_limit": "default_time_limit", "max_nodes": "max_nodes"}

#: fields that take only some characters (a letter typed there is refused, not kept, and the field says what it
#: takes): (pattern, what the refusal says)
RESTRICT = {
    # `-` too: Slurm's day forms (D-HH, D-HH:MM:SS) need it (operator pass: the toast named digits and `:` only)
    "time_limit": (r"[0-9:-]*", "Time limit: digits, : and - only (minutes, HH:MM:SS or D-HH:MM:SS)"),
    "max_nodes": (r"[0-9]*", "Max nodes: digits only (a node count)"),
}

#: what Esc does in a text field, as Help says it
LEAVE_FIELD = "Leave the text field for the step's table or button (the step stays): then 1 2 3 switch modes"

#: the field a proposal row is edited in: text typed on that row (or its evidence) goes there; other rows' text goes
#: to the first field (operator pass: `op7-slurm` typed on the evidence pane went nowhere)
FIELD_OF_KEY = {
    "description": "name",
    "default_account": "account",
    "default_time_limit": "time_limit",
    "max_nodes": "max_nodes",
    "output_dir": "output_dir",
    "model_paths": "models",
    "containers": "containers",
}

#: the field of each operator choice `choice_problems` names (`model_paths.m` → the Model aliases field)
FIELD_OF_CHOICE = {"model_paths": "models", **{f: f for f, _, _ in FIELDS if f != "models"}}


def _live_runner(options: ProbeOptions, progress: object) -> ProbeRun:
    return run_probes(options, progress)  # type: ignore[arg-type]


class ProposalTable(RowTable[str | Text]):
    """The proposal's keys and values. It says when its own size changed, so its value column is fitted to the width
    it has: a fit made for a layout not yet applied (the screen's -narrow/-wide class follows a resize) left the
    description cut mid-word at the table's edge, or wrapped to five lines of twelve columns (operator pass)."""

    class Resized(Message):
        """The table's size changed."""

    def on_resize(self) -> None:
        self.post_message(self.Resized())


class FindingsView(Static):
    """The probes' findings, wrapped again whenever the pane's width changes (see `findings_text`)."""

    _findings: tuple[Finding, ...] = ()
    #: while a probe runs: what it is doing and the previous run's findings (`probing_text`), else None
    _probing: tuple[tuple[str, str] | None, list[Finding] | None] | None = None

    def show(self, findings: list[Finding]) -> None:
        """Draw ``findings`` at the pane's width."""
        self._findings, self._probing = tuple(findings), None
        self._draw()

    def show_probing(self, running: tuple[str, str] | None, previous: list[Finding] | None) -> None:
        """Draw what the running probe is doing over the previous run's findings, until `show` has the new ones."""
        self._probing = (running, previous)
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        console, width = self.app.console, self.content_region.width
        if self._probing is not None:
            self.update(probing_text(*self._probing, console, width))
        else:
            self.update(findings_text(list(self._findings), console, width))


class SetupScreen(ReportsWorkerErrors, ModeScreen):
    """Guided first-time cluster setup: 1 Probe, 2 Review and edit, 3 Write."""

    CSS_PATH = "setup.tcss"
    #: Setup opens on its button, never in a text field: Textual's own first focus went to the Partition field a turn
    #: before `on_mount`'s, and a `3` or `1` typed meanwhile was typed there (operator pass op11: `31` in Partition)
    AUTO_FOCUS = "#run-probes"
    BINDINGS: ClassVar[list[BindingType]] = [
        # first: in a text field Esc leaves the field (k9s, lazygit), the step staying; then `1`/`2`/`3` switch modes
        # shown in a field (`esc Leave field`), as in the Topology step's: the footer said nothing of it (op12)
        Binding("escape", "leave_field", "Leave field", tooltip=LEAVE_FIELD),
        Binding("ctrl+r", "run_probes", "Run probes"),
        # a busy partition keeps the probe job pending: the operator can stop waiting (the job is cancelled)
        Binding("escape", "stop_probes", "Stop probing"),
        Binding("ctrl+s", "write", "Write profile"),
        Binding("escape", "back", "Back to probes", show=False),
    ]

    #: the step shown in the step bar: 1 Probe, 2 Review & edit, 3 Write
    step: reactive[int] = reactive(1, init=False)

    def __init__(
        self,
        hub: ContextHub,
        runner: ProbeRunner | None = None,
        options: ProbeOptions | None = None,
        profiles_dir: Path | None = None,
    ) -> None:
        super().__init__(id="setup")
        self.hub = hub
        self.runner: ProbeRunner = runner or _live_runner
        self.options = options or ProbeOptions()
        self.profiles_dir = profiles_dir
        self.step_status: dict[str, tuple[str, str]] = {}
        self.probe_run: ProbeRun | None = None
        self.proposal: Proposal | None = None
        self.selected: str | None = None
        self.written: Path | None = None
        #: what the last `Write profile` said (written, or why not), until a choice changes
        self._write_said: Text | None = None
        #: the profile file the proposal would write over names an `mpi_plugin` that does not load here: what the
        #: review says before writing, and what it writes instead ("" when not)
        self._mpi_note = ""
        #: while the probes run: the step running and what it last said (None before its first word)
        self._probe_said: tuple[str, str] | None = None
        self._probes_on = False

    # -- layout -------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield AppHeader("setup", self.hub)
        yield Static(id="setup-stepbar")
        with ContentSwitcher(initial="setup-probe", id="setup-switcher"):
            with Vertical(id="setup-probe"):
                yield Static(
                    "Probe the cluster: partitions, GPU request directive, account, and one compute node "
                    "through a small probe job. Nothing is changed on the cluster.",
                    classes="step-hint",
                )
                with Horizontal(id="probe-options"):
                    yield Label("Partition", classes="field-label")
                    yield Input(placeholder="e.g. gpu", id="opt-partition", compact=True)
                    yield Label("Shared paths", classes="field-label")
                    yield Input(placeholder="e.g. /shared/models", id="opt-paths", compact=True)
                    yield Button("Run probes", id="run-probes", variant="primary", compact=True)
                yield ProgressBar(total=len(STEPS), show_eta=False, id="probe-progress")
                yield Static(steps_text({}), id="probe-steps")
                with VerticalScroll(id="probe-findings-box"):
                    yield FindingsView("", id="probe-findings")
            with Vertical(id="setup-review"):
                with Horizontal(id="review-panes"):
                    with Vertical(id="proposal-box"):
                        # no `key value` header: its line goes to a key (at 80x24 four of twelve keys showed)
                        yield ProposalTable(
                            id="proposal-table", cursor_type="row", zebra_stripes=True, show_header=False
                        )
                        yield Static("", id="proposal-more")
                    with VerticalScroll(id="evidence-box"):
                        yield Static("", id="evidence")
                with Grid(id="choice-grid"):
                    for field, label, placeholder in FIELDS:
                        yield Label(label, classes="field-label")
                        # a time limit takes Slurm's time characters only ([D-]HH:MM:SS), a node count digits
                        typed, says = RESTRICT.get(field, (".*", "any text"))
                        yield TypedInput(
                            placeholder=placeholder, id=f"choice-{field}", compact=True, typed=typed, says=says
                        )
                with Horizontal(id="write-row"):
                    yield Button("Write profile", id="write-profile", variant="success", compact=True)
                    yield Button("Probe again", id="back", compact=True)
                    yield Static("", id="write-status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#choice-name", Input).value = "my-cluster"
        self.query_one("#opt-partition", Input).value = self.options.partition or ""
        self.query_one("#opt-paths", Input).value = " ".join(self.options.paths)
        self.watch_step(self.step)
        self.watch(self.query_one(ProposalTable), "scroll_y", self._say_more, init=False)

    @property
    def focus_chain(self) -> list[Widget]:
        """Textual's order but the evidence pane last: Tab from the proposal reaches the first field (operator pass:
        the first Tab after the probes went to the evidence pane, and the name typed next went nowhere)."""
        chain = super().focus_chain
        return [w for w in chain if w.id != "evidence-box"] + [w for w in chain if w.id == "evidence-box"]

    def on_key(self, event: events.Key) -> None:
        """Text typed on the review step where no text goes (the proposal, the evidence, a button) goes to the field
        it is about, which takes the focus: the highlighted row's field, else Profile name. Keys bound here (`q`,
        `?`, `1`, `j`/`k`) keep their meaning. Not on the probe step: there Esc leaves a field for its button, and
        what follows the Esc is keys (`1` Launch), not text for the field it left."""
        if not event.is_printable or event.key in self.active_bindings or isinstance(self.focused, Input):
            return
        target = self._field_for_text()
        if target is None:
            return
        event.stop()
        event.prevent_default()
        # the focus now (`focus()` waits a turn), so the key is queued behind its Focus event, which selects the
        # field's value: the key replaces it, as Tab then typing does
        self.set_focus(target)
        target.post_message(events.Key(event.key, event.character))

    def _field_for_text(self) -> Input | None:
        """Where text typed on the review step's table, evidence or buttons goes; None on the probe step."""
        if self.focused is None or self.query_one("#setup-switcher", ContentSwitcher).current != "setup-review":
            return None
        field = FIELD_OF_KEY.get(self.selected or "", "name")
        return self.query_one(f"#choice-{field}", Input)

    def watch_step(self, active: int) -> None:
        """Draw the step bar with step `active` highlighted."""
        parts = ["1 Probe", "2 Review & edit", "3 Write"]
        text = "  ›  ".join(f"[b reverse] {p} [/]" if i + 1 == active else f" {p} " for i, p in enumerate(parts))
        self.query_one("#setup-stepbar", Static).update(text)

    # -- probing (worker thread) --------------------------------------------------------------------

    def action_run_probes(self) -> None:
        """Start the probes (again), once every field passes the checks `setup --probe` makes before probing: a
        problem is shown on its field (red, its tooltip says it) and nothing is probed, where the probes (and the
        probe job) ran first and only the review then refused a name like `../x`."""
        problems = self._mark_fields()
        if problems:
            self._refuse_probing(problems)
            return
        partition = self.query_one("#opt-partition", Input).value.strip() or None
        paths = tuple(self.query_one("#opt-paths", Input).value.split())
        # the MPI plugin of the profile file the proposal would write over is tried too (pmix and pmi2 always are):
        # the review says so when it does not load
        plugin = file_mpi_plugin(existing_profile(self._target(self._choices()[0].name)))
        self.options = ProbeOptions(
            partition=partition,
            paths=paths,
            mpi_also=(plugin,) if plugin else (),
            extra_path=self.options.extra_path,
            workdir=self.options.workdir,
            command_timeout=self.options.command_timeout,
            tool_timeout=self.options.tool_timeout,
            node_timeout=self.options.node_timeout,
            probe_node=self.options.probe_node,
            stop=threading.Event(),
        )
        self.step_status = {}
        self._probes_on, self._probe_said = True, None
        self._say_probing()
        self.query_one("#probe-progress", ProgressBar).update(progress=0)
        self.query_one("#probe-steps", Static).update(steps_text({}))
        # off the button before it is disabled: Textual would hand the focus to the Partition field, which then
        # takes `?`, `2` and Tab as text while the probes run
        self.query_one("#probe-findings-box").focus()
        self.query_one("#run-probes", Button).disabled = True
        self.refresh_bindings()
        self.query_one("#setup-switcher", ContentSwitcher).current = "setup-probe"
        self.step = 1
        self.probe_worker(self.options)

    @work(thread=True, exclusive=True, group="setup-probes", name="setup-probes", exit_on_error=False)
    def probe_worker(self, options: ProbeOptions) -> None:
        """Run the injected probe runner off the UI thread; progress arrives as messages."""

        def progress(step: str, status: str, detail: str) -> None:
            self.post_message(ProbeProgress(step, status, detail))

        try:
            run = self.runner(options, progress)
        except Exception as exc:  # the runner must report, never crash the screen
            from srt_tui.setup.findings import Finding

            run = ProbeRun(findings=[Finding.bad("probes", f"{type(exc).__name__}: {exc}", "report this bug")])
        self.post_message(ProbesDone(run))

    def on_probe_progress(self, message: ProbeProgress) -> None:
        self.step_status[message.step] = (message.status, message.detail)
        if message.status == "running":
            self._probe_said = (message.step, message.detail)
            self._say_probing()
        self.query_one("#probe-steps", Static).update(steps_text(self.step_status))
        done = sum(1 for s, _ in self.step_status.values() if s != "running")
        self.query_one("#probe-progress", ProgressBar).update(progress=done)

    def _say_probing(self) -> None:
        """The findings pane while the probes run: what they are doing, the last run's findings marked as such."""
        if self._probes_on:
            previous = self.probe_run.findings if self.probe_run is not None else None
            self.query_one("#probe-findings", FindingsView).show_probing(self._probe_said, previous)

    def on_probes_done(self, message: ProbesDone) -> None:
        self.probe_run = message.run
        self._probes_on, self._probe_said = False, None
        # the probes are the newest word on Slurm: the header must not keep an older ✓ (or ✗)
        slurm = next((f for f in message.run.findings if f.name == "slurm"), None)
        reason = (slurm.value if slurm.ok else slurm.error) if slurm is not None else ""
        said = f"Setup probe: {reason}" if reason else "Setup probe"
        self.app.post_message(SlurmStatus(message.run.reachable, said, message.run.cluster_name or ""))
        self.query_one("#run-probes", Button).disabled = False
        self.refresh_bindings()
        self.query_one("#probe-progress", ProgressBar).update(progress=len(STEPS))
        self.query_one(FindingsView).show(message.run.findings)
        if message.run.account and not self.query_one("#choice-account", Input).value:
            self.query_one("#choice-account", Input).value = message.run.account
        self._rebuild()
        if self.options.stop is not None and self.options.stop.is_set():  # said, whichever step shows next
            self.notify(
                "Probing stopped: the compute node was not probed (no GPU, network or container facts from it). "
                "The proposal holds what the other probes found; Probe again when the partition has room.",
                title="Probes stopped",
                severity="warning",
                timeout=12,
            )
        if message.run.reachable and not self._probe_errors():  # a failed probe stays in view until fixed
            self.query_one("#setup-switcher", ContentSwitcher).current = "setup-review"
            self.call_after_refresh(self._rebuild)  # the table has its width now: fit the values to it
            self.step = 2
            self.query_one("#proposal-table", DataTable).focus()

    # -- review -------------------------------------------------------------------------------------

    def _choices(self) -> tuple[OperatorChoices, list[str]]:
        value = {field: self.query_one(f"#choice-{field}", Input).value.strip() for field, _, _ in FIELDS}
        errors: list[str] = []
        aliases: dict[str, dict[str, str]] = {}
        for field, key in (("models", "model_paths"), ("containers", "containers")):
            try:
                aliases[key] = parse_aliases(value[field])
            except ValueError as exc:
                aliases[key] = {}
                errors.append(f"{key}: {exc}")
        choices = OperatorChoices(
            name=value["name"] or "my-cluster",
            account=value["account"] or None,
            time_limit=value["time_limit"] or None,
            # digits only as typed; 0 reaches the profile model, which says `max_nodes` must be at least 1
            max_nodes=int(value["max_nodes"]) if value["max_nodes"].isdigit() else None,
            output_dir=value["output_dir"] or None,
            model_paths=aliases["model_paths"],
            containers=aliases["containers"],
        )
        return choices, errors

    def _field_problems(self) -> list[tuple[str, str]]:
        """(input id, what is wrong) of each field the CLI would refuse before probing: a relative shared path
        (`setup --path`), an alias list that is not alias=value, and the operator's choices (`choice_problems`)."""
        out = [
            ("opt-paths", f"`{path}` is relative: give the absolute path the compute nodes see")
            for path in self.query_one("#opt-paths", Input).value.split()
            if not Path(path).is_absolute()
        ]
        for field in ("models", "containers"):
            try:
                parse_aliases(self.query_one(f"#choice-{field}", Input).value.strip())
            except ValueError as exc:
                out.append((f"choice-{field}", str(exc)))
        for where, message in choice_problems(self._choices()[0]):
            choice, _, alias = where.partition(".")
            shown_in = FIELD_OF_CHOICE.get(choice)
            if shown_in is not None:
                out.append((f"choice-{shown_in}", f"{alias}: {message}" if alias else message))
        return out

    def _mark_fields(self) -> list[tuple[str, str]]:
        """Show each field's problems on it (`-invalid`, red; the tooltip says what is wrong) and clear the fields
        that have none; returns the problems."""
        problems = self._field_problems()
        said: dict[str, list[str]] = {}
        for where, message in problems:
            said.setdefault(where, []).append(message)
        for field in self.query("#probe-options Input, #choice-grid Input").results(Input):
            messages = said.get(field.id or "")
            field.set_class(bool(messages), "-invalid")
            field.tooltip = "; ".join(messages) if messages else None
        return problems

    def _refuse_probing(self, problems: list[tuple[str, str]]) -> None:
        """Nothing probed: the first field with a problem shown (the review step's fields are on the review step)
        and focused, and every problem said, as `setup --probe` says them before probing."""
        where = problems[0][0]
        if where.startswith("choice-"):
            self.query_one("#setup-switcher", ContentSwitcher).current = "setup-review"
            self.step = 2
        self.query_one(f"#{where}", Input).focus()
        labels = {"opt-paths": "Shared paths", **{f"choice-{f}": label for f, label, _ in FIELDS}}
        lines = [f"{labels.get(w, w)}: {m}" for w, m in problems]
        self.notify("\n".join(lines), title="Fix before probing", severity="error", timeout=12)

    @on(ProposalTable.Resized)
    def _table_resized(self) -> None:
        """Fit the values to the table's new width (its own: the screen's resize comes before the layout it makes)."""
        self._draw_table()

    def _probe_errors(self) -> list[str]:
        """The probes' failures (findings that make jobs fail): they block writing like a bad field."""
        findings = self.probe_run.findings if self.probe_run is not None else []
        return [f"{f.name}: {f.error}" + (f" ({f.fix})" if f.fix else "") for f in findings if f.level == "error"]

    def _rebuild(self) -> None:
        if self.probe_run is None:
            return
        choices, errors = self._choices()
        self._say_defaults()
        target = self._target(choices.name)
        old = existing_profile(target)
        proposal = build_proposal(self.probe_run, choices, old, self._shown(target))
        proposal.problems = [*errors, *self._probe_errors(), *proposal.problems]
        self.proposal = proposal
        self._mpi_note = mpi_plugin_note(old, proposal.data(), self.probe_run.mpi)
        self.refresh_bindings()  # `ctrl+s Write profile` now applies
        self._draw_table()
        self._show_evidence()
        self.query_one("#write-profile", Button).disabled = bool(proposal.problems)
        self._say_write_status()

    def _draw_table(self) -> None:
        """The proposal's keys and values, fitted to the table's width now."""
        proposal = self.proposal
        if proposal is None:
            return
        table = self.query_one(ProposalTable)
        row = table.cursor_row
        table.clear(columns=True)
        # the value column takes the width left by the keys, and a longer value wraps: never cut
        # (before the table is laid out its width is unknown: auto width, fitted once it shows)
        key_width = max((len(k.key) for k in proposal.keys), default=3)
        values = [value_lines(k) for k in proposal.keys]
        # room for the vertical scrollbar too when the rows will need it (it appears after this fit)
        overflow = sum(map(len, values)) > table.scrollable_content_region.height and not table.show_vertical_scrollbar
        bar = table.styles.scrollbar_size_vertical if overflow else 0
        room = table.scrollable_content_region.width - bar - key_width - 4 * table.cell_padding
        longest = max((len(line) for lines in values for line in lines), default=5)
        width = min(max(room, 12), longest) if room > 0 else None
        table.add_column("key", width=key_width)
        table.add_column("value", width=width)
        for key, lines in zip(proposal.keys, values, strict=True):
            # broken after `/`, `,` or `=`, never mid-word; only a word wider than the column is folded
            table.add_row(key.key, Text(wrap_value(lines, width or 0), overflow="fold"), key=key.key, height=None)
        if proposal.keys:
            table.move_cursor(row=min(max(row, 0), len(proposal.keys) - 1))
            self.selected = proposal.keys[min(max(row, 0), len(proposal.keys) - 1)].key
        self.call_after_refresh(self._say_more)

    def _say_more(self) -> None:
        """Under the table, how many keys are above or below its view (`↓ 4 more keys below`), or nothing when it
        shows them all: at 80x24 the table showed 4 of its 12 keys and nothing said there were more."""
        table = self.query_one(ProposalTable)
        top, height = round(table.scroll_y), table.scrollable_content_region.height
        above = below = y = 0
        for row in table.ordered_rows:
            above += y < top
            below += y + row.height > top + height
            y += row.height
        parts = [f"↑ {above} {'key' if above == 1 else 'keys'} above"] if above else []
        if below:
            parts.append(f"↓ {below} more {'key' if below == 1 else 'keys'} below")
        more = self.query_one("#proposal-more", Static)
        more.update(" · ".join(parts))
        more.display = bool(parts) and height > 0

    def _say_defaults(self) -> None:
        """Each defaulted field's hint says what an empty field writes, from the probes (`default: 3` nodes of the
        partition, `default: 04:00:00`), so an empty field is never mistaken for a set one nor for an unset one."""
        if self.probe_run is None:
            return
        # an empty Partition probes the cluster's default one: once known, the hint names it
        default_partition = self.probe_run.partition if self.options.partition is None else None
        self.query_one("#opt-partition", Input).placeholder = (
            f"default: {default_partition}" if default_partition else "e.g. gpu"
        )
        empty = build_proposal(self.probe_run, OperatorChoices())
        for field, key in DEFAULTED.items():
            hint = next(h for f, _, h in FIELDS if f == field)
            proposed = empty.key(key)
            if proposed is not None and proposed.written:
                hint = f"default: {proposed.value}"
            self.query_one(f"#choice-{field}", Input).placeholder = hint

    def _say_write_status(self) -> None:
        """The line beside `Write profile`, wrapped whole (at 80 columns `✓ wrote … to the user profile` lost where to
        choose it): what the last write said, else why writing waits (the evidence pane, six lines high at 80x24,
        showed `Must fix before writing:` without the problems under it)."""
        said = self._write_said
        if said is None and self.proposal is not None and self.proposal.problems:
            said = Text("✗ fix before writing: " + "; ".join(self.proposal.problems), style="red")
        if said is None and self._mpi_note:  # the file it writes over: what is wrong with it, and what replaces it
            said = Text(f"⚠ {self._mpi_note}", style="yellow")
        self.query_one("#write-status", Static).update(said or "")

    def _show_evidence(self) -> None:
        if self.proposal is not None:
            self.query_one("#evidence", Static).update(evidence_text(self.proposal, self.selected))

    @on(DataTable.RowHighlighted, "#proposal-table")
    def _row(self, event: DataTable.RowHighlighted) -> None:
        self.selected = str(event.row_key.value) if event.row_key.value is not None else None
        self._show_evidence()

    @on(Input.Changed, "#choice-grid Input")
    def _choice_changed(self) -> None:
        self.written = None
        self._write_said = None
        self._rebuild()
        self._mark_fields()  # a field shows its problem while it has one, and is cleared once fixed

    @on(Input.Changed, "#opt-paths")
    def _paths_changed(self) -> None:
        if self.query_one("#opt-paths", Input).has_class("-invalid"):  # cleared once fixed, not marked while typed
            self._mark_fields()

    # -- buttons and actions ------------------------------------------------------------------------

    @on(Button.Pressed, "#run-probes")
    def _run_pressed(self) -> None:
        self.action_run_probes()

    @on(Button.Pressed, "#write-profile")
    def _write_pressed(self) -> None:
        self.action_write()

    @on(Button.Pressed, "#back")
    def _back_pressed(self) -> None:
        self.action_back()

    def action_leave_field(self) -> None:
        """Esc in a text field: the focus leaves it for the step's table or button, the step staying (on the review
        step it went back to the probes, the proposal out of sight), so the next `1`/`2`/`3` switches modes."""
        if self.query_one("#setup-switcher", ContentSwitcher).current == "setup-review":
            self.query_one("#proposal-table", DataTable).focus()
            return
        button = self.query_one("#run-probes", Button)
        if button.disabled:  # the probes run: the findings pane, which Esc then stops
            self.query_one("#probe-findings-box").focus()
        else:
            button.focus()

    def action_back(self) -> None:
        """Return to the probe step."""
        self.query_one("#setup-switcher", ContentSwitcher).current = "setup-probe"
        self.step = 1
        self.query_one("#run-probes", Button).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`ctrl+s Write profile` exists once the probes proposed one: before that the key did nothing visible
        (its "run the probes first" went to the review step, which was not shown)."""
        button = self.query("#run-probes")
        probing = bool(button) and button.first(Button).disabled  # the probes are running
        if action == "write":
            return self.proposal is not None and not probing  # not the last run's proposal while a new one runs
        if action == "run_probes":
            return not probing
        if action == "stop_probes":
            return probing
        if action == "back":
            return not probing
        if action == "leave_field":
            return isinstance(self.focused, Input)
        return True

    def on_unmount(self) -> None:
        """The app quits (`q`) while the probes wait on a queued job: they stop and cancel it, so the quit is prompt
        and leaves no job behind (the app waited out the node timeout, up to two minutes, on a blank screen)."""
        if self.options.stop is not None:
            self.options.stop.set()

    def action_stop_probes(self) -> None:
        """Stop waiting for the probe job: it is cancelled and the probes end with what they found so far."""
        if self.options.stop is not None and not self.options.stop.is_set():
            self.options.stop.set()
            self.notify("Stopping: the probe job is cancelled.", timeout=4)

    def palette_actions(self) -> list[PaletteAction]:
        """The palette's Setup entries (writing needs the probes' proposal first)."""
        out = [PaletteAction("Run probes", "Probe the cluster (Slurm, GPUs, network, containers)", "run_probes")]
        if self.proposal is not None:
            out.append(PaletteAction("Write profile", "Write the reviewed profile", "write"))
        return out

    def _target(self, name: str) -> Path:
        """The profile file `name` is written to."""
        from srt_tui.core.paths import user_profiles_dir

        return (self.profiles_dir or user_profiles_dir()) / f"{name}.yaml"

    @staticmethod
    def _shown(target: Path) -> str:
        from srt_tui.tui.display import home_path

        return home_path(target)

    def action_write(self) -> None:
        """Write the proposal to the user profile directory as <name>.yaml, saying the file's full path; over an
        existing file only once the operator agreed to the keys it loses or changes (operator pass: a probe stopped
        while pending silently replaced a working profile with one lacking its node keys)."""
        if self.proposal is None:
            self._write_said = Text("run the probes first", style="red")
            self._say_write_status()
            return
        choices, _ = self._choices()
        target = self._target(choices.name)
        old = existing_profile(target)
        lost, changed = profile_changes(old, self.proposal.data()) if old else ([], [])
        note = mpi_plugin_note(old, self.proposal.data(), self.probe_run.mpi if self.probe_run else None)
        if not target.exists() or not (lost or changed or note):
            self._write(target)
            return
        proposal = self.proposal

        def answered(yes: bool | None) -> None:
            if yes and self.proposal is proposal:  # the proposal asked about, not one edited since
                self._write(target)
            else:
                self._write_said = Text(f"not written: {self._shown(target)} kept as it was", style="yellow")
                self._say_write_status()

        self.app.push_screen(ConfirmOverwrite(self._shown(target), lost, changed, [note] if note else []), answered)

    def _write(self, target: Path) -> None:
        """Write the proposal to ``target`` (validated again from the file), then hand the focus to the table."""
        from srt_tui.core.errors import SrtError
        from srt_tui.core.spec.profile import parse_profile

        assert self.proposal is not None
        name = target.stem
        try:
            write_proposal(self.proposal, target, header=f"{name}: written by srt-tui Setup mode")
            parse_profile(target)
        except (ValueError, OSError, SrtError) as exc:
            self._write_said = Text(f"not written: {exc}", style="red")
            self._say_write_status()
            return
        self.written = target
        self.step = 3
        # the full path (`~/…` under home): `to the user profile directory` left the operator to find where that is
        self._write_said = Text.assemble((f"✓ wrote {self._shown(target)}", "green"), "; choose it in Launch (1)")
        self._say_write_status()  # no toast as well: it covered this very line's end (where to choose the profile)
        # off the text fields: the `1` the line names switches to Launch (operator pass: it typed `30:001`)
        self.query_one("#proposal-table", DataTable).focus()
        written = self.hub.context.profiles_written + 1
        self.hub.update(profiles_written=written, written_profile=target.stem)
