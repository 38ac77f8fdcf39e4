"""Step 1: pick a cluster profile. Shipped and user profiles side by side, broken files with their error."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.events import Resize
from textual.widgets import DataTable, Static

from srt_tui.core.spec.profile_order import DEMO_PROFILE, PROFILE_ORDER
from srt_tui.core.spec.profile_stamp import FileStamp
from srt_tui.core.text.words import matches_words, name_rank, nothing_matches
from srt_tui.tui.context import AppContext, ContextHub
from srt_tui.tui.display import display_path
from srt_tui.tui.launch.messages import ProfileChosen, ProfilesLoaded
from srt_tui.tui.launch.profile_facts import COLUMNS, FACT_KEYS, INVALID, ProfileRow, columns, fitted
from srt_tui.tui.launch.steps.base import WizardState
from srt_tui.tui.launch.steps.filter_step import FilterStep
from srt_tui.tui.messages import HoldKeys
from srt_tui.widgets.fit_columns import Fitted, fit_value, natural_widths
from srt_tui.widgets.row_table import RowTable


class ProfileStep(FilterStep):
    """A table of every profile file and the facts of the highlighted one."""

    step_id: ClassVar[str] = "profile"
    title: ClassVar[str] = "Profile"
    filter_id: ClassVar[str] = "profile-filter"
    filter_list_id: ClassVar[str] = "profile-table"
    filter_placeholder: ClassVar[str] = "filter: every word must match (name, source, GPUs, interface…), !word excludes"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "filter", "Filter", tooltip="Filter the profiles: every word must match, !word excludes"),
        Binding("r", "reload", "Reload profiles"),
        Binding("escape", "close_filter", "Close filter"),  # shown: in the filter the footer said no way out (op12)
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"profile-step--ok", "profile-step--bad"}

    def __init__(
        self,
        preferred: str | None = None,
        *,
        rows_coming: bool = False,
        id: str | None = None,  # noqa: A002 (Textual's `id`)
    ) -> None:
        super().__init__(id=id)
        self.rows: list[ProfileRow] = []
        #: the rows the filter leaves (indices into `rows`), in the table's order
        self.shown: list[int] = []
        self.query_text = ""
        self._preferred = preferred
        #: the columns shown (all of the wide set until the step has its width)
        self._columns: tuple[Fitted, ...] = tuple(Fitted(c.key, c.header, c.cap or 0) for c in COLUMNS)
        self._narrow = False
        #: the recipe reader process sends the rows (`reader_rows`): no profile model is loaded here for them
        self._rows_coming = rows_coming

    def compose(self) -> ComposeResult:
        yield Static(
            f"Choose the cluster profile: it owns every hardware difference.\nListed: {PROFILE_ORDER}.",
            classes="step-hint",
        )
        table: DataTable[str | Text] = RowTable(cursor_type="row", id="profile-table")
        self._add_columns(table)
        yield table  # loading (its indicator) until rows come: `enter` says, once the screen handed over what it had
        with VerticalScroll(id="profile-detail-box", can_focus=False):
            yield Static("", id="profile-detail")
        yield Static("", id="profile-errors")

    async def enter(self, state: WizardState) -> None:
        """Nothing to rebuild: the table reflects the files on disk, read again when one changed since (`r` reloads
        them at will); until they are listed it shows its loading indicator."""
        if not self._listed:
            self.query_one(DataTable).loading = True
        else:
            self.check_files()

    # -- the files edited on disk: read again when the step is shown again --------------------------------

    #: the profile files' stamp when the rows shown were read (`profile_stamp`), None before
    _stamp: tuple[FileStamp, ...] | None = None

    def check_files(self) -> None:
        """The step is shown again (going back to it, Launch shown again): read the list again if a profile file
        changed on disk since it was read (an edited profile was shown, and chosen, as it was until `r`)."""
        if self._listed and self._stamp is not None and not self.query_one(DataTable).loading:
            self._check_stamp(self._stamp, [row.path for row in self.rows])

    @work(thread=True, exclusive=True, group="profile-stamp", name="profile-stamp", exit_on_error=False)
    def _check_stamp(self, was: tuple[FileStamp, ...], paths: list[Path]) -> None:
        """Stat the profile files off the UI thread; changed since `was`: the list is read again."""
        from srt_tui.core.spec.profile_stamp import profile_stamp

        if profile_stamp(paths) != was:
            self.app.call_from_thread(self._files_changed, was)

    def _files_changed(self, was: tuple[FileStamp, ...]) -> None:
        if self._stamp != was:  # read again meanwhile
            return
        shown = self._row(self.query_one(DataTable).cursor_row)
        self._cursor_to = shown.name if shown is not None else self._cursor_to
        self.notify("A profile file changed on disk: the list is read again.", timeout=3)
        self.action_reload()

    @work(thread=True, exclusive=True, group="profile-stamp", name="profile-stamp", exit_on_error=False)
    def _take_stamp(self, rows: list[ProfileRow]) -> None:
        """The stamp of the files the rows were read from (read by the reader process, or here): the next check's
        reference."""
        from srt_tui.core.spec.profile_stamp import profile_stamp

        stamp = profile_stamp([row.path for row in rows])
        self.app.call_from_thread(self._stamped, rows, stamp)

    def _stamped(self, rows: list[ProfileRow], stamp: tuple[FileStamp, ...]) -> None:
        if rows is self.rows:
            self._stamp = stamp

    def hold_keys(self) -> None:
        """The wizard opened here, or came back from the Recipe step (`-p` given, so the list is read only now), while
        the list is read: the keys typed meanwhile wait for it and act on it in order (`Esc Enter` in one burst chose
        nothing: its Enter reached the hidden recipe list and went on to the Topology step; `/local` typed at start
        found no list to filter)."""
        if self.query_one(DataTable).loading and not self._holding:
            self._holding = True
            self.app.post_message(HoldKeys(True))  # to the app: bubbling from a screen being mounted, it was dropped

    #: keys wait for the list (`hold_keys`) until its rows are shown
    _holding = False

    def on_mount(self) -> None:
        if not self._rows_coming:
            self.load_profiles(self._preferred)
        hub: ContextHub | None = getattr(self.screen, "hub", None)
        if hub is not None:
            self._written = hub.context.profiles_written
            # Launch opened after Setup wrote a profile: the cursor on it, as when Launch was open before the write
            self._cursor_to = hub.context.written_profile or None
            hub.watch(self, self._profile_written, init=False)

    #: how many profiles Setup had written when the list was last read
    _written = 0
    #: the rows were listed once (before, the table shows its loading indicator)
    _listed = False
    #: the profile the cursor goes to once the list is read again (the one Setup wrote last)
    _cursor_to: str | None = None

    def _profile_written(self, context: AppContext) -> None:
        """Setup wrote a profile: the list is read again, the cursor on it (it was listed only after `r`)."""
        if context.profiles_written != self._written:
            self._written = context.profiles_written
            self._cursor_to = context.written_profile or None
            self.action_reload()

    def reader_rows(self, rows: list[ProfileRow] | None) -> None:
        """The reader process's rows (None: it stopped without them, so they are read here)."""
        if not self._rows_coming:  # reloaded meanwhile
            return
        self._rows_coming = False
        if rows is None:
            self.load_profiles(self._preferred)
        else:
            self._show_rows(rows)
            # after the frame with them, which may be the first: the app reads its queue once it has started
            self.app.call_later(self.call_after_refresh, self._warm_models)

    @work(thread=True, group="profile-models", name="profile-models", exit_on_error=False)
    def _warm_models(self) -> None:
        """Import the profile models once the rows are on screen, so that Enter parses the chosen one at once."""
        import srt_tui.core.spec.profile  # noqa: F401

    def action_reload(self) -> None:
        self._rows_coming = False
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
        self.post_message(ProfilesLoaded(ProfileRow.listed(files)))

    @on(ProfilesLoaded)
    def _loaded(self, message: ProfilesLoaded) -> None:
        message.stop()
        self._show_rows(message.rows)

    def _show_rows(self, rows: list[ProfileRow]) -> None:
        self.rows, self._listed = rows, True
        self._stamp = None
        self._take_stamp(rows)
        table = self.query_one(DataTable)
        if not self._refit(self.size.width):  # the columns follow the longest values
            self._fill(table)
        table.loading = False
        bad = self.get_component_rich_style("profile-step--bad", partial=True)
        broken = [line for row in rows for line in row.errors]
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
        if self._holding:  # after the focus: the keys that waited reach the list
            self._holding = False
            self.app.post_message(HoldKeys(False))

    def on_resize(self, event: Resize) -> None:
        """The columns that fit the new width (the narrow set below `WIDE`; narrower still, the least important give
        way whole), so every fact shown is whole and never scrolls sideways."""
        self._refit(event.size.width)

    def _refit(self, width: int) -> bool:
        """Show the columns that fit ``width`` (the step's); whether they changed (the rows were filled again)."""
        if width <= 0:  # not laid out yet: its first resize fits them
            return False
        table = self.query_one(DataTable)
        # the table's margins, and its vertical scrollbar when its rows overflow its height (at most 60% of the step)
        overflow = len(self.rows) + 1 > self.size.height * 3 // 5
        room = width - 2 - (table.styles.scrollbar_size_vertical if overflow else 0)
        narrow = columns(width) is not COLUMNS
        shown = fitted(
            width, room, natural_widths([c.key for c in columns(width)], map(self._values(narrow), self.rows))
        )
        if shown == self._columns and narrow == self._narrow:
            return False
        self._columns, self._narrow = shown, narrow
        row = table.cursor_row
        table.clear(columns=True)
        self._add_columns(table)
        self._fill(table)
        table.move_cursor(row=row, animate=False)
        return True

    @staticmethod
    def _values(narrow: bool) -> Callable[[ProfileRow], dict[str, str]]:
        """A row's values by column key, as the narrow or the wide column set shows them."""

        def values(row: ProfileRow) -> dict[str, str]:
            facts = (row.narrow if narrow else row.wide) if row.valid else ("-", "-", INVALID)
            return {"name": row.name, "source": row.source, **dict(zip(FACT_KEYS, facts))}

        return values

    def _add_columns(self, table: DataTable[str | Text]) -> None:
        for c in self._columns:  # Text: a str is read as markup (and loads Rich's emoji table)
            table.add_column(Text(c.header), width=c.width, key=c.key)

    def _fill(self, table: DataTable[str | Text]) -> None:
        """One row per profile file the filter leaves, in the columns shown (a value too long for its column cut
        after a whole word, `…` marking the cut)."""
        table.clear()
        ok = self.get_component_rich_style("profile-step--ok", partial=True)
        bad = self.get_component_rich_style("profile-step--bad", partial=True)
        self.shown = [i for i, row in enumerate(self.rows) if matches_words(_words(row), self.query_text)]
        for i in self.shown:
            row = self.rows[i]
            cells = {key: Text(value) for key, value in self._values(self._narrow)(row).items()}
            cells["mark"] = Text("✓", style=ok) if row.valid else Text("✗", style=bad)
            if not row.valid:
                cells["request"].stylize(bad)
            table.add_row(*(_fitted(cells.get(c.key, Text("")), c.width) for c in self._columns), key=str(i))

    def _preferred_row(self) -> int:
        """The row the cursor starts on: the profile Setup just wrote, else `-p`'s, else the one this user last chose
        or submitted with, else the demo; one no longer listed (or filtered out) gives way to the next."""
        want = self._preferred
        if want and (want.endswith((".yaml", ".yml")) or "/" in want):
            want = None if not self.rows else self.rows[0].name
        names = [self.rows[i].name for i in self.shown]
        remembered = next((row.name for row in self.rows if row.remembered), None)
        for candidate in (self._cursor_to, want, remembered, DEMO_PROFILE):
            if candidate in names:
                return names.index(candidate)
        return 0

    def _row(self, table_row: int) -> ProfileRow | None:
        """The profile on a row of the table (None: no such row)."""
        return self.rows[self.shown[table_row]] if 0 <= table_row < len(self.shown) else None

    @on(DataTable.RowHighlighted, "#profile-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(event.cursor_row)

    def _show_detail(self, row: int) -> None:
        detail = self.query_one("#profile-detail", Static)
        shown = self._row(row)
        box = self.query_one("#profile-detail-box")
        if shown is None:
            box.border_title = ""
            detail.update(nothing_matches("profile", self.query_text) if self.rows and self.query_text else "")
            return
        box.border_title = shown.name
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column()
        grid.add_row("profile", f"{shown.name}  ({shown.source}: {display_path(shown.path)})")
        bad = self.get_component_rich_style("profile-step--bad", partial=True)
        for line in shown.errors:
            grid.add_row(Text("error", style=bad), Text(line, style=bad))
        for key, value in shown.detail:
            grid.add_row(key, value)
        detail.update(grid)

    @on(DataTable.RowSelected, "#profile-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        self._choose(event.cursor_row)

    def confirm(self) -> None:
        self._choose(self.query_one(DataTable).cursor_row)

    def _choose(self, index: int) -> None:
        row = self._row(index)
        if row is None:
            loading = "Profiles are still loading."
            why = f"No profile matches the filter {self.query_text!r}: change it, or Esc clears it."
            self.notify(why if self.rows else loading, severity="warning")
            return
        if not row.valid:
            self.notify(
                f"{row.name} is invalid; fix {display_path(row.path)} first (its errors are listed below the table).",
                severity="error",
            )
            return
        if row.file is not None and row.file.profile is not None:  # parsed here: chosen at once
            from srt_tui.core.spec.profile import LoadedProfile

            self.post_message(ProfileChosen(LoadedProfile(row.name, row.path, row.file.profile, row.source)))
        else:
            self.post_message(HoldKeys(True))  # keys typed meanwhile are the next step's: they wait for it
            self.load_chosen(row)

    @work(thread=True, exclusive=True, group="profile-chosen", name="load-chosen-profile", exit_on_error=False)
    def load_chosen(self, row: ProfileRow) -> None:
        """The model of a profile the reader process listed, parsed now; a file that changed meanwhile and no
        longer parses is said, and the list read again."""
        from srt_tui.core.errors import ConfigError
        from srt_tui.core.spec.profile import LoadedProfile, parse_profile

        try:
            loaded = LoadedProfile(row.name, row.path, parse_profile(row.path), row.source)
        except (ConfigError, OSError) as exc:
            self.app.call_from_thread(self._changed, row, str(exc))
        else:
            self.post_message(ProfileChosen(loaded))
        finally:  # behind the choice: the Recipe step is shown (or the error said) before the keys go on
            self.post_message(HoldKeys(False))

    def _changed(self, row: ProfileRow, error: str) -> None:
        from srt_tui.tui.display import scrub

        self.notify(scrub(f"{row.name} cannot be read now: {error}"), severity="error", timeout=10)
        self.action_reload()

    # -- filter (`/`, as on every list: `FilterStep`) ------------------------------------------------------

    def _cursor_row(self) -> tuple[str, str] | None:
        shown = self._row(self.query_one(DataTable).cursor_row)
        return (shown.name, shown.name) if shown is not None else None

    def _filter_typed(self) -> None:
        table = self.query_one(DataTable)
        self._fill(table)
        names = [self.rows[i].name for i in self.shown]
        best = min(range(len(names)), key=lambda i: name_rank(names[i], self.query_text), default=0)
        table.move_cursor(row=best, animate=False)
        self._show_detail(table.cursor_row)

    def _filter_closed(self, keep: str | None) -> None:
        table = self.query_one(DataTable)
        self._fill(table)
        names = [self.rows[i].name for i in self.shown]
        table.move_cursor(row=names.index(keep) if keep in names else self._preferred_row(), animate=False)
        self._show_detail(table.cursor_row)
        table.focus()

    def focus_default(self) -> None:
        self.query_one(DataTable).focus()


def _fitted(cell: Text, width: int) -> Text:
    """``cell`` within ``width`` cells, cut after a whole word (`fit_value`) when it is longer."""
    if cell.cell_len <= width:
        return cell
    return Text(fit_value(cell.plain, width), style=cell.style)


def _words(row: ProfileRow) -> str:
    """What the filter reads of a profile: its name, where it comes from (shipped, user, …) and its facts."""
    return " ".join((row.name, row.source, *row.wide))
