"""What every wizard step shares: the state it reads, and how it is entered and confirmed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from rich.style import Style
from textual.containers import Vertical

from srt_tui.tui.launch.host_findings import HostCache
from srt_tui.tui.launch.library import RecipeLibrary
from srt_tui.tui.workers import ReportsWorkerErrors

if TYPE_CHECKING:
    from srt_tui.core.api import Prepared
    from srt_tui.core.spec.profile import LoadedProfile
    from srt_tui.core.spec.recipe import Recipe, RecipeSource
    from srt_tui.slurm.sweep_submit import SweepCheck
    from srt_tui.tui.context import ContextHub
    from srt_tui.tui.launch.recipe_catalog import RecipeEntry


@dataclass(frozen=True, eq=False)
class ClonedRun:
    """A job cloned from Monitor: the recipe and profile the wizard was given for it, and the launcher it ran with."""

    recipe: Recipe
    profile: LoadedProfile
    #: `slurm` or `local`
    launcher: str


@dataclass
class WizardState:
    """Choices so far. Steps read it on entry and report changes with messages (never by mutating it)."""

    #: the app's context (clock, read-only, Slurm state): steps read it and may watch it
    hub: ContextHub
    preferred_profile: str | None = None
    profile: LoadedProfile | None = None
    recipe: Recipe | None = None
    source: RecipeSource | None = None
    recipe_label: str = ""
    edited: Recipe | None = None
    prepared: Prepared | None = None
    #: bumped whenever profile or recipe change, so later steps know to rebuild
    generation: int = 0
    #: the recipes read so far: scanning starts with the screen, not when the recipe step is reached
    library: RecipeLibrary = field(default_factory=RecipeLibrary)
    #: the job cloned last (`cloned_launcher` says whether it is still the one chosen)
    cloned: ClonedRun | None = None
    #: a recipe the wizard opened for the operator (a cloned job's): the recipe list shows it among the opened
    #: rows, highlighted, so going back there and on again keeps the clone
    opened: RecipeEntry | None = None
    #: a sweep chosen whole (its row for all its jobs), every member checked: Submit sends them all, as one group;
    #: ``prepared`` is then its first member's plan (the launcher and this machine's checks follow it)
    sweep: SweepCheck | None = None
    #: what this machine found for the prepared job, by launcher: asked by the Topology step, shown by Submit too
    host: HostCache = field(default_factory=HostCache)

    def cloned_launcher(self) -> str | None:
        """The launcher the cloned job ran with while its recipe and profile are the ones chosen, whatever the
        topology edits (an operator cloning a Slurm job and changing one number means Slurm again); None once
        another recipe or profile is chosen, or with no clone."""
        run = self.cloned
        if run is None or self.recipe is not run.recipe or self.profile is not run.profile:
            return None
        return run.launcher

    @property
    def profile_name(self) -> str | None:
        """The chosen profile's name; before it is loaded, the name given with `-p` (not a file's path)."""
        if self.profile is not None:
            return self.profile.name
        given = self.preferred_profile
        if given and "/" not in given and not given.endswith((".yaml", ".yml")):
            return given
        return None


class WizardStep(ReportsWorkerErrors, Vertical):
    """A step of the wizard: a container shown by the launch screen's content switcher."""

    step_id: ClassVar[str] = ""
    title: ClassVar[str] = ""
    #: what the step's fields mean, for Help (`?`, F1): (the field as labelled on screen, what it is)
    HELP_FIELDS: ClassVar[tuple[tuple[str, str], ...]] = ()

    async def enter(self, state: WizardState) -> None:
        """Called every time the step becomes visible; rebuild from `state` if it changed."""

    def confirm(self) -> None:
        """ctrl+n: post this step's "done" message, or tell the operator what is missing."""

    def library_grew(self, entries: list[RecipeEntry]) -> None:
        """A library scan read more recipes (`state.library` holds them already); only the recipe step shows them."""

    def library_reloaded(self) -> None:
        """A reload read the library again (`state.library` holds what it found); only the recipe step shows it."""

    def host_answered(self, prepared: Prepared, launcher: str) -> None:
        """This machine's checks of ``prepared`` for ``launcher`` answered (`WizardState.host` holds them), whichever
        step asked; only the steps that show them redraw."""

    def focus_default(self) -> None:
        """Focus the widget the operator starts with on this step."""
        self.screen.focus_next()

    def hold_keys(self) -> None:
        """The wizard moved to this step: keys typed after the one that moved it wait for what the step still loads
        (`HoldKeys`), so they act on it as on a loaded step. Nothing to wait for by default."""

    def _style(self, name: str) -> Style:
        """A component class's own style (no inherited background), for text spans."""
        return self.get_component_rich_style(name, partial=True)
