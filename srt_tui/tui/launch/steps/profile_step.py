"""Step 1: pick a cluster profile. Shipped and user profiles side by side, broken files with their error."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.events import Resize
from textual.widgets import DataTable, Static

from srt_tui.tui.display import display_path
from srt_tui.tui.launch.messages import ProfileChosen, ProfilesLoaded
from srt_tui.tui.launch.profile_facts import COLUMNS, INVALID, columns, detail_lines, error_lines, fact_row
from srt_tui.tui.launch.steps.base import WizardState, WizardStep
from srt_tui.widgets.row_table import RowTable

if TYPE_CHECKING:
    from srt_tui.core.spec.profile import ProfileFile


class ProfileStep(WizardStep):
    """A table of every profile file and the facts of the highlighted one."""

    step_id: ClassVar[str] = "profile"
    title: ClassVar[str] = "Profile"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("r", "reload", "Reload profiles")]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"profile-step--ok", "profile-step--bad"}

    def __init__(self, preferred: str | None = None, *, id: str | None = None) -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(id=id)
        self.files: list[ProfileFile] = []
        self._preferred = preferred
        self._columns = COLUMNS

    def compose(self) -> ComposeResult:
        yield Static("Choose the cluster profile: it owns every hardware difference.", classes="step-hint")
        table: DataTable[str | Text] = RowTable(cursor_type="row", id="profile-table")
        self._add_columns(table)
        table.loading = True
        yield table
        with VerticalScroll(id="profile-detail-box", can_focus=False):
            yield Static("", id="profile-detail")
        yield Static("", id="profile-errors")

    async def enter(self, state: WizardState) -> None:
        """Nothing to rebuild: the table reflects the files on disk (`r` reloads them)."""

    def on_mount(self) -> None:
        self.load_profiles(self._preferred)

    def action_reload(self) -> None:
        self.query_one(DataTable).loading = True
        self.load_profiles(self._preferred)

    @work(thread=True, exclusive=True, group="profiles", name="load-profiles", exit_on_error=False)
    def load_profiles(self, preferred: str | None) -> None:
        """List user and shipped profiles (plus `-p FILE` or a discovered srtslurm.yaml) off the UI thread."""
        from srt_tui.core.errors import ConfigError
        from srt_tui.core.spec.discovery import find_srtslurm
        from srt_tui.core.spec.profile import ProfileFile, list_profile_files, parse_profile

        files = list_profile_files()
        extra: Path | None = None
        if preferred and (preferred.endswith((".yaml", ".yml")) or "/" in preferred):
            extra = Path(preferred).expanduser()
        elif preferred is None:
            try:
                extra = find_srtslurm()
            except ConfigError:
                extra = None
        if extra is not None:
            source = "file" if preferred else "srtslurm.yaml"
            name = extra.stem if extra.name != "srtslurm.yaml" else (extra.resolve().parent.name or "srtslurm")
            try:
                files.insert(0, ProfileFile(name, extra, source, parse_profile(extra), None))
            except ConfigError as exc:
                files.insert(0, ProfileFile(name, extra, source, None, exc))
        self.post_message(ProfilesLoaded(files))

    @on(ProfilesLoaded)
    def _loaded(self, message: ProfilesLoaded) -> None:
        message.stop()
        self.files = message.files
        table = self.query_one(DataTable)
        self._fill(table)
        table.loading = False
        bad = self.get_component_rich_style("profile-step--bad", partial=True)
        broken = [line for pf in self.files for line in error_lines(pf.error, display_path(pf.path))]
        errors = self.query_one("#profile-errors", Static)
        if broken:
            text = Text("Invalid profile files\n", style=bad)
            text.append("\n".join(f"✗ {line}" for line in broken))
            errors.update(text)
            errors.display = True
        else:
            errors.display = False
        table.move_cursor(row=self._preferred_row(), animate=False)
        self._show_detail(table.cursor_row)
        if self.display:
            table.focus()

    def on_resize(self, event: Resize) -> None:
        """Swap to the narrow columns (or back) so every fact stays visible without scrolling sideways."""
        if columns(event.size.width) != self._columns:
            self._columns = columns(event.size.width)
            table = self.query_one(DataTable)
            row = table.cursor_row
            table.clear(columns=True)
            self._add_columns(table)
            self._fill(table)
            table.move_cursor(row=row, animate=False)

    def _add_columns(self, table: DataTable[str | Text]) -> None:
        for label, width in self._columns:
            table.add_column(label, width=width, key=label or "mark")

    def _fill(self, table: DataTable[str | Text]) -> None:
        """One row per profile file, in the current column set."""
        table.clear()
        narrow = self._columns is not COLUMNS
        ok = self.get_component_rich_style("profile-step--ok", partial=True)
        bad = self.get_component_rich_style("profile-step--bad", partial=True)
        for i, pf in enumerate(self.files):
            cells: list[str | Text] = [Text("✓", style=ok) if pf.profile else Text("✗", style=bad), Text(pf.name)]
            if not narrow:
                cells.append(pf.source)
            if pf.profile is not None:
                cells += [Text(x) for x in fact_row(pf.profile, narrow)]
            else:
                cells += ["-", "-", Text(INVALID, style=bad)]
                cells += [""] * (len(self._columns) - len(cells))
            table.add_row(*cells, key=str(i))

    def _preferred_row(self) -> int:
        want = self._preferred
        if want and (want.endswith((".yaml", ".yml")) or "/" in want):
            want = None if not self.files else self.files[0].name
        names = [pf.name for pf in self.files]
        for candidate in (want, "local"):
            if candidate in names:
                return names.index(candidate)
        return 0

    @on(DataTable.RowHighlighted, "#profile-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(event.cursor_row)

    def _show_detail(self, row: int) -> None:
        detail = self.query_one("#profile-detail", Static)
        if not 0 <= row < len(self.files):
            detail.update("")
            return
        pf = self.files[row]
        self.query_one("#profile-detail-box").border_title = pf.name
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column()
        grid.add_row("profile", f"{pf.name}  ({pf.source}: {display_path(pf.path)})")
        if pf.profile is None:
            for line in error_lines(pf.error, display_path(pf.path)):
                bad = self.get_component_rich_style("profile-step--bad", partial=True)
                grid.add_row(Text("error", style=bad), Text(line, style=bad))
        else:
            for key, value in detail_lines(pf.profile):
                grid.add_row(key, value)
        detail.update(grid)

    @on(DataTable.RowSelected, "#profile-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        self._choose(event.cursor_row)

    def confirm(self) -> None:
        self._choose(self.query_one(DataTable).cursor_row)

    def _choose(self, row: int) -> None:
        from srt_tui.core.spec.profile import LoadedProfile

        if not 0 <= row < len(self.files):
            self.notify("Profiles are still loading.", severity="warning")
            return
        pf = self.files[row]
        if pf.profile is None:
            self.notify(
                f"{pf.name} is invalid; fix {display_path(pf.path)} first (its errors are listed below the table).",
                severity="error",
            )
            return
        self.post_message(ProfileChosen(LoadedProfile(pf.name, pf.path, pf.profile, pf.source)))

    def focus_default(self) -> None:
        self.query_one(DataTable).focus()
