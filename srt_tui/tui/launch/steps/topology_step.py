"""Step 3: shape the job. Presets from the recipe, free editing per role, a live GPU grid and validation."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.widgets import Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from srt_tui.tui.launch.gpu_grid import GpuGrid
from srt_tui.tui.launch.host_findings import HostCache, HostChecksDone, default_launcher, find_on_host, host_problems
from srt_tui.tui.launch.messages import PlanConfirmed, PlanUpdated
from srt_tui.tui.launch.steps.base import WizardState, WizardStep
from srt_tui.tui.launch.steps.router_select import RouterSelect
from srt_tui.widgets.problem_list import ProblemList
from srt_tui.widgets.scroll_panel import ScrollPanel
from srt_tui.widgets.typed_input import TypedInput

if TYPE_CHECKING:
    from collections.abc import Sequence

    from srt_tui.core.api import Prepared
    from srt_tui.core.errors import Problem
    from srt_tui.core.spec.profile import LoadedProfile
    from srt_tui.core.spec.recipe import Recipe, RecipeSource
    from srt_tui.tui.launch.wizard import Preset, RoleForm

FIELD_LABELS: tuple[tuple[str, str], ...] = (("workers", "workers"), ("nodes", "nodes"), ("gpus", "GPUs"), ("tp", "TP"))
#: every role field is a count: digits only
DIGITS = r"[0-9]*"


def checks_title(problems: Sequence[Problem]) -> str:
    """`Checks · 1 error, 3 warnings`: both counts, each with its own plural (not `0 error(s)` above warnings)."""
    errors = sum(p.severity == "error" for p in problems)
    warnings = len(problems) - errors
    counts = [f"{n} {word}{'s' if n != 1 else ''}" for n, word in ((errors, "error"), (warnings, "warning")) if n]
    return " · ".join(["Checks", ", ".join(counts)]) if counts else "Checks"


class TopologyStep(WizardStep):
    """Presets and role inputs on the left; the node × GPU grid on the right; findings below."""

    step_id: ClassVar[str] = "topology"
    title: ClassVar[str] = "Topology"
    BINDINGS: ClassVar[list[BindingType]] = [
        # as in every text field (k9s, lazygit): Esc leaves a role field for the presets, the step and its edits
        # staying; then `1`/`2`/`3` switch modes and Esc again goes back (it went back to the Recipe step at once)
        # shown (`esc Leave field`): in a role field the footer said only `^n Next` (op12)
        Binding(
            "escape",
            "leave_field",
            "Leave field",
            tooltip="Leave the role field for the presets (the edits stay): then 1 2 3 switch modes, Esc goes back",
        ),
    ]
    HELP_FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("Presets", "The recipe's own shape, then the usual ones of its kind (1P1D, 2P1D, 1P2D, 2P2D or agg1, agg2, "
                    "agg4), each with the nodes it needs; a P/D recipe's last one is aggregated on the same nodes and "
                    "GPUs (`same GPUs`) when its engine and router can serve it so. Enter fills the role rows with it"),
        ("role", "prefill and decode: a disaggregated job, prompts and generation on separate workers; agg: one "
                 "worker does both. One row per role the recipe has"),
        ("workers", "How many workers (engine instances, each with its own URL) the role runs: 2P1D is 2 prefill "
                    "workers and 1 decode worker"),
        ("nodes", "Nodes the role takes in all; empty (auto): as many as its workers' GPUs need"),
        ("GPUs", "GPUs per worker: a share of one node (a divisor of its GPUs) or whole nodes; empty (auto): the "
                 "role's nodes shared among its workers, else one whole node"),
        ("TP", "Tensor-parallel size of each worker (the engine's TP flag, e.g. --tp-size); empty (-): the "
               "engine's default. GPUs left over by TP × DP are a warning"),
        ("Router", "What serves the job's public port in front of the workers: the recipe's own, or another that "
                   "fits this topology"),
    )  # fmt: skip

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(id=id)
        self._generation = -1
        self._base: Recipe | None = None
        #: the recipe whose roles the form edits: the recipe's own, or its aggregated twin once the `agg` preset of a
        #: P/D recipe was chosen (its rows are then one agg row)
        self._shaped: Recipe | None = None
        self._source: RecipeSource | None = None
        self._loaded: LoadedProfile | None = None
        self._presets: list[Preset] = []
        self._roles: list[str] = []
        self.edited: Recipe | None = None
        self.prepared: Prepared | None = None
        self.problems: list[Problem] = []
        self._last_forms: list[RoleForm] | None = None
        #: the `frontend.type` chosen in the router row (the recipe's own until the operator picks another)
        self.frontend = ""
        self._state: WizardState | None = None
        #: the all-clear line of the Checks panel (the plan's), shown when nothing is listed
        self._ok = ""
        #: the job and launcher this step's host checks run for (one at a time: typing makes a job a key, and a hung
        #: mount would hold a thread for each); the job shown then is asked for once it answers
        self._host_asked: tuple[Prepared, str] | None = None

    def compose(self) -> ComposeResult:
        yield Static("Pick a preset or edit the roles; plan and checks follow as you type.", classes="step-hint")
        with Horizontal(id="topology-body"):
            with Vertical(id="topology-left"):
                yield Label("Presets", classes="section-title")
                yield OptionList(id="presets")
                yield Label("Roles · GPUs and TP per worker", classes="section-title")
                yield Grid(id="role-form")
                yield RouterSelect(id="router-row")
            # a Tab stop whose keys scroll the plan, stacked (`-slim`) the whole body it sits in (its own arrows
            # did nothing there: the body scrolls, the box is as tall as the plan)
            with ScrollPanel(id="grid-box"):
                yield GpuGrid(id="gpu-grid")
        with VerticalScroll(id="problems-box"):
            yield ProblemList(id="problems")

    async def enter(self, state: WizardState) -> None:
        if state.generation == self._generation and self.prepared is not None:
            self._ask_host()  # the job shown: asked when this step's earlier ask answers while it was hidden
            self._draw_checks()
        if state.generation == self._generation or state.recipe is None or state.profile is None:
            return
        from srt_tui.tui.launch.wizard import form_of

        self._state = state
        self._generation = state.generation
        self._base, self._source, self._loaded = state.recipe, state.source, state.profile
        self._shaped = state.recipe
        self.frontend = state.recipe.frontend.type
        self._list_presets()
        self.query_one("#presets", OptionList).highlighted = 0
        await self._build_form(form_of(state.recipe, state.profile))
        self._recompute()

    def _list_presets(self) -> None:
        """The presets, annotated for the recipe as it would run with the chosen router."""
        from srt_tui.core.frontends.choice import with_frontend
        from srt_tui.tui.launch.wizard import presets_for

        if self._base is None or self._loaded is None:
            return
        self._presets = presets_for(with_frontend(self._base, self.frontend), self._loaded)
        presets = self.query_one("#presets", OptionList)
        highlighted = presets.highlighted
        presets.clear_options()
        presets.add_options([Option(f"{p.label:<6} {p.note}", id=f"preset-{p.label}") for p in self._presets])
        presets.highlighted = highlighted

    async def _build_form(self, forms: list[RoleForm]) -> None:
        grid = self.query_one("#role-form", Grid)
        await grid.remove_children()
        widgets: list[Label | Input | Static] = [Label("role", classes="form-head")]
        widgets += [Label(label, classes="form-head") for _, label in FIELD_LABELS]
        self._roles = []
        for form in forms:
            self._roles.append(form.role)
            widgets.append(Label(form.role, classes=f"form-role role-{form.role}"))
            for field, label in FIELD_LABELS:
                widgets.append(
                    TypedInput(
                        getattr(form, field),
                        id=f"{form.role}-{field}",
                        compact=True,
                        classes="role-input",
                        placeholder="auto" if field in ("nodes", "gpus") else ("-" if field == "tp" else ""),
                        # counts: a letter is refused as it is typed (issue 21 defect 7); a recipe's `eight` can
                        # still be deleted with Backspace
                        typed=DIGITS,
                        says=f"{form.role} {label}: digits only (a count)",
                    )
                )
            # under the role's row, its parallelism when its args say more than TP (DP, EP): TP × DP GPUs a worker
            line = f"role-parallel {form.role}-parallel"
            widgets += [Static("", classes=line), Static("", id=f"{form.role}-parallel", classes=f"{line} -words")]
        await grid.mount_all(widgets)
        self._show_parallel(self._base)

    def _show_parallel(self, recipe: Recipe | None) -> None:
        """Each role's TP, DP and EP under its row, as ``recipe`` (the edited one) says them; a role whose args say
        only TP shows no such line. None (the form does not read yet): as they were."""
        from srt_tui.core.text.role_lines import role_parallelism

        if recipe is None:
            return
        for role in self._roles:
            if role not in recipe.roles:
                continue
            said = role_parallelism(recipe, role)
            self.query_one(f"#{role}-parallel", Static).update(said.words())
            for widget in self.query(f".{role}-parallel"):
                widget.display = said.beyond_tp

    def _forms(self) -> list[RoleForm]:
        from srt_tui.tui.launch.wizard import RoleForm

        out: list[RoleForm] = []
        for role in self._roles:
            values = [self.query_one(f"#{role}-{field}", Input).value for field, _ in FIELD_LABELS]
            out.append(RoleForm(role, *values))  # type: ignore[arg-type]
        return out

    def _set_form(self, forms: list[RoleForm]) -> None:
        for form in forms:
            for field, _ in FIELD_LABELS:
                box = self.query_one(f"#{form.role}-{field}", Input)
                with box.prevent(Input.Changed):
                    box.value = getattr(form, field)

    @on(Input.Changed, ".role-input")
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        if self._forms() != self._last_forms:  # mounting inputs also reports their first value
            self._recompute()

    @on(Input.Submitted, ".role-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.confirm()

    @on(OptionList.OptionSelected, "#presets")
    async def _preset(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self._base is None or self._shaped is None or self._loaded is None:
            return
        from srt_tui.core.spec.resolved import topology_of
        from srt_tui.tui.launch.wizard import apply_preset, form_of

        preset = self._presets[event.option_index]
        start = self.edited or self._shaped
        if topology_of(start).disaggregated != preset.spec.disaggregated:  # back from the aggregated twin to P/D
            start = self._base  # (or on to it): from the recipe as written
        applied, problems = apply_preset(start, preset, self._loaded)
        if applied is None:
            self._show(None, None, problems)
            return
        forms = form_of(applied, self._loaded)
        if [f.role for f in forms] != self._roles:  # P/D ↔ aggregated: the form's rows are the new roles'
            self._shaped = applied if not topology_of(applied).disaggregated else self._base
            await self._build_form(forms)
        else:
            self._set_form(forms)
        self._recompute()

    def _recompute(self) -> None:
        if self._base is None or self._loaded is None:
            return
        from srt_tui.tui.launch.wizard import recipe_from_form, safe_prepare

        self._last_forms = self._forms()
        reading = recipe_from_form(self._shaped or self._base, self._last_forms)
        edited = self._routed(reading.recipe)
        # the whole job is checked even while a role's field does not read, so every independent error shows at once
        prepared, problems = reading.checked(*safe_prepare(edited, self._loaded, self._source))
        self._show(None if reading.unread else edited, prepared, problems)

    def _routed(self, recipe: Recipe) -> Recipe:
        """The recipe with the chosen router, the choices listed for its topology as edited."""
        from srt_tui.core.frontends.choice import frontend_choices, with_frontend

        self.frontend = self.query_one(RouterSelect).show(frontend_choices(recipe), self.frontend)
        return with_frontend(recipe, self.frontend)

    @on(Select.Changed, "#router-select")
    def _router_chosen(self, event: Select.Changed) -> None:
        event.stop()
        if isinstance(event.value, str) and event.value != self.frontend:
            self.frontend = event.value
            self._list_presets()
            self._recompute()

    def _show(self, edited: Recipe | None, prepared: Prepared | None, problems: list[Problem]) -> None:
        self.edited, self.prepared, self.problems = edited, prepared, problems
        self._show_parallel(edited)
        grid = self.query_one(GpuGrid)
        grid.empty_text = "No plan: fix the problems below."
        grid.plan = prepared.plan if prepared is not None else None
        box = self.query_one("#grid-box")
        if prepared is not None:
            plan = prepared.plan
            used = sum(len(p.gpus) for p in plan.workers)
            box.border_title = self._grid_title()
            box.border_subtitle = f"{used}/{plan.nodes * plan.gpus_per_node} GPUs in use"
            ok = f"✓ valid: {plan.topology}, {plan.nodes} node(s), {len(plan.workers)} worker process(es)"
        else:
            box.border_title = "GPU plan"
            box.border_subtitle = ""
            ok = ""
        self._ok = ok
        self._ask_host()
        self._draw_checks()
        self.post_message(PlanUpdated(edited, prepared, list(problems)))

    def _draw_checks(self) -> None:
        """The Checks panel: the plan's problems and what this machine found for the job (a module it starts not
        importable, its model path missing: what Submit and `apply` refuse), worst first: the plan's errors, the
        job's failing checks (`worst_first`), then warnings; `checking…` in the all-clear line while they run."""
        found = self._hosts.answers(self.prepared).get(self._launcher()) if self.prepared is not None else None
        errors = [p for p in self.problems if p.severity == "error"]
        warnings = [p for p in self.problems if p.severity != "error"]
        listed = [*errors, *host_problems(found.checks if found else []), *warnings]
        pending = self.prepared is not None and found is None
        ok = f"{self._ok} · checking paths and programs…" if pending else self._ok
        # a valid plan says so above this machine's ✗ (a path it does not see is not the plan's fault)
        self.query_one(ProblemList).show(listed, ok, ok_first=bool(self._ok) and not errors)
        self.query_one("#problems-box").border_title = checks_title(listed)

    @property
    def _hosts(self) -> HostCache:
        """What this machine found, kept in the wizard's state for the Submit step (an empty one before `enter`)."""
        return self._state.host if self._state is not None else HostCache()

    def _launcher(self) -> str:
        """The launcher the Submit step will choose for this job (a clone's, else its profile's): its checks."""
        if self.prepared is None or self._state is None:
            return "slurm"
        down = self._state.hub.context.slurm_state == "down"
        return default_launcher(self.prepared.job.profile, self._state.cloned_launcher(), down)

    def _ask_host(self) -> None:
        """Start this machine's checks of the job shown, unless they answered, run, or this step's last ask has not
        answered yet (then asked when it does)."""
        if self.prepared is None or self._host_asked is not None:
            return
        launcher = self._launcher()
        if self._hosts.ask(self.prepared, launcher):
            self._host_asked = (self.prepared, launcher)
            self.run_host_checks(self.prepared, launcher)

    @work(thread=True, group="topology-host-checks", name="host-checks", exit_on_error=False)
    def run_host_checks(self, prepared: Prepared, launcher: str) -> None:
        """`find_on_host` off the UI thread (a path on a hung mount stalls this worker, never the screen); the launch
        screen keeps the answer for Submit and calls `host_answered`."""
        self.post_message(HostChecksDone(prepared, launcher, find_on_host(prepared, launcher)))

    def host_answered(self, prepared: Prepared, launcher: str) -> None:
        if self._host_asked == (prepared, launcher):  # this step's ask answered: the job shown now may be another
            self._host_asked = None
            if self.display:
                self._ask_host()
        if prepared is self.prepared:
            self._draw_checks()

    def _grid_title(self) -> str:
        """`GPU plan · 1P2D · 3 node(s) × 8 GPUs`, shortened whole to `… · 3 × 8 GPUs` when the box is narrow:
        at 80 columns the border cut it to `3 node(s) × 8 …`, a count without its unit."""
        if self.prepared is None:
            return "GPU plan"
        plan = self.prepared.plan
        room = self.query_one("#grid-box").size.width - 4  # the corners and the spaces around the title
        for title in (
            f"GPU plan · {plan.topology} · {plan.nodes} node(s) × {plan.gpus_per_node} GPUs",
            f"GPU plan · {plan.topology} · {plan.nodes} × {plan.gpus_per_node} GPUs",
        ):
            if room <= 0 or len(title) <= room:
                return title
        return f"GPU plan · {plan.topology}"

    def on_resize(self) -> None:
        self.call_after_refresh(self._retitle)

    def _retitle(self) -> None:
        if self.prepared is not None:
            self.query_one("#grid-box").border_title = self._grid_title()

    def confirm(self) -> None:
        if self.prepared is None:
            first = next((p for p in self.problems if p.severity == "error"), None)
            detail = f" ({first.field}: {first.message})" if first else ""
            self.notify(f"The topology is not valid yet{detail}.", severity="error")
            return
        self.post_message(PlanConfirmed(self.prepared))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave_field":
            return isinstance(self.screen.focused, Input) and self in self.screen.focused.ancestors
        return super().check_action(action, parameters)

    def action_leave_field(self) -> None:
        """Esc in a role field: the presets take the focus, the values typed stay."""
        self.focus_default()

    def focus_default(self) -> None:
        self.query_one("#presets", OptionList).focus()
