"""Launch mode: the wizard profile → recipe → topology → preview → submit, one step visible at a time."""

from __future__ import annotations

import importlib
import threading
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.widgets import ContentSwitcher

from srt_tui.tui.context import ContextHub
from srt_tui.tui.header import AppHeader
from srt_tui.tui.launch.first_step import profile_given
from srt_tui.tui.launch.host_findings import HostChecksDone
from srt_tui.tui.launch.messages import (
    GivenProfileLoaded,
    JobSubmitted,
    PlanConfirmed,
    PlanUpdated,
    PreviewAccepted,
    ProfileChosen,
    ProfilesRead,
    RecipeChosen,
    RecipesFound,
    RecipesReloaded,
    ReloadRecipes,
    SweepChecked,
    SweepChosen,
    SweepSubmitted,
)
from srt_tui.tui.launch.steps.base import ClonedRun, WizardState, WizardStep
from srt_tui.tui.mode_screen import ModeScreen
from srt_tui.tui.palette import PaletteAction
from srt_tui.tui.workers import ReportsWorkerErrors
from srt_tui.widgets.fit_footer import FitFooter
from srt_tui.widgets.step_bar import StepBar

if TYPE_CHECKING:
    from srt_tui.core.api import Prepared
    from srt_tui.core.jobdir.clone import ClonedJob
    from srt_tui.core.spec.profile import LoadedProfile
    from srt_tui.tui.launch.profile_facts import ProfileRow
    from srt_tui.tui.launch.recipe_catalog import LibraryRoot, RecipeEntry
    from srt_tui.tui.launch.recipe_reader import ReaderLine, RecipeReader

#: (step id, label, module, class) in order; later steps are imported when first reached
STEPS: tuple[tuple[str, str, str, str], ...] = (
    ("profile", "Profile", ".steps.profile_step", "ProfileStep"),
    ("recipe", "Recipe", ".steps.recipe_step", "RecipeStep"),
    ("topology", "Topology", ".steps.topology_step", "TopologyStep"),
    ("preview", "Preview", ".steps.preview_step", "PreviewStep"),
    ("submit", "Submit", ".steps.submit_step", "SubmitStep"),
)
#: the Preview step's index: Submit is offered from here on
PREVIEW = 3
#: the recipe rows one message adds to the tree (~20 ms of the UI's time)
ROWS_A_MESSAGE = 100
#: the longest the scan waits for the first screenful of rows to be painted before it reads on
FIRST_ROWS_WAIT_S = 2.0
#: footer keys that leave it, first to last, when a step's keys do not fit its width (the Recipe step reached from
#: the Profile step, with `esc Back`, at 80 columns; at 44 columns with a kept filter, `^n Next` and `esc Close
#: filter` before all): `?` Help still lists them, and they still work
FOOTER_GIVES_WAY = ("open_file", "reload", "edit_recipe", "quit", "help", "filter")


