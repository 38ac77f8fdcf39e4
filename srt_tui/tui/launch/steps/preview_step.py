"""Step 4: the whole job before it exists. Script, processes, mounts and env by source, sbatch directives."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static, TabbedContent, TabPane

from srt_tui.tui.launch.messages import FileSaved, PreviewAccepted
from srt_tui.tui.launch.process_view import ProcessView
from srt_tui.tui.launch.steps.base import WizardState, WizardStep
from srt_tui.widgets.script_view import ScriptView

if TYPE_CHECKING:
    from rich.style import Style

    from srt_tui.core.api import Prepared
    from srt_tui.core.spec.recipe import Recipe
    from srt_tui.slurm.sweep_submit import SweepCheck


def _indented(part: Table | Text) -> RenderableType:
    """A `  `-led line wrapped under its own start (at 80 columns the exporter's image went to column 0)."""
    if isinstance(part, Text) and part.plain.startswith("  "):
        return Padding(part[2:], (0, 0, 0, 2))
    return part


def sweep_lines(sweep: SweepCheck, shown: Prepared, dim: Style) -> list[Text]:
    """A whole sweep's members above the shown one's summary: how many, their nodes and GPUs in all, then each
    member's name, swept values and nodes/GPUs, `▸` on the one the tabs show (`m` the next)."""
    ready = sweep.ready
    nodes = sum(p.plan.nodes for _, p in ready)
    gpus = sum(p.plan.nodes * p.plan.gpus_per_node for _, p in ready)
    lines = [
        Text(f"sweep: {len(ready)} jobs, one group · {nodes} nodes, {gpus} GPUs in all · m: the next member's tabs")
    ]
    for m, prep in ready:
        values = " ".join(f"{k}={v}" for k, v in sweep.values.get(m.selector, {}).items())
        plan = prep.plan
        line = Text(f"{'▸' if prep is shown else ' '} {m.name}")
        line.append(f"  {values}" if values else "")
        line.append(f"  {plan.topology} · {plan.nodes} node(s), {plan.nodes * plan.gpus_per_node} GPUs", style=dim)
        lines.append(line)
    return lines


class PreviewStep(WizardStep):
    """Tabs over one prepared job; `s` writes a dry-run directory, `w` writes the edited recipe (a whole sweep has
    none: `w` is not offered, `s` writes the member shown)."""

    step_id: ClassVar[str] = "preview"
    title: ClassVar[str] = "Preview"
    BINDINGS: ClassVar[list[BindingType]] = [
        # short footer words so `? Help` and `q Quit` stay visible at 80 columns; Help shows the tooltips
        Binding("s", "save_dry_run", "Dry-run", tooltip="Save the dry-run (sbatch.sh, plan.json, …) to a directory"),
        Binding("w", "save_recipe", "Save YAML", tooltip="Save the edited recipe as YAML"),
        Binding("right_square_bracket", "switch_tab(1)", "Tab", tooltip="Next preview tab (Script, Processes, …)"),
        Binding("left_square_bracket", "switch_tab(-1)", "Previous tab", show=False),
        Binding("m", "next_member", "Member", tooltip="A whole sweep: show the next member's scripts"),
    ]
    #: the tabs in order, for `]` and `[`
    TABS: ClassVar[tuple[str, ...]] = ("tab-script", "tab-processes", "tab-env", "tab-sbatch")
    COMPONENT_CLASSES: ClassVar[set[str]] = {"preview-step--key", "preview-step--dim"}

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(id=id)
        #: the plan the tabs show: the job's, or the sweep member's chosen with `m`
        self.prepared: Prepared | None = None
        #: the plan the wizard gave (a whole sweep's first member): entered again with it, the member shown stays
        self._first: Prepared | None = None
        self.edited: Recipe | None = None
        self._state: WizardState | None = None
        self._stale: set[str] = set()

    def compose(self) -> ComposeResult:
        yield Static("", id="preview-summary", classes="step-hint")
        with TabbedContent(id="preview-tabs"):
            with TabPane("Script", id="tab-script"):
                yield ScriptView(id="script-view")
            with TabPane("Processes", id="tab-processes"):
                yield ProcessView(id="process-view")
            with TabPane("Mounts & env", id="tab-env"), VerticalScroll():
                yield Static("", id="mounts-env")
            with TabPane("sbatch", id="tab-sbatch"), VerticalScroll():
                yield Static("", id="directives")

    async def enter(self, state: WizardState) -> None:
        self._state = state
        if state.prepared is None or state.prepared is self.prepared or state.prepared is self._first:
            return
        self._first, self.edited = state.prepared, state.edited
        self._show(state.prepared)

    def _show(self, prep: Prepared) -> None:
        """Fill the summary and (as each is shown) the tabs with ``prep``: the job, or the sweep member chosen."""
        from srt_tui.core.text.model_line import model_line
        from srt_tui.tui.launch.recipe_summary import job_end_line

        self.prepared = prep
        plan = prep.plan
        summary = Text(
            f"{plan.name} · {plan.topology} · {plan.nodes} node(s) × {plan.gpus_per_node} GPUs · "
            f"{plan.serving} · profile {plan.profile} · "
            f"sbatch.sh {len(prep.script.splitlines())} lines"
            f"\nmodel {model_line(plan)}"  # the name the commands serve and the path, each labelled
            + (f"\n{end}" if (end := job_end_line(prep.job.recipe)) else "")  # when the job will end
        )
        sweep = self._state.sweep if self._state is not None else None
        if sweep is not None:
            summary = Text("\n").join([*sweep_lines(sweep, prep, self._style("preview-step--dim")), summary])
        self.query_one("#preview-summary", Static).update(summary)
        self._stale = {"tab-script", "tab-processes", "tab-env", "tab-sbatch"}
        self._fill(self.query_one(TabbedContent).active)

    def action_next_member(self) -> None:
        """`m`: the tabs show the sweep's next member (the first after the last)."""
        sweep = self._state.sweep if self._state is not None else None
        if sweep is None or self.prepared is None:
            return
        plans = [prep for _, prep in sweep.ready]
        at = next((i for i, p in enumerate(plans) if p is self.prepared), -1)
        self._show(plans[(at + 1) % len(plans)])

    @on(TabbedContent.TabActivated, "#preview-tabs")
    def _tab(self, event: TabbedContent.TabActivated) -> None:
        self._fill(event.pane.id or "")
        self.call_after_refresh(self._keep_focus_inside)

    def _keep_focus_inside(self) -> None:
        """A tab switch can hide the focused widget; keep focus in this step so its keys still work."""
        if self.screen.focused is None:
            self.query_one("#preview-tabs", TabbedContent).query_one("Tabs").focus()

    def _fill(self, tab: str) -> None:
        """Render a tab's content only when it is first shown for this plan."""
        prep = self.prepared
        if prep is None or tab not in self._stale:
            return
        self._stale.discard(tab)
        if tab == "tab-script":
            self.query_one(ScriptView).show(prep.script)
        elif tab == "tab-processes":
            self.query_one(ProcessView).show(prep.plan)
        elif tab == "tab-env":
            self.query_one("#mounts-env", Static).update(self._mounts_env(prep))
        elif tab == "tab-sbatch":
            self.query_one("#directives", Static).update(self._directives(prep))

    def _table(self, *columns: str) -> Table:
        table = Table(
            box=None,
            padding=(0, 2),
            pad_edge=False,
            header_style=self.get_component_rich_style("preview-step--key", partial=True),
        )
        for c in columns:
            table.add_column(c)
        return table

    def _mounts_env(self, prep: Prepared) -> Group:
        plan = prep.plan
        key = self.get_component_rich_style("preview-step--key", partial=True)
        dim = self.get_component_rich_style("preview-step--dim", partial=True)
        parts: list[Table | Text] = [Text("Container mounts (by source)", style=key)]
        if plan.mounts:
            mounts = self._table("HOST", "CONTAINER", "SOURCE")
            for m in plan.mounts:
                mounts.add_row(m.host, m.container + (":ro" if m.readonly else ""), m.source)
            parts.append(mounts)
        else:
            parts.append(Text("  none: container_runtime is `none`, engines run on the host", style=dim))
        parts += [Text(""), Text("Environment (by scope)", style=key)]
        env = self._table("SCOPE", "VARIABLE", "VALUE")
        rows = 0
        for scope, pairs in plan.env_scopes:
            for k, v in pairs:
                env.add_row(scope, k, v)
                rows += 1
        parts.append(env if rows else Text("  none", style=dim))
        if plan.secret_env:
            parts.append(
                Text(f"  secrets (from the job's 0600 secrets.env, never in the script): {', '.join(plan.secret_env)}")
            )
        if plan.srun_options:
            parts += [Text(""), Text("srun options (recipe)", style=key)]
            parts.append(
                Text("  " + " ".join(f"--{k}" + (f"={v}" if v is not None else "") for k, v in plan.srun_options))
            )
        exporter = plan.gpu_exporter
        parts += [Text(""), Text("GPU exporter", style=key)]
        if exporter and not exporter.launched:  # declared by the profile, but telemetry is off
            parts.append(Text("  not launched: telemetry is off (the recipe's `telemetry: enabled: true` runs "
                              f"{exporter.image} on every node)", style=dim))  # fmt: skip
        else:
            parts.append(
                Text(f"  {exporter.image} port {exporter.port} (from {exporter.source})" if exporter else "  disabled")
            )
        return Group(*(_indented(p) for p in parts))

    def _directives(self, prep: Prepared) -> Group:
        plan, job = prep.plan, prep.job
        key = self.get_component_rich_style("preview-step--key", partial=True)
        from srt_tui.core.plan.directive_origin import directive_origin

        table = self._table("DIRECTIVE", "VALUE", "FROM")
        # the recipe as chosen (or edited in its editor); a name the topology step renamed is said as such
        chosen = self._state.recipe if self._state is not None else None
        loaded = chosen.name if chosen is not None else None
        for k, v in plan.directives:
            table.add_row(f"#SBATCH --{k}", v if v is not None else "", directive_origin(job, k, loaded))
        lines: list[Table | Text] = [Text("sbatch directives", style=key), table]
        if plan.warnings:
            lines += [Text(""), Text("Warnings", style=key)]
            lines += [
                Text(f"  ! {w.field}: {w.message}" + (f" (fix: {w.hint})" if w.hint else "")) for w in plan.warnings
            ]
        return Group(*lines)

    # -- actions ------------------------------------------------------------------------------------

    def _stamp(self) -> str:
        return self._state.hub.context.now().strftime("%Y%m%d-%H%M%S") if self._state is not None else "now"

    def action_switch_tab(self, step: int) -> None:
        """`]`/`[`: the next or previous tab, wrapping around (the tab bar needs the focus for ←/→)."""
        tabs = self.query_one("#preview-tabs", TabbedContent)
        index = self.TABS.index(tabs.active) if tabs.active in self.TABS else 0
        # the tab bar holds the focus until the shown tab's content can take it: the hidden one's focus would go
        # to the screen, past this step's keys (a fast `]]` lost its second `]`)
        tabs.query_one("Tabs").focus()
        tabs.active = self.TABS[(index + step) % len(self.TABS)]
        self.call_after_refresh(self._focus_shown_tab)

    def _focus_shown_tab(self) -> None:
        """Focus what the shown tab holds (the process table, the script, the text), so ↑/↓ and PgUp/PgDn act
        on it at once; `]`/`[` are this step's keys, so they keep working from there."""
        tabs = self.query_one("#preview-tabs", TabbedContent)
        pane = tabs.get_pane(tabs.active)
        target = next((w for w in pane.query("*") if w.focusable), None)
        (target or tabs.query_one("Tabs")).focus()

    def action_save_dry_run(self) -> None:
        from srt_tui.tui.prompts import PathPrompt

        if self.prepared is None:
            return
        plan = self.prepared.plan
        default = f"dry-runs/{plan.name}-{plan.topology}-{self._stamp()}"
        only = self._member_only()

        def chosen(path: str | None) -> None:
            if path and self.prepared is not None:
                self.save_dry_run(self.prepared, Path(path), only)

        self.app.push_screen(
            PathPrompt("Save the dry-run directory (sbatch.sh, plan.json, recipe.yaml, profile.yaml)", default), chosen
        )

    @work(thread=True, exclusive=True, group="save", name="save-dry-run", exit_on_error=False)
    def save_dry_run(self, prepared: Prepared, target: Path, note: str = "") -> None:
        """Write the dry-run directory atomically; ``note`` is said with it (`_member_only`)."""
        from srt_tui.core.jobdir.write import job_files, write_atomic_dir

        written = write_atomic_dir(target, job_files(prepared.job, prepared.plan, prepared.script), replace=True)
        self.post_message(FileSaved("dry-run", written, note))

    def _member_only(self) -> str:
        """For a whole sweep, which member `s` saves (the one shown, not the sweep): `osl_osl4 only, 2 of the sweep's 2
        jobs (m: the next)`; '' for one job."""
        sweep = self._state.sweep if self._state is not None else None
        if sweep is None or self.prepared is None:
            return ""
        plans = [prep for _, prep in sweep.ready]
        at = next((i for i, prep in enumerate(plans) if prep is self.prepared), 0)
        return f"{self.prepared.plan.name} only, {at + 1} of the sweep's {len(plans)} jobs (m: the next)"

    def action_save_recipe(self) -> None:
        from srt_tui.tui.prompts import PathPrompt

        if self.edited is None or self.prepared is None:
            return
        from srt_tui.core.paths import user_recipes_dir

        # into the user's recipe folder, which the Recipe step lists (`r` reads it again): a file saved in the
        # working directory was never listed
        default = str(user_recipes_dir() / f"{self.edited.name}-{self.prepared.plan.topology}.yaml")

        def chosen(path: str | None) -> None:
            if path and self.edited is not None:
                self.save_recipe(self.edited, Path(path))

        self.app.push_screen(PathPrompt("Save the edited recipe as YAML", default), chosen)

    @work(thread=True, exclusive=True, group="save", name="save-recipe", exit_on_error=False)
    def save_recipe(self, recipe: Recipe, target: Path) -> None:
        """Write the recipe (schema 2) as YAML."""
        from srt_tui.core.spec.yamlio import dump_yaml

        target = target.expanduser()
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp")
        tmp.write_text(dump_yaml(recipe.to_yaml_dict()), encoding="utf-8")
        tmp.replace(target)
        self.post_message(FileSaved("recipe", target))

    @on(FileSaved)
    def _saved(self, message: FileSaved) -> None:
        from srt_tui.tui.display import display_path

        note = f" · {message.note}" if message.note else ""
        self.notify(f"Wrote {message.kind}: {display_path(message.path)}{note}", title="Saved")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_member":
            return self._state is not None and self._state.sweep is not None
        if action == "save_recipe" and self.edited is None:  # a whole sweep: no one recipe to write (not shown)
            return False
        if action in ("save_dry_run", "save_recipe"):
            return self.prepared is not None and not (self._state is not None and self._state.hub.context.read_only)
        return True

    def confirm(self) -> None:
        if self.prepared is not None:
            self.post_message(PreviewAccepted(self.prepared))

    def focus_default(self) -> None:
        self.query_one(ScriptView).focus()
