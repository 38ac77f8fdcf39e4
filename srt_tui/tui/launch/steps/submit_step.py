"""Step 5: confirm what will be asked for (of Slurm, or of this machine), pick the launcher, submit (in a worker).

What this machine can check (model and container paths, which may sit on a hung Lustre/NFS mount; the programs and
Python modules a container-less plan starts) runs in a worker too: until it answers the rows say `checking…` and
Submit waits, while every key keeps working.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, RadioButton, RadioSet, Static

from srt_tui.core.plan.host_programs import said_missing
from srt_tui.tui.launch.host_findings import HostCache, HostChecksDone, HostFindings, default_launcher, find_on_host
from srt_tui.tui.launch.messages import JobSubmitted, SubmitFailed, SweepMemberSent, SweepSubmitted
from srt_tui.tui.launch.steps.base import ClonedRun, WizardState, WizardStep
from srt_tui.tui.messages import SlurmStatus
from srt_tui.widgets.choice_button import ChoiceButton, ChoiceSet
from srt_tui.widgets.scroll_panel import ScrollPanel

if TYPE_CHECKING:
    from srt_tui.core.api import Prepared
    from srt_tui.slurm.preflight import PreflightCheck
    from srt_tui.slurm.sweep_submit import SweepCheck
    from srt_tui.tui.context import AppContext, ContextHub


#: the step's first line (when the job ends is the request's `benchmark` row)
HINT = "Check the request, pick the launcher, then submit."


class PreflightDone(Message):
    """The preflight of a prepared job against the cluster finished (run in a worker)."""

    def __init__(self, prepared: Prepared, checks: list[PreflightCheck]) -> None:
        super().__init__()
        self.prepared = prepared
        self.checks = checks


#: why Submit waits while this machine's checks of the job have not answered (the paths may be on a hung mount)
CHECKING = "checking paths and programs…"
#: what undoes a submit asked for while the checks run
SUBMIT_PENDING = "Esc or another launcher cancels"
#: the way past a model or container path this machine does not see, with Slurm (the CLI's `apply --no-preflight`)
ANYWAY = "Ctrl+N again: submit anyway (compute nodes may see it)"
#: the same past a program or module this machine lacks, with Slurm: the nodes may have it
ANYWAY_NODES = "Ctrl+N again: submit anyway (compute nodes may have it)"
#: the same past a module this shell's Python lacks, with Local: the job's own environment (its profile's bash
#: preamble) may bring another Python
ANYWAY_HERE = "Ctrl+N again: submit anyway (the job's own environment may bring it)"


class SubmitStep(WizardStep):
    """The request summary, the launcher choice (with why), and the Submit button."""

    step_id: ClassVar[str] = "submit"
    title: ClassVar[str] = "Submit"
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "submit-step--key",
        "submit-step--ok",
        "submit-step--bad",
        "submit-step--dim",
    }

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(id=id)
        self.prepared: Prepared | None = None
        #: a sweep chosen whole: Submit sends every member (``prepared`` is its first member's, which the launcher
        #: choice and this machine's checks follow); None for one job
        self.sweep: SweepCheck | None = None
        #: the members of the sweep being submitted that went (job ids) and were refused, as they answer
        self._sweep_sent: list[str] = []
        self._sweep_refused: list[str] = []
        self.hub: ContextHub | None = None
        self._slurm_seen: tuple[str, str] | None = None
        #: the Slurm state and reason the launcher note says
        self._slurm_now: tuple[str, str] = ("checking", "")
        self.read_only = False
        self.submitting = False
        self._touched = False
        #: the launcher a cloned job ran with, while its recipe and profile are the ones shown (None: the profile
        #: decides); and the clone it came with (a new clone starts over)
        self._cloned_launcher: str | None = None
        self._clone: ClonedRun | None = None
        #: the launcher the step selected itself (the profile's); a RadioSet.Changed to it is not the operator's
        self._auto_choice = "slurm"
        self._status_blocked = False
        self._status_failed = False
        #: the status line says the job just submitted past the path checks, which still fail: it stays until the
        #: operator acts (another press, launcher or job), not replaced by their refusal at the next redraw
        self._status_sent_anyway = False
        #: the preflight shown (for ``_preflight_of``); it runs when Slurm answers, as `apply` runs it
        self.preflight: list[PreflightCheck] = []
        self._preflight_of: Prepared | None = None
        #: Slurm went down since the preflight ran: it runs again when Slurm answers
        self._preflight_stale = False
        #: plans submitted from here (by their launch script and launcher) and their job: the same plan again asks
        #: first (issue 21 defect 8); a clone is a copy asked for, and another launcher another job
        self._sent: dict[tuple[str, str], str] = {}
        self._copy_asked = False
        #: what this machine found for the prepared job, by launcher (the wizard's, `WizardState.host`, once
        #: entered): `host_checks` (what `srt-tui preflight` and `apply` check: model and container paths, programs),
        #: run here too so Submit refuses what they refuse, and the programs a container-less plan lacks (issue 21
        #: defect 10); asked in a worker once per job and launcher, by this step or Topology (a hung mount is not
        #: asked again)
        self._hosts = HostCache()
        #: Ctrl+N (or Submit) pressed while this machine's checks ran: the job and launcher it submits once they
        #: answer and allow it (the README's `ctrl+n ctrl+n ctrl+n` typed at once met a held Submit and was lost);
        #: another launcher, leaving the step or a new job forgets it. Not `HoldKeys`, which holds every key for
        #: `HOLD_MAX_S` at most: while a hung mount kept the checks, Esc waited out the hold and Ctrl+N was then lost
        self._submit_when_checked: tuple[Prepared, str] | None = None
        #: the operator pressed Ctrl+N (or Submit) once, after seeing only checks fail that may be wrong about where
        #: the job runs (`PreflightCheck.waivable`: a model only the compute nodes see, a module they have): the job
        #: and launcher the next press submits anyway (the CLI's `--no-preflight`); never armed by a press typed
        #: before the checks answered; another launcher, leaving the step or a new job forgets it
        self._waived: tuple[Prepared, str] | None = None

    def compose(self) -> ComposeResult:
        yield Static(HINT, classes="step-hint", id="submit-hint")
        with Horizontal(id="submit-body"):
            # the request scrolls in its box at every width: a Tab stop, scrolled by j/k, the arrows, PgUp/PgDn,
            # Home/End (at 80x24 beside the launcher it showed 18 of its ~59 lines, the rest out of the keys' reach)
            with ScrollPanel(id="request-box"):
                yield Static("", id="request")
            with Vertical(id="launcher-box"):
                with ChoiceSet(id="launcher"):
                    yield ChoiceButton("Slurm (sbatch)", id="launcher-slurm", value=True)
                    yield ChoiceButton("Local (this machine)", id="launcher-local")
                # the button right under the choice: a long Slurm error below must not push it out of view
                yield Button("Submit", id="submit", variant="primary")
                yield Static("", id="submit-status")
                with VerticalScroll(id="launcher-note-box", can_focus=False):
                    yield Static("", id="launcher-note")

    def on_mount(self) -> None:
        self.query_one("#launcher-box").border_title = "Launcher"

    async def enter(self, state: WizardState) -> None:
        self.read_only = state.hub.context.read_only
        self._hosts = state.host  # an answer about the job shown before is dropped when it comes
        self._submit_when_checked = self._waived = None  # asked on an earlier visit: not now
        self.sweep = state.sweep
        if state.prepared is not None and state.prepared is not self.prepared:
            if self.prepared is not None and self.prepared.job.profile is not state.prepared.job.profile:
                self._touched = False  # another profile: its own launcher until the operator picks one
            self.prepared = state.prepared
            self._cloned_launcher = state.cloned_launcher()
            if self._cloned_launcher is not None and state.cloned is not self._clone:
                self._clone = state.cloned
                self._touched = False  # the clone's launcher, until the operator picks one
                self._sent = {k: v for k, v in self._sent.items() if k[0] != state.prepared.script}
            self._copy_asked = False
            self.preflight = []
            self.query_one("#submit-status", Static).update("")
            self._status_blocked = self._status_failed = self._status_sent_anyway = False
            self._render_request()
        if self.read_only:
            self.query_one("#submit", Button).label = "Submit (read-only mode)"
        if self.hub is None:  # first entry: watch the app's Slurm state from now on (draws the choice now)
            self.hub = state.hub
            self.hub.watch(self, self._context_changed)
        else:  # the launcher note and the default choice follow this job's profile
            self._slurm_changed(self.hub.context.slurm_state, self.hub.context.slurm_reason)
        # the launcher about to be chosen (a choice made just now shows once its RadioSet.Changed is handled)
        self._ask_host(self.launcher if self._touched else self._auto_choice)

    def on_resize(self) -> None:
        """The request's URL line follows the width (beside its label or under it)."""
        self.call_after_refresh(self._render_request)

    def _render_request(self) -> None:
        from srt_tui.slurm.preflight import failing_line, worst_first
        from srt_tui.tui.launch.wizard import local_request, slurm_request

        if self.prepared is None:
            return
        st = self._style
        request = (local_request if self.launcher == "local" else slurm_request)(self.prepared)
        if self.sweep is not None:  # each member's name is in the sweep's list; the rest is every member's
            request = [(key, value) for key, value in request if key != "job name"]
        keyw = max(len(k) for k in [*(key for key, _ in request), "serving at", "preflight", "benchmark", "sweep"])

        def new_grid() -> Table:  # the same key column in both grids: they read as one
            grid = Table.grid(padding=(0, 2))
            grid.add_column(style=st("submit-step--key"), no_wrap=True, min_width=keyw)
            grid.add_column()
            return grid

        grid = new_grid()
        if self.sweep is not None:
            self._sweep_rows(grid)
        for key, value in request:
            grid.add_row(key, Text(value, overflow="fold"))  # a long word folds: never cut at 80 columns
        plan = self.prepared.plan
        grid.add_row("", "")
        counts = ", ".join(f"{n} {role}" for role, n in plan.expected_counts().items())
        front = f"front {plan.front}" if plan.nginx else f"router {plan.front}"  # nginx before its routers, named
        grid.add_row("workers", Text(f"{counts} · {front}" if plan.router else counts))
        # the URL whole: beside its label when it fits, else on a line of its own under it (not folded mid-URL)
        room = self.query_one("#request", Static).content_region.width
        parts: list[RenderableType] = [grid]
        if not room or keyw + 2 + len(plan.public_url) <= room:
            grid.add_row("serving at", Text(plan.public_url, overflow="fold"))
        else:
            grid.add_row("serving at", "")
            parts.append(Text("  " + plan.public_url, overflow="fold"))
            grid = new_grid()  # the rows after the URL line
            parts.append(grid)
        grid.add_row("benchmark", Text(ends_when(self.prepared, local=self.launcher == "local")))
        # a path longer than the value column is cut in its middle, never at the column's edge (`…/bin/pytho…`)
        self._value_room = max(room - keyw - 2, 0) if room else 0
        rest = new_grid()
        found = self._host.get(self.launcher)
        if found is None:  # asked in a worker: the paths may be on a hung mount
            dim = st("submit-step--dim")
            rest.add_row("paths", Text("checking… the model and container paths, from this machine", style=dim))
            if plan.container_runtime == "none":  # a container brings its own programs: none are checked
                rest.add_row("programs", Text("checking… the programs and Python modules the job starts", style=dim))
        checks = self.host_checks()  # worst first (`worst_first`): the section of the worst check is listed first
        sections = [self._path_rows, self._program_rows]
        if checks and checks[0].name == "programs":
            sections.reverse()
        for add_rows in sections:
            add_rows(rest, checks, found)
        # Slurm's checks (partition, nodes, time vs MaxTime) are about a Slurm job: beside Local they read as if
        # Slurm would be used; they show with Slurm (sbatch) chosen
        if self._slurm_checks_shown():
            rest.add_row("", "")
            # asked while Slurm answered: with Slurm down now, its answers are stale (a `✓ partition: gpu exists`
            # stayed beside `Slurm ✗ unreachable`), marked `?` and said so once
            stale = self.hub is not None and self.hub.context.slurm_state == "down"
            if stale:
                note = Text(
                    "? Slurm's answers before it stopped answering: checked again when it does",
                    style=st("submit-step--dim"),
                )
                rest.add_row("preflight", note)
            for i, check in enumerate(worst_first(self.preflight)):
                rest.add_row("preflight" if i == 0 and not stale else "", self._check_text(check, stale))
        if rest.row_count:
            parts.append(rest)
        shown = [*checks, *(self.preflight if self._slurm_checks_shown() else [])]
        if worst := failing_line(shown):  # at the top: the worst problem is seen without scrolling (80x24)
            parts.insert(0, Text(worst, style=st("submit-step--bad"), no_wrap=True, overflow="ellipsis"))
        self.query_one("#request", Static).update(Group(*parts))

    def _sweep_rows(self, grid: Table) -> None:
        """The sweep's members above the request: how many, the nodes and GPUs they ask for in all, and each
        member's name, swept values and shape (the request below is every member's but for those)."""
        assert self.sweep is not None
        ready = self.sweep.ready
        nodes = sum(prep.plan.nodes for _, prep in ready)
        gpus = sum(prep.plan.nodes * prep.plan.gpus_per_node for _, prep in ready)
        said = f"{len(ready)} jobs, one group · {nodes} nodes, {gpus} GPUs in all"
        grid.add_row("sweep", Text(said, style=self._style("submit-step--ok")))
        for m, prep in ready:
            values = " ".join(f"{k}={v}" for k, v in self.sweep.values.get(m.selector, {}).items())
            shape = f"{prep.plan.topology} · {prep.plan.nodes} node{'s' if prep.plan.nodes != 1 else ''}"
            line = Text(m.name, overflow="fold")
            line.append(f"  {values}" if values else "")
            line.append(f"  {shape}", style=self._style("submit-step--dim"))
            grid.add_row("", line)
        grid.add_row("", "")

    def _slurm_checks_shown(self) -> bool:
        """Slurm's checks (partition, nodes, time) are listed: about this job, with Slurm (sbatch) chosen."""
        return bool(self.preflight) and self._preflight_of is self.prepared and self.launcher == "slurm"

    def _path_rows(self, grid: Table, checks: list[PreflightCheck], found: HostFindings | None) -> None:
        """What `apply` and `srt-tui preflight` refuse: the model, the container, as this machine sees them."""
        for i, check in enumerate(c for c in checks if c.name != "programs" and c.ok is not True):
            grid.add_row("paths" if i == 0 else "", self._check_text(check))

    def _program_rows(self, grid: Table, checks: list[PreflightCheck], found: HostFindings | None) -> None:
        """The programs and Python modules a container-less job starts that this machine lacks."""
        for i, missing in enumerate(found.missing if found else []):
            problem = missing.problem()
            text = Text(self._fit(f"✗ {problem.message}"), style=self._style("submit-step--bad"))
            text.append(self._fit(f"\n  fix: {problem.hint}"), style=self._style("submit-step--dim"))
            grid.add_row("programs" if i == 0 else "", text)

    def _check_text(self, check: PreflightCheck, stale: bool = False) -> Text:
        """One preflight line: ✓ fits, ✗ what is wrong and the fix, · could not check (does not block); ``stale``:
        Slurm does not answer now, so what it said is `?`, unknown today."""
        st, fit = self._style, self._fit
        if stale:
            return Text(fit(f"? {check.name}: {check.message}"), style=st("submit-step--dim"))
        if check.ok is None:
            return Text(fit(f"· {check.name}: {check.message}"), style=st("submit-step--dim"))
        if check.ok:
            return Text(fit(f"✓ {check.name}: {check.message}"), style=st("submit-step--ok"))
        text = Text(fit(f"✗ {check.name}: {check.message}"), style=st("submit-step--bad"))
        if check.fix:
            text.append(fit(f"\n  fix: {check.fix}"), style=st("submit-step--dim"))
        return text

    #: the request's value column, in columns (0: not laid out yet)
    _value_room = 0

    def _fit(self, text: str) -> str:
        """``text`` with each path longer than the value column cut in its middle (`/root/…/bin/python`), as
        `status` cuts them: a path cut at the column's edge lost its file name."""
        from srt_tui.tui.display import fit_paths

        return fit_paths(text, self._value_room)

    def _maybe_preflight(self) -> None:
        """Check the prepared job against the cluster once Slurm answers (the same checks as `apply`)."""
        if self.prepared is None or self._preflight_of is self.prepared:
            return
        if self.hub is None or self.hub.context.slurm_state != "up":
            return
        self._preflight_of = self.prepared
        self.run_preflight(self.prepared)

    @work(thread=True, exclusive=True, group="preflight", name="preflight", exit_on_error=False)
    def run_preflight(self, prepared: Prepared) -> None:
        """The preflight, off the UI thread (it asks Slurm for partitions, nodes and accounts)."""
        from srt_tui.slurm.errors import SlurmError
        from srt_tui.slurm.preflight import PreflightCheck, demand_of, preflight
        from srt_tui.slurm.select import get_client

        try:
            checks = preflight(get_client(None, require_reachable=False), demand_of(prepared), face="tui")
        except (SlurmError, ValueError) as exc:
            checks = [PreflightCheck("preflight", None, f"not run: {exc}")]
        self.post_message(PreflightDone(prepared, checks))

    @on(PreflightDone)
    def _preflight_done(self, message: PreflightDone) -> None:
        message.stop()
        if message.prepared is self.prepared:
            self.preflight = message.checks
            self._render_request()
            self._submit_allowed()  # a check that failed shows under the button: the request's foot is below the fold

    def _context_changed(self, context: AppContext) -> None:
        """Only a new Slurm state or reason redraws the launcher choice (not e.g. a new profile label)."""
        seen = (context.slurm_state, context.slurm_reason)
        if seen != self._slurm_seen:
            self._slurm_seen = seen
            self._slurm_changed(*seen)

    def _slurm_changed(self, state: str, reason: str) -> None:
        self._slurm_now = (state, reason)
        if state == "up":
            if self._preflight_stale:  # what it said before it went away may have changed: asked again
                self._preflight_stale, self._preflight_of = False, None
            self._maybe_preflight()
        elif state == "down":
            self._preflight_stale = True
        self._draw_note()
        self._choose_default()
        self._title_request()
        self._render_request()  # the preflight's marks follow whether Slurm answers now
        self._submit_allowed()

    def _draw_note(self) -> None:
        """The launcher note: whether Slurm answers and why this launcher is chosen. Slurm's failure is one line
        (`first_line`; `srt-tui doctor` gives its whole answer), and with Local chosen one dim line: Local needs no
        Slurm (operator pass 9: the demo's Submit step showed scontrol's 14-line DNS failure beside Local)."""
        from srt_tui.slurm.errors import first_line

        st = self._style
        state, reason = self._slurm_now
        note = Text()
        if state == "up":
            note.append("✓ Slurm is reachable", style=st("submit-step--ok"))
            if reason:
                note.append(f": {reason}", style=st("submit-step--dim"))
            if why := self._why_chosen(slurm_answers=True):
                note.append("\n" + why)
        elif state == "down" and self.launcher == "local":
            self._say_local_choice(note)
            note.append(
                f"\nSlurm: not reachable from here ({first_line(reason) or 'no answer'})", st("submit-step--dim")
            )
        elif state == "down":
            note.append("✗ Slurm is not reachable", style=st("submit-step--bad"))
            note.append(f": {first_line(reason) or 'no answer'}.\n", style=st("submit-step--dim"))
            if self.prepared is not None and len(reason) > len(first_line(reason)):
                note.append(
                    f"Slurm's whole answer: `srt-tui doctor -p {self.prepared.plan.profile}`\n", st("submit-step--dim")
                )
            self._say_local_choice(note)  # what Submit cannot do is said once, under its button (`_blocked`)
        elif state == "off":
            note.append("Slurm check is off: submitting to Slurm may fail; the local launcher runs on this machine.")
        else:
            note.append("Checking whether Slurm answers…", style=st("submit-step--dim"))
        self.query_one("#launcher-note", Static).update(note)

    def _say_local_choice(self, note: Text) -> None:
        """With Slurm down: why the launcher is what it is, and, for a cluster profile, that Local runs it here."""
        if self._preferred() == "local":
            note.append(self._why_chosen(slurm_answers=False))
            return
        if why := self._why_chosen(slurm_answers=False):
            note.append(why + " ")
        note.append("Local (this machine) runs every process of this plan here: choose it only if you mean to.")

    def _why_chosen(self, slurm_answers: bool) -> str:
        """Why the launcher chosen for the operator is not Slurm, or not the profile's own ('' when it is both): a
        clone runs where its job ran, and says so whenever the profile would run it elsewhere."""
        from srt_tui.slurm.submit import profile_launcher

        if self.prepared is None:
            return ""
        profile = self.prepared.job.profile
        own, chosen = profile_launcher(profile, slurm_answers=slurm_answers), self._preferred()
        if chosen != own:  # only a clone's launcher differs from the profile's
            ran, choice = ("on this machine", "Local") if chosen == "local" else ("on Slurm", "Slurm (sbatch)")
            return f"The cloned job ran {ran}: {choice} is chosen, not this profile's own launcher ({own})."
        if own != "local":
            return ""
        if profile.launcher == "local":
            return "This profile runs on this machine (launcher: local); Slurm (sbatch) sends it to the cluster."
        return "This profile runs on this machine without Slurm (its fallback_launcher): Local."

    def _preferred(self) -> str:
        """The launcher this job's profile asks for now (`profile_launcher`, the rule `apply` follows too):
        never Local for a Slurm profile unless its `fallback_launcher` says so and Slurm does not answer; a
        clone's, while its recipe and profile are chosen (`_why_chosen` says so when the profile's differs)."""
        if self.prepared is None:
            return "slurm"
        down = self.hub is not None and self.hub.context.slurm_state == "down"
        return default_launcher(self.prepared.job.profile, self._cloned_launcher, down)

    def _choose_default(self) -> None:
        """Select the profile's launcher until the operator picks one; their pick is never changed for them."""
        if self._touched:
            return
        self._auto_choice = self._preferred()
        button = self.query_one(f"#launcher-{self._auto_choice}", RadioButton)
        if not button.value:
            button.value = True

    def host_checks(self) -> list[PreflightCheck]:
        """What `srt-tui preflight` and `apply` check from this machine for the chosen launcher (`host_checks`, the
        one list of both faces), as far as they answered ([] while they run: `_checking`)."""
        found = self._host.get(self.launcher)
        return found.checks if found else []

    def _checking(self) -> bool:
        """This machine's checks of the prepared job for the chosen launcher have not answered yet."""
        return self.prepared is not None and self.launcher not in self._host

    @property
    def _host(self) -> dict[str, HostFindings]:
        """What this machine found for the prepared job, by launcher, as far as it answered."""
        return self._hosts.answers(self.prepared)

    def _ask_host(self, launcher: str) -> None:
        """Start this machine's checks of the prepared job for ``launcher``, unless they answered or are running
        (the Topology step may have asked already)."""
        if self.prepared is not None and self._hosts.ask(self.prepared, launcher):
            self.run_host_checks(self.prepared, launcher)

    @work(thread=True, group="host-checks", name="host-checks", exit_on_error=False)
    def run_host_checks(self, prepared: Prepared, launcher: str) -> None:
        """`find_on_host` off the UI thread: a path on a hung mount stalls this worker, never the screen; the answer
        goes to the launch screen, which keeps it and calls `host_answered`."""
        self.post_message(HostChecksDone(prepared, launcher, find_on_host(prepared, launcher)))

    def host_answered(self, prepared: Prepared, launcher: str) -> None:
        if prepared is not self.prepared or launcher != self.launcher:  # kept: shown when its launcher is chosen
            return
        self._render_request()
        self._submit_allowed()
        if self._submit_when_checked == (prepared, launcher) and self.display:
            self._submit_when_checked = None
            # what was asked while they ran: submitted now, or refused saying why (never past a path check: the
            # press came before the operator could see it fail)
            self.confirm(typed_ahead=True)

    def _failing(self, waive: bool = False) -> list[PreflightCheck]:
        """This machine's checks that fail for the chosen launcher (paths, programs, modules); ``waive``: those the
        operator cannot submit past (`PreflightCheck.waivable`)."""
        return [c for c in self.host_checks() if c.blocks and not (waive and c.waivable)]

    def _blocked(self, waive: bool = False) -> str:
        """Why Submit cannot go ahead with the chosen launcher now ('' when it can); ``waive``: what else holds it
        once the operator asked to submit past this machine's waivable checks (`_waivable`)."""
        from srt_tui.slurm.preflight import is_path_check

        if self._checking():  # never submitted unchecked: the answer may refuse it
            return CHECKING
        failing = self._failing(waive)  # worst first (`host_checks`): the worst one's kind is said
        paths = [c for c in failing if is_path_check(c)]
        # a path worst: `srt-tui preflight` refuses it so (srtctl's apply too), the job would fail on its first node
        if paths and is_path_check(failing[0]):
            names = ", ".join(c.name for c in paths)  # unless only the compute nodes see it
            return f"{names}: not found from this machine (see paths); `srt-tui preflight` refuses it too."
        if any(c.name == "programs" for c in failing):  # a job that would fail at once (op12: in 11 s on Slurm)
            said = said_missing(self._host[self.launcher].missing)
            if self.launcher == "local":
                return f"{said}: the local launcher cannot run this job (see programs)."
            return f"{said}: the job fails at once unless its nodes have it (see programs)."
        if self.launcher == "slurm" and self.hub is not None and self.hub.context.slurm_state == "down":
            # "not reachable" and its reason are the launcher note's: said once in the panel
            return (
                "Submit cannot send this job to Slurm until it answers: wait, or choose Local (this machine) to run "
                "it here."
            )
        return ""

    def _waivable(self) -> bool:
        """Only checks the operator may submit past hold the job (`host_checks` marks them: with Slurm a path,
        program or module the compute nodes may have; with Local a module the job's own environment may bring), so
        Ctrl+N twice submits anyway, as `apply --no-preflight` does; never past a path or a program missing here
        with Local, which runs the job here, or past Slurm not answering."""
        return any(c.waivable for c in self._failing()) and not self._blocked(waive=True)

    def _anyway(self) -> str:
        """What the first press says the second does, and why it may be right (`ANYWAY`, `ANYWAY_NODES`, …)."""
        from srt_tui.slurm.preflight import is_path_check

        if all(is_path_check(c) for c in self._failing() if c.waivable):
            return ANYWAY
        return ANYWAY_HERE if self.launcher == "local" else ANYWAY_NODES

    def _past(self) -> str:
        """What a submission past the waivable checks goes past, as the status line says it: `path checks`,
        `program checks` or `path and program checks`."""
        from srt_tui.slurm.preflight import is_path_check

        waived = [c for c in self._failing() if c.waivable]
        kinds = [k for k, has in (("path", any(map(is_path_check, waived))),
                                  ("program", not all(map(is_path_check, waived)))) if has]  # fmt: skip
        return f"{' and '.join(kinds)} checks"

    def _armed(self) -> bool:
        """The next Ctrl+N (or Submit) submits past the waivable checks (`_waived`)."""
        return self._waived is not None and self._waived == (self.prepared, self.launcher)

    def _submit_label(self, anyway: bool = False) -> None:
        """The button says what it does: `Submit`, or `Submit anyway` once the operator asked past a path check."""
        if not self.read_only:
            self.query_one("#submit", Button).label = "Submit anyway" if anyway else "Submit"

    def _submit_allowed(self) -> None:
        """The Submit button and its status line say whether the chosen launcher can take the job now."""
        if self.submitting:
            return
        armed = self._armed()
        why = self._blocked(waive=armed)
        self.query_one("#submit", Button).disabled = self.read_only or bool(why)
        self._submit_label(armed and not why)
        status = self.query_one("#submit-status", Static)
        if self._status_failed or self._status_sent_anyway:  # the last submission's outcome stays until the next
            return  # try: it says more
        refused = self._preflight_refused()
        if why == CHECKING:  # not refused: waiting for an answer
            then = f" Submits when they answer ({SUBMIT_PENDING})." if self._submit_when_checked else ""
            status.update(Text(why + then, style=self._style("submit-step--dim")))
            self._status_blocked = True
        elif armed and not why:  # the operator asked once: the next press sends it past the waivable checks
            said = f"✗ {self._failed_here()}. {self._anyway()}; Esc or another launcher: not submitted."
            status.update(Text(said, style=self._style("submit-step--bad")))
            self._status_blocked = True
        elif why and self._waivable():  # only waivable checks hold it: what the operator can do if they are wrong
            said = f"✗ {why} {self._if_wrong()}: Ctrl+N twice submits anyway."
            status.update(Text(said, style=self._style("submit-step--bad")))
            self._status_blocked = True
        elif why:
            status.update(Text("✗ " + why, style=self._style("submit-step--bad")))
            self._status_blocked = True
        elif refused is not None:
            status.update(refused)
            self._status_blocked = True
        elif self._status_blocked:
            status.update("")
            self._status_blocked = False

    def _failed_here(self) -> str:
        """The waivable checks that fail, in a few words: `model.path: not found from this machine`, "`vllm` not
        importable by python3"."""
        from srt_tui.slurm.preflight import is_path_check

        waived = [c for c in self._failing() if c.waivable]
        parts = []
        if paths := [c.name for c in waived if is_path_check(c)]:
            parts.append(f"{', '.join(paths)}: not found from this machine")
        if any(not is_path_check(c) for c in waived):
            parts.append(said_missing(self._host[self.launcher].missing))
        return "; ".join(parts)

    def _if_wrong(self) -> str:
        """When the operator's second press is right: the nodes see the paths, have the programs, or (Local) the
        job's own environment brings the module."""
        anyway = self._anyway()
        if anyway == ANYWAY:
            return "If only the compute nodes see it"
        return "If the job's own environment brings it" if anyway == ANYWAY_HERE else "If the compute nodes have it"

    def _preflight_refused(self) -> Text | None:
        """The preflight checks Slurm would refuse this job for (`apply` refuses it so), with their fixes; None when
        none failed or they are not about the launcher chosen. Submit stays possible: it checks again first."""
        if self.launcher != "slurm" or self._preflight_of is not self.prepared:
            return None
        failed = [c for c in self.preflight if c.blocks]
        if not failed:
            return None
        text = Text()
        for check in failed:
            text.append(f"✗ preflight {check.name}: {check.message}\n", style=self._style("submit-step--bad"))
            if check.fix:
                text.append(f"  fix: {check.fix}\n", style=self._style("submit-step--dim"))
        text.append("Slurm would refuse it as asked (Submit checks again).", style=self._style("submit-step--dim"))
        return text

    def _title_request(self) -> None:
        """The request panel names who is asked: Slurm, or this machine with the local launcher."""
        local = self.launcher == "local"
        self.query_one("#request-box").border_title = "What will run here" if local else "What Slurm will be asked"

    @on(RadioSet.Changed, "#launcher")
    def _launcher_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        if self.launcher != self._auto_choice:  # the operator's pick (the step's own selection is not one)
            self._touched = True
        self._submit_when_checked = self._waived = None  # asked for the other launcher
        self._status_sent_anyway = False
        self._ask_host(self.launcher)
        self._title_request()
        self._draw_note()  # Slurm's failure leads the note only when Slurm is the launcher chosen
        self._submit_allowed()
        self._render_request()  # the preflight rows follow the launcher

    @property
    def launcher(self) -> str:
        """`slurm` or `local`, as chosen in the radio set."""
        pressed = self.query_one("#launcher", RadioSet).pressed_button
        return "local" if pressed is not None and pressed.id == "launcher-local" else "slurm"

    @on(Button.Pressed, "#submit")
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.confirm()

    def confirm(self, typed_ahead: bool = False) -> None:
        """Submit with the chosen launcher (Ctrl+N, Submit, the palette), or say why not; ``typed_ahead``: pressed
        before this machine's checks answered, so never taken as the second press past a failing path check."""
        if self.read_only:
            self.notify("Read-only mode: submission is disabled.", severity="warning")
            return
        if self.prepared is None or self.submitting:
            return
        if self._checking():  # asked before this machine's checks answered: submitted when they do, if they allow
            self._submit_when_checked = (self.prepared, self.launcher)
            self._submit_allowed()
            return
        waive = self._armed()
        if why := self._blocked(waive=waive):  # Ctrl+N or the palette as much as the (disabled) button
            if self._waivable() and not typed_ahead:  # the first press past a waivable check: it says what the next
                self._waived = (self.prepared, self.launcher)  # does
                self._status_failed = self._status_sent_anyway = False  # the line says what the next press does
                self._submit_allowed()
                self.notify(f"{why}\n{self._anyway()}.", title="Not submitted", severity="warning")
                return
            self.notify(why, title="Not submitted", severity="warning")
            return
        sent = self._sent.get(self._sent_key(self.prepared.script, self.launcher))
        if sent is not None and not self._copy_asked:  # the same plan again: a copy only when asked twice
            self._copy_asked = True
            self.query_one("#submit-status", Static).update(
                Text(
                    f"This plan was submitted already as {sent}. Submit again to start a copy.",
                    style=self._style("submit-step--bad"),
                )
            )
            self.notify(f"Already submitted as {sent}: submit again for a copy.", severity="warning")
            return
        self._copy_asked = False
        self.submitting = True
        self._status_blocked = self._status_failed = self._status_sent_anyway = False
        self._waived = None  # asked for this submission only
        self.query_one("#submit", Button).disabled = True
        past = self._past() if waive else ""
        anyway = f" past this machine's {past}" if past else ""
        if self.sweep is not None:
            self._sweep_sent, self._sweep_refused = [], []
            jobs = len(self.sweep.ready)
            self.query_one("#submit-status", Static).update(
                f"Submitting {jobs} jobs with the {self.launcher} launcher{anyway}…"
            )
            self.submit_group(self.sweep, self.launcher, past)
            return
        self.query_one("#submit-status", Static).update(f"Submitting with the {self.launcher} launcher{anyway}…")
        self.submit(self.prepared, self.launcher, past)

    def _sent_key(self, script: str, launcher: str) -> tuple[str, str]:
        """What `_sent` remembers a submission by: its launch script (a sweep's, its first member's, apart from
        that member sent alone) and launcher."""
        return ("sweep:" if self.sweep is not None else "") + script, launcher

    @work(thread=True, exclusive=True, group="submit", name="submit-sweep", exit_on_error=False)
    def submit_group(self, check: SweepCheck, launcher: str, past: str = "") -> None:
        """Every member of the sweep through `submit_sweep` (as `srt-tui apply -f sweep.yaml`): the model and
        container paths of all first (unless the operator asked past them), then each in order as one group; a
        member refused is said with why and the others go on."""
        from srt_tui.slurm.sweep_submit import missing_paths, new_group_id, submit_sweep

        if not past and (missing := missing_paths(check.ready, face="tui")) is not None:
            self.post_message(SubmitFailed(f"nothing submitted: {missing}"))
            return
        outcome = submit_sweep(
            check.ready,
            new_group_id(check.spec),
            check.values,
            launcher=launcher,
            face="tui",
            waive_checks=bool(past),
            keep_going=True,
            on_submitted=lambda m, _, sub: self.post_message(SweepMemberSent(m.selector, m.name, sub.job_id)),
            on_failed=lambda m, exc: self.post_message(SweepMemberSent(m.selector, m.name, reason=_why(exc))),
        )
        failed = [(f"{m.selector} {m.name}", _why(exc)) for m, exc in outcome.failed]
        if not outcome.submitted:
            self.post_message(SubmitFailed("no job of the sweep was submitted: " + "; ".join(w for _, w in failed)))
            return
        jobs = [(sub.job_id, sub.job_dir) for *_, sub in outcome.submitted]
        script = check.ready[0][1].script
        self.post_message(SweepSubmitted(outcome.group, jobs, failed, launcher, script))

    @on(SweepMemberSent)
    def _member_sent(self, message: SweepMemberSent) -> None:
        """A member went or was refused: the status line counts them; a refusal is said with its reason."""
        from srt_tui.tui.display import scrub

        message.stop()
        if message.job_id:
            self._sweep_sent.append(message.job_id)
        else:
            self._sweep_refused.append(message.selector)
            self.notify(
                f"{message.selector} {message.name}: {scrub(message.reason)}",
                title="Not submitted",
                severity="error",
                timeout=15,
            )
        if self.sweep is not None and self.submitting:
            refused = f", {len(self._sweep_refused)} refused" if self._sweep_refused else ""
            self.query_one("#submit-status", Static).update(
                f"Submitting {len(self.sweep.ready)} jobs: {len(self._sweep_sent)} submitted{refused}…"
            )

    @on(SweepSubmitted)
    def _sweep_submitted(self, message: SweepSubmitted) -> None:
        """The sweep's members went (the message goes on to the app, which opens them in Monitor)."""
        self._sent[self._sent_key(message.script, message.launcher)] = f"group {message.group}"
        self.submitting = False
        self._submit_label()
        self.query_one("#submit", Button).disabled = self.read_only
        refused = f", {len(message.failed)} refused (see the toasts)" if message.failed else ""
        style = "submit-step--bad" if message.failed else "submit-step--ok"
        self.query_one("#submit-status", Static).update(
            Text(
                f"✓ group {message.group}: {len(message.jobs)} jobs submitted ({message.launcher}){refused}",
                style=self.get_component_rich_style(style, partial=True),
            )
        )

    @work(thread=True, exclusive=True, group="submit", name="submit", exit_on_error=False)
    def submit(self, prepared: Prepared, launcher: str, past: str = "") -> None:
        """Submit through the same path as `srt-tui apply` (srt_tui.slurm.submit); ``past``: the waivable checks it
        goes past, as the operator asked (`path checks`, …; `apply --no-preflight` skips them too), '' none."""
        from srt_tui.core.errors import SrtError

        try:
            from srt_tui.slurm.submit import SlurmUnreachable, submit_prepared
        except ImportError as exc:
            self.post_message(SubmitFailed(f"submission is not available in this build ({exc})"))
            return
        try:
            sub = submit_prepared(prepared, launcher=launcher, face="tui", waive_checks=bool(past))
        except SlurmUnreachable as exc:
            # the core's hint names the command-line flag; here the fix is the launcher choice on screen, and
            # the header learns the newest answer (one word on Slurm for every screen)
            reason = "; ".join(p.message for p in exc.problems) or "no Slurm controller answers"
            self.app.post_message(SlurmStatus(False, reason))
            fix = "check SLURM_CONF and munge, or choose Local (this machine) and submit again"
            self.post_message(SubmitFailed(f"{reason} (fix: {fix})"))
            return
        except SrtError as exc:
            self.post_message(SubmitFailed(str(exc) or type(exc).__name__))
            return
        except Exception as exc:  # a transport failure must reach the operator, not kill the worker silently
            self.post_message(SubmitFailed(f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(JobSubmitted(sub.job_id, sub.job_dir, sub.launcher, prepared, past))

    @on(SubmitFailed)
    def _failed(self, message: SubmitFailed) -> None:
        from srt_tui.tui.display import scrub

        self.submitting = False
        self._status_blocked, self._status_failed = False, True
        self._submit_label()
        self.query_one("#submit", Button).disabled = self.read_only or bool(self._blocked())
        self.query_one("#submit-status", Static).update(
            Text("✗ " + scrub(message.reason), style=self.get_component_rich_style("submit-step--bad", partial=True))
        )
        self.notify(scrub(message.reason), title="Submit failed", severity="error", timeout=10)

    @on(JobSubmitted)
    def _submitted(self, message: JobSubmitted) -> None:
        from srt_tui.tui.display import display_path

        self._sent[(message.prepared.script, message.launcher)] = f"job {message.job_id}"
        self.submitting = False
        self._status_sent_anyway = bool(message.waived)
        self._submit_label()
        self.query_one("#submit", Button).disabled = self.read_only
        anyway = f" · past this machine's {message.waived}, as asked" if message.waived else ""
        self.query_one("#submit-status", Static).update(
            Text(
                f"✓ job {message.job_id} submitted ({message.launcher}){anyway} · {display_path(message.job_dir)}",
                style=self.get_component_rich_style("submit-step--ok", partial=True),
            )
        )

    def focus_default(self) -> None:
        self.query_one("#launcher", RadioSet).focus()


def ends_when(prepared: Prepared, local: bool = False) -> str:
    """The benchmark and what it means for the job's end: whether it stops by itself or serves until cancelled
    (an operator submitting mocker-1p2d could not tell from the Submit step that it keeps its nodes); ``local``:
    run here, where no time limit ends it."""
    bench = prepared.job.recipe.benchmark
    if prepared.plan.benchmark is None:
        limit = "" if local else " or its time limit"
        return f"{bench.type}: none runs; the job serves until cancelled (c in the Monitor){limit}"
    return f"{bench.type}: the job ends when it finishes (its figures: R in the Monitor)"


def _why(exc: BaseException) -> str:
    """A member's refusal as the operator reads it: what it says, else what it is."""
    return str(exc) or type(exc).__name__