class LaunchScreen(ReportsWorkerErrors, ModeScreen):
    """Holds the wizard state; steps report choices with messages and this screen moves between them."""

    CSS_PATH = "launch.tcss"
    #: the first step's list, never a pane beside it: while the list loads nothing has the focus (the app's keys
    #: work) and the list takes it with its first rows
    AUTO_FOCUS = "#recipe-tree, #profile-table"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "next_step", "Next"),
        # the same key on the last step, where it submits: the footer says so (it read `Next` there)
        Binding("ctrl+n", "submit_step", "Submit", tooltip="Submit the job with the chosen launcher"),
        Binding("escape", "prev_step", "Back"),
    ]

    #: the visible step, and the choices so far in one line: the step bar is bound to both
    index: reactive[int] = reactive(0, init=False)
    note: reactive[str] = reactive("", init=False)

    def __init__(self, hub: ContextHub) -> None:
        super().__init__(id="launch")
        self.hub = hub
        self.state = WizardState(hub, preferred_profile=hub.context.profile_spec)
        #: recipe folders scanned or being scanned, so a profile's srtctl_root is read once; and those roots (a reload
        #: reads them all again)
        self._scanned: set[Path] = set()
        self._roots: list[LibraryRoot] = []
        #: one scan reads at a time (the cache is one file); a later root waits for the first
        self._scan_lock = threading.Lock()
        #: the given profile's models load once the reader's first screenful of rows is painted (until then the
        #: interpreter is the first paint's: the reader parses on another core)
        self._profile_waits = False
        #: set once the recipe list's first screenful of rows is painted: until then the scan reads no more (parsing
        #: the rest of a warm library, ~700 rows at once, shared the interpreter with that frame, or came before it)
        self._rows_painted = threading.Event()
        self._first_rows_in = False
        #: the reader's rows taken before the first frame, by scan (`_take_ready`), until the first step shows them
        self._ready: list[tuple[int, ReaderLine]] = []
        #: a clone asked for before this screen was mounted (applied by `on_mount`)
        self._pending_clone: tuple[ClonedJob, Prepared, str] | None = None
        #: the wizard's first step: Recipe when the profile is already chosen (`-p`, or srtctl's srtslurm.yaml
        #: found as srtctl finds it), as srtctl's interactive mode opens on its recipe list; else Profile
        self._first = 1 if profile_given(self.state.preferred_profile) else 0

    def compose(self) -> ComposeResult:
        yield AppHeader("launch", self.hub)
        yield StepBar(tuple(label for _, label, _, _ in STEPS), id="step-bar").data_bind(
            current=LaunchScreen.index, note=LaunchScreen.note
        )
        with ContentSwitcher(initial=f"step-{STEPS[self._first][0]}", id="steps"):
            yield self._make_step(self._first)
        yield FitFooter(FOOTER_GIVES_WAY)

    def _make_step(self, index: int) -> WizardStep:
        """Step `index`, its module imported now (later steps load when first reached)."""
        step_id, _, module, cls_name = STEPS[index]
        if index == 0:  # imported here: with a profile given the wizard may never show it (nor its DataTable)
            from srt_tui.tui.launch.recipe_reader import early_profiles
            from srt_tui.tui.launch.steps.profile_step import ProfileStep

            return ProfileStep(self.state.preferred_profile, rows_coming=early_profiles(), id="step-profile")
        loaded = importlib.import_module(module, __package__)
        if loaded.__file__:
            self._read_css(Path(loaded.__file__).with_suffix(".tcss"))
        step: WizardStep = getattr(loaded, cls_name)(id=f"step-{step_id}")
        return step

    def _read_css(self, path: Path) -> None:
        """A later step's rules (`steps/<step>.tcss`), added to the app's stylesheet when the step is first made, as
        Textual adds a screen's: the first frame parses only the first steps' (Textual parses a screen's whole
        stylesheet three times as the app starts)."""
        stylesheet = self.app.stylesheet
        if path.is_file() and not stylesheet.has_source(str(path), ""):
            stylesheet.add_source(path.read_text(encoding="utf-8"), read_from=(str(path), ""))

    def on_screen_resume(self) -> None:
        """Launch shown again (from another mode, or a screen on top closed): the Profile step, when shown, reads its
        list again if a profile file changed on disk meanwhile (`check_files`: in a worker)."""
        if self.index == 0 and self._shown_once:
            from srt_tui.tui.launch.steps.profile_step import ProfileStep

            for step in self.query("#step-profile").results(ProfileStep):
                step.check_files()

    async def on_mount(self) -> None:
        self._scan_roots(None)
        if self._first and not self._profile_waits:
            self.load_given_profile(self.state.preferred_profile)
        self._show_ready()  # the first step is entered with the rows the reader has sent by now
        await self.go_to(self._first)
        if self._pending_clone is not None:  # Monitor's `C` opened Launch for the first time
            await self.clone(*self._pending_clone)

    async def clone(self, cloned: ClonedJob, prepared: Prepared, launcher: str = "slurm") -> None:
        """Start over from a job Monitor read back: its profile, recipe and topology, shown on the preview."""
        if not self.is_mounted or not self.query("#steps"):
            self._pending_clone = (cloned, prepared, launcher)
            return
        self._pending_clone = None
        state = self.state
        state.profile, state.preferred_profile = cloned.profile, cloned.profile.name
        self._forget_after(0)
        state.recipe, state.source, state.recipe_label = cloned.recipe, cloned.source, cloned.recipe.name
        state.edited, state.prepared = cloned.recipe, prepared
        state.cloned = ClonedRun(cloned.recipe, cloned.profile, launcher)
        from srt_tui.tui.launch.recipe_catalog import cloned_entry

        state.opened = cloned_entry(cloned.job_id, cloned.recipe, cloned.source)
        self.hub.update(profile_label=f"{cloned.profile.name} ({cloned.profile.source})")
        self._scan_roots(cloned.profile.profile.srtctl_root)
        self.query_one(StepBar).reached = PREVIEW
        await self.go_to(PREVIEW)
        self.notify(f"Job {cloned.job_id} cloned from {cloned.origin}: check the plan, then ctrl+n to Submit.")

    # -- the recipe library (read from the start, in a thread) --------------------------------------

    def _scan_roots(self, srtctl_root: str | None) -> None:
        """Scan the library folders not scanned yet (the default ones, and a profile's srtctl checkout)."""
        from srt_tui.tui.launch.recipe_catalog import library_roots

        roots = [r for r in library_roots(srtctl_root) if r.path.resolve() not in self._scanned]
        if not roots:
            return
        self._scanned.update(r.path.resolve() for r in roots)
        self._roots += roots
        scan = self.state.library.next_scan()
        self.state.library.started(scan)
        from srt_tui.tui.launch.recipe_reader import claim

        reader = claim(roots) if srtctl_root is None else None
        taken = self._take_ready(reader) if reader is not None else None
        if taken is None:
            reader = None
        if reader is not None and self._first == 1:
            self._profile_waits = True
        if reader is None or not reader.profiles:  # a Profile step waiting for the reader's rows reads them itself
            self.post_message(ProfilesRead(None))
        self._ready += [(scan, got) for got in taken or []]
        self.scan_recipes(scan, roots, reader, taken or [])

    def _take_ready(self, reader: RecipeReader) -> list[ReaderLine] | None:
        """The reader's rows sent by now, up to a screenful (None when it failed already: it is let go, and the
        library is read here): they go on the first frame (`_show_ready`), not on one drawn after it."""
        from srt_tui.tui.launch.recipe_catalog import SCREENFUL
        from srt_tui.tui.launch.recipe_reader import ReaderFailed

        try:
            return reader.ready(SCREENFUL)
        except ReaderFailed as exc:
            self.log.warning(f"recipes: {exc}; reading them here")
            reader.close()
            return None

    def _show_ready(self) -> None:
        """The rows `_take_ready` took, handed over as the reader's messages hand them, before the first step is
        entered: it is built with them, never with a loading indicator that the next message takes away."""
        ready, self._ready = self._ready, []
        for scan, got in ready:
            if isinstance(got, tuple):
                self._recipes_found(RecipesFound(scan, *got))
            else:
                self._profiles_read(ProfilesRead(got))

    @work(thread=True, group="recipe-scan", name="scan-recipes", exit_on_error=False)
    def scan_recipes(
        self,
        scan: int,
        roots: list[LibraryRoot],
        reader: RecipeReader | None = None,
        taken: list[ReaderLine] | None = None,
    ) -> None:
        """Read every recipe file under `roots`, folder by folder, through the user's cache: the rows the reader
        process sends (after those `taken` already), then (when it stopped early) what it did not send, read here."""
        from srt_tui.state.recipe_cache import RecipeCache
        from srt_tui.tui.launch.recipe_catalog import SCREENFUL, scan_library
        from srt_tui.tui.launch.recipe_reader import ReaderFailed

        batches = [got for got in taken or [] if isinstance(got, tuple)]
        sent: set[str] = {e.spec for entries, _, _ in batches for e in entries}
        before = [batches[-1][1] if batches else 0]  # files read as of the last message
        # the recipe list opens the wizard: once it has a screenful of rows, the rest waits for them to be painted
        shown_first = self._first == 1

        def first_rows_painted() -> None:
            if shown_first and len(sent) >= SCREENFUL:
                self._rows_painted.wait(FIRST_ROWS_WAIT_S)

        def found(entries: list[RecipeEntry], read: int, total: int) -> None:
            fresh = [e for e in entries if e.spec not in sent]
            sent.update(e.spec for e in fresh)
            # a warm cache hands the whole library over at once: in slices, so keys and frames go between them
            for start in range(0, max(len(fresh), 1), ROWS_A_MESSAGE):
                last = start + ROWS_A_MESSAGE >= len(fresh)
                self.post_message(
                    RecipesFound(scan, fresh[start : start + ROWS_A_MESSAGE], read if last else before[0], total)
                )
            before[0] = read
            if read < total:
                first_rows_painted()

        if reader is not None:
            profiles: list[list[ProfileRow] | None] = [next((g for g in taken or [] if isinstance(g, list)), None)]

            def listed(rows: list[ProfileRow]) -> None:
                profiles[0] = rows
                self.post_message(ProfilesRead(rows))

            try:
                if not batches or batches[-1][1] < batches[-1][2]:  # the last batch is not among those taken
                    first_rows_painted()
                    for entries, read, total in reader.batches(on_profiles=listed):
                        found(entries, read, total)
                return
            except ReaderFailed as exc:
                self.log.warning(f"recipes: {exc}; reading the rest here")
            finally:
                reader.close()
                if reader.profiles and profiles[0] is None:  # the Profile step reads them itself
                    self.post_message(ProfilesRead(None))
        with self._scan_lock:
            scan_library(roots, found, cache=RecipeCache().load(), every=0.25)

    @on(ReloadRecipes)
    def _reload(self, message: ReloadRecipes) -> None:
        """Read the library again: every folder listed so far, and the default ones made since (the user's, ./recipes)
        or the chosen profile's srtctl checkout, through the cache (only new or changed files are parsed)."""
        from srt_tui.tui.launch.recipe_catalog import library_roots

        message.stop()
        library = self.state.library
        if library.loading:
            self.notify("The recipe library is still being read: r again once it is done.", severity="warning")
            return
        profile = self.state.profile
        more = library_roots(profile.profile.srtctl_root if profile is not None else None)
        fresh = [r for r in more if r.path.resolve() not in self._scanned]
        self._scanned.update(r.path.resolve() for r in fresh)
        self._roots += fresh
        roots = [r for r in self._roots if r.path.is_dir()]  # a folder removed since lists nothing
        scan = library.next_scan()
        library.reload_started(scan)
        found = self.query("#step-recipe")
        if found:
            found.first(WizardStep).library_grew([])  # the hint says the library is being read
        self.reload_recipes(scan, roots, [r.path for r in self._roots])

    @work(thread=True, group="recipe-reload", name="reload-recipes", exit_on_error=False)
    def reload_recipes(self, scan: int, roots: list[LibraryRoot], listed: list[Path]) -> None:
        """Every recipe under `roots` read again through the cache (the hint counts the files as it goes); the entries
        of every folder in `listed` are replaced by what is found."""
        from srt_tui.state.recipe_cache import RecipeCache
        from srt_tui.tui.launch.recipe_catalog import scan_library

        def progress(entries: list[RecipeEntry], read: int, total: int) -> None:
            if read < total:  # the last count comes with the entries
                self.post_message(RecipesFound(scan, [], read, total))

        with self._scan_lock:
            entries = scan_library(roots, progress, cache=RecipeCache().load(), every=0.25)
        self.post_message(RecipesReloaded(scan, listed, entries))

    @on(RecipesReloaded)
    def _reloaded(self, message: RecipesReloaded) -> None:
        from srt_tui.core.text.counts import counted

        added, gone = self.state.library.reloaded(message.scan, message.roots, message.entries)
        found = self.query("#step-recipe")
        if found:
            found.first(WizardStep).library_reloaded()
        changes = f"{added} new, {gone} gone" if added or gone else "nothing added or removed"
        self.notify(f"{counted(len(message.entries), 'recipe')}: {changes}.", title="Recipe library read again")

    # -- the profile chosen before the wizard opened ---------------------------------------------------

    @work(thread=True, exclusive=True, group="profiles", name="load-given-profile", exit_on_error=False)
    def load_given_profile(self, spec: str | None) -> None:
        """Read the one profile given (`-p NAME|FILE`, or srtslurm.yaml by discovery), not the whole list."""
        from srt_tui.core.errors import SrtError
        from srt_tui.core.spec.profile import load_profile
        from srt_tui.tui.display import scrub

        try:
            loaded = load_profile(spec)
        except (SrtError, OSError) as exc:
            self.post_message(GivenProfileLoaded(None, scrub(str(exc))))
            return
        self.post_message(GivenProfileLoaded(loaded, ""))

    @on(GivenProfileLoaded)
    async def _given_profile(self, message: GivenProfileLoaded) -> None:
        """As if chosen on the Profile step, the wizard staying where it is; a profile that cannot be read opens
        the Profile step, which lists it with its error."""
        if self.state.profile is not None:  # the operator went back and chose one meanwhile
            return
        if message.loaded is None:
            self.notify(message.error, title="The profile given cannot be used", severity="error", timeout=10)
            from srt_tui.tui.context import NO_PROFILE

            self.hub.update(profile_label=NO_PROFILE)  # the header never names a profile that was refused
            await self.go_to(0)
            return
        loaded = self.state.profile = message.loaded
        self.hub.update(profile_label=f"{loaded.name} ({loaded.source})")
        self._scan_roots(loaded.profile.srtctl_root)
        if self.index == 1:
            await self.step.enter(self.state)
        self.note = self._note()

    @on(ProfilesRead)
    def _profiles_read(self, message: ProfilesRead) -> None:
        """The reader's profile rows (or None: it stopped without them) for a Profile step waiting for them."""
        found = self.query("#step-profile")
        if found:
            from srt_tui.tui.launch.steps.profile_step import ProfileStep

            found.first(ProfileStep).reader_rows(message.rows)

    @on(RecipesFound)
    def _recipes_found(self, message: RecipesFound) -> None:
        self.state.library.add(message.scan, message.entries, message.read, message.total)
        found = self.query("#step-recipe")
        if found:
            found.first(WizardStep).library_grew(message.entries)
        from srt_tui.tui.launch.recipe_catalog import SCREENFUL  # imported by the reader's batches already

        library = self.state.library
        if not self._first_rows_in and (len(library.entries) >= SCREENFUL or not library.loading):
            # a screenful of rows is in: the rest of the library and the profile's models (pydantic, ~0.3 s of the one
            # interpreter lock) wait for the frame with them to be drawn
            self._first_rows_in = True
            if found:
                from srt_tui.tui.launch.steps.recipe_step import RecipeStep

                found.first(RecipeStep).after_rows_painted(self._first_rows_painted)
            else:
                self._first_rows_painted()

    def _first_rows_painted(self) -> None:
        """The recipe list's first screenful is on the terminal: the scan reads on, and the given profile loads."""
        self._rows_painted.set()
        if self._profile_waits:
            self._profile_waits = False
            self.load_given_profile(self.state.preferred_profile)

    @property
    def step(self) -> WizardStep:
        """The visible step."""
        return self.query_one(f"#step-{STEPS[self.index][0]}", WizardStep)

    def help_rows(self) -> list[tuple[str, str, str]]:
        """Help's rows beside the keys: the visible step's fields, what each means (where, field, meaning)."""
        step = self.step
        return [(f"{step.title} step", field, meaning) for field, meaning in step.HELP_FIELDS]

    #: a step was shown (`go_to`)
    _shown_once = False

    async def go_to(self, index: int) -> None:
        """Show step `index`, importing and mounting it the first time. The focus never stays on the step left (a
        step whose list still loads takes it with its rows: a key typed meanwhile reached the hidden step), and a
        step moved to (the first one shown too) says whether the keys typed after it wait for what it still loads
        (`hold_keys`)."""
        step_id = STEPS[index][0]
        switcher = self.query_one("#steps", ContentSwitcher)
        found = switcher.query(f"#step-{step_id}")
        if found:
            step = found.first(WizardStep)
        else:
            step = self._make_step(index)
            await switcher.mount(step)
        moved = index != self.index or not self._shown_once  # the first step shown is moved to, as any other
        self._shown_once = True
        self.index = index
        await step.enter(self.state)
        switcher.current = f"step-{step_id}"
        self.note = self._note()
        if self.focused is not None and step not in self.focused.ancestors:
            self.set_focus(None)
        if moved:
            step.hold_keys()
        step.focus_default()
        self.refresh_bindings()

    def watch_index(self, index: int) -> None:
        """The step bar remembers the furthest step reached (its `current` follows `index` by binding)."""
        bar = self.query_one(StepBar)
        bar.reached = max(bar.reached, index)

    def _note(self) -> str:
        s = self.state
        parts = [s.profile.name if s.profile else "", s.recipe_label]
        if s.prepared is not None and self.index >= 2:
            parts.append(s.prepared.plan.topology)
        return " · ".join(p for p in parts if p)

    # -- navigation ---------------------------------------------------------------------------------

    def action_next_step(self) -> None:
        self.step.confirm()

    def action_submit_step(self) -> None:
        """ctrl+n on the Submit step: submit (the step says why not, read-only included)."""
        self.step.confirm()

    async def action_prev_step(self) -> None:
        if self.index == PREVIEW and self.state.sweep is not None:  # a whole sweep came from its recipe row
            await self.go_to(1)
        elif self.index > 0:
            await self.go_to(self.index - 1)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "prev_step":
            return self.index > 0
        if action in ("next_step", "submit_step"):  # one ctrl+n, named for what it does on this step
            return (self.index == len(STEPS) - 1) == (action == "submit_step")
        if action == "submit":  # from the preview on, and never read-only
            return self.index >= PREVIEW and not self.hub.context.read_only
        return True

    def palette_actions(self) -> list[PaletteAction]:
        """The palette's Launch entries (`check_action` decides which are possible now)."""
        submit = (
            PaletteAction("Submit", "Submit the job with the chosen launcher", "submit")
            if self.index > PREVIEW
            else PaletteAction("Submit…", "Choose the launcher (Slurm or local) and submit", "submit")
        )
        return [submit, PaletteAction("Next step", "Confirm this step", "next_step"),
                PaletteAction("Previous step", "Back to the step before", "prev_step")]  # fmt: skip

    def action_submit(self) -> None:
        """From the preview: to the Submit step (the launcher is chosen there, never blind); there: submit."""
        if self.index >= PREVIEW:
            self.step.confirm()

    # -- pipeline messages --------------------------------------------------------------------------

    @on(ProfileChosen)
    async def _profile(self, message: ProfileChosen) -> None:
        if self.state.profile is None or self.state.profile.name != message.loaded.name:
            self.state.profile = message.loaded
            self._forget_after(0)
        self.hub.update(profile_label=f"{message.loaded.name} ({message.loaded.source})")
        self._scan_roots(message.loaded.profile.srtctl_root)
        self._remember(message.loaded.name, message.loaded.source)
        await self.go_to(1)

    @work(thread=True, group="last-profile", name="remember-profile", exit_on_error=False)
    def _remember(self, name: str, source: str) -> None:
        """The profile chosen here or submitted with is the one the next Launch highlights (`remember_profile`),
        written off the UI thread (a slow home file system never holds a key)."""
        from srt_tui.state.last_profile import remember_profile

        remember_profile(name, source)

    @on(RecipeChosen)
    async def _recipe(self, message: RecipeChosen) -> None:
        if self.state.sweep is not None:  # one job now, not the sweep chosen before
            self._forget_after(1)
        if self.state.recipe is not message.recipe:
            self._forget_after(1)
            self.state.recipe, self.state.source = message.recipe, message.source
            self.state.recipe_label = message.recipe.name
            self.state.edited = message.recipe
        await self.go_to(2)

    @on(SweepChosen)
    def _sweep(self, message: SweepChosen) -> None:
        """A sweep's row for all its jobs: every member checked on the chosen profile (in a worker), then Preview."""
        if self.state.profile is None:
            self.notify("The profile is still being read: choose the sweep again in a moment.", severity="warning")
            return
        self.check_sweep(message.spec, message.label, self.state.profile)

    @work(thread=True, exclusive=True, group="sweep-check", name="check-sweep", exit_on_error=False)
    def check_sweep(self, spec: str, label: str, profile: LoadedProfile) -> None:
        """`check_sweep` off the UI thread: each member is read, planned and rendered."""
        from srt_tui.core.errors import SrtError
        from srt_tui.slurm.sweep_submit import check_sweep
        from srt_tui.tui.display import scrub

        try:
            self.post_message(SweepChecked(label, check_sweep(spec, profile)))
        except SrtError as exc:
            self.post_message(SweepChecked(label, None, scrub(str(exc))))

    @on(SweepChecked)
    async def _sweep_checked(self, message: SweepChecked) -> None:
        """A sweep whose members are all valid goes to Preview (Topology skipped: each member's shape is its own),
        its members listed there and on Submit; else nothing of it is submitted (as `apply` refuses it) and the toast
        says which member and why."""
        from srt_tui.tui.display import scrub

        check = message.check
        refusal = check.refusal() if check is not None else None
        if check is None or refusal is not None or not check.ready:
            why = message.error or scrub(str(refusal))
            self.notify(why, title=f"{message.label}: not submitted", severity="error", timeout=15)
            return
        self._forget_after(1)
        state = self.state
        state.recipe, state.source, state.recipe_label, state.edited = None, None, message.label, None
        state.sweep, state.prepared = check, check.ready[0][1]
        self.query_one(StepBar).skipped = frozenset({PREVIEW - 1})  # each member's topology is its own file's
        await self.go_to(PREVIEW)

    @on(SweepSubmitted)
    def _sweep_submitted(self, message: SweepSubmitted) -> None:
        """As `_submitted`: the message bubbles on to the app, which opens the sweep's rows in Monitor."""
        if self.state.profile is not None:
            self._remember(self.state.profile.name, self.state.profile.source)
        self.notify(
            f"{len(message.jobs)} jobs of group {message.group} submitted with the {message.launcher} launcher.",
            title="Submitted",
        )

    def _forget_after(self, index: int) -> None:
        """A new choice at step `index` voids every later one: the breadcrumbs and later steps start over."""
        self.state.sweep = None
        self.query_one(StepBar).skipped = frozenset()
        if index < 1:
            self.state.recipe, self.state.source, self.state.recipe_label = None, None, ""
        self.state.edited, self.state.prepared = (self.state.recipe if index >= 1 else None), None
        self.state.generation += 1
        self.query_one(StepBar).reached = index

    @on(HostChecksDone)
    def _host_checked(self, message: HostChecksDone) -> None:
        """Keep what this machine found (an answer about a job no longer shown is dropped) and tell every step (the
        step that asked may no longer be the one shown: Topology's answer reaches Submit; the one that asked learns
        its ask answered, kept or not)."""
        message.stop()
        self.state.host.answered(message.prepared, message.launcher, message.found)
        for step in self.query(WizardStep):
            step.host_answered(message.prepared, message.launcher)

    @on(PlanUpdated)
    def _plan(self, message: PlanUpdated) -> None:
        self.state.edited, self.state.prepared = message.recipe, message.prepared
        self.note = self._note()

    @on(PlanConfirmed)
    async def _plan_ok(self, message: PlanConfirmed) -> None:
        self.state.prepared = message.prepared
        await self.go_to(3)

    @on(PreviewAccepted)
    async def _preview_ok(self, message: PreviewAccepted) -> None:
        await self.go_to(4)

    @on(JobSubmitted)
    def _submitted(self, message: JobSubmitted) -> None:
        """The message bubbles on to the app, which opens the job in Monitor; its profile is remembered (`-p`'s
        too: the one used to submit)."""
        if self.state.profile is not None:
            self._remember(self.state.profile.name, self.state.profile.source)
        self.notify(f"Job {message.job_id} submitted with the {message.launcher} launcher.", title="Submitted")
