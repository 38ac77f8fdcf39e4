"""Step 2: pick a recipe. Folders of shipped and user recipes, a `/` filter, a summary, and "open file…"."""

from __future__ import annotations

import contextlib
import textwrap
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, ClassVar, TypeVar, cast

from rich.cells import cell_len
from rich.style import Style
from rich.table import Table
from rich.text import Text, TextType
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widgets import Static, Tree
from textual.widgets._tree import _TreeLine
from textual.widgets.tree import TreeNode

from srt_tui.core.text.counts import counted
from srt_tui.core.text.words import name_rank, nothing_matches
from srt_tui.tui.display import shorten_paths, wrap_path
from srt_tui.tui.launch.messages import RecipeChosen, RecipeOpened, ReloadRecipes, SweepChosen
from srt_tui.tui.launch.recipe_catalog import LIST_ITEM
from srt_tui.tui.launch.recipe_fit import Fit, ProfileFit, fit_of
from srt_tui.tui.launch.steps.base import WizardState
from srt_tui.tui.launch.steps.filter_step import FilterStep
from srt_tui.tui.launch.steps.recipe_rows import fit_folder
from srt_tui.tui.messages import HoldKeys

if TYPE_CHECKING:
    from srt_tui.core.spec.profile import LoadedProfile
    from srt_tui.tui.launch.library import RecipeLibrary
    from srt_tui.tui.launch.recipe_catalog import RecipeEntry
    from srt_tui.tui.launch.steps.recipe_edit import EditResult, EditTarget


class HostModulesFound(Message):
    """Which Python packages this machine's `python3` imports (a worker asked it): rows of a container-less profile
    that need them fit or not."""

    def __init__(self, answers: dict[str, bool]) -> None:
        super().__init__()
        self.answers = answers


class RecipeEdited(Message):
    """The file edited in $EDITOR was read back and validated (in a worker)."""

    def __init__(self, result: EditResult) -> None:
        super().__init__()
        self.result = result


_T = TypeVar("_T")

HINT = "Choose a recipe (✓ written for this profile, • fits it as written)."
#: the summary's key column: its longest key (`benchmark`, `  prefill`)
KEY_WIDTH = 9


def about_lines(text: str, width: int) -> str:
    """A recipe's `about` (its description, or its file's leading comment) in lines of ``width``, as its author broke
    it: each line on its own, wrapped at blanks, a wrapped line going on under its own start (a list item's under its
    text, not its `-`); a line that fits, or a width not known yet, as written."""
    if width < 12:
        return text
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        item = LIST_ITEM.match(line)
        indent = item.end() if item else len(line) - len(line.lstrip())
        wrapped = textwrap.wrap(
            line, width, subsequent_indent=" " * min(indent, width // 2), break_long_words=False, break_on_hyphens=False
        )
        out.extend(wrapped or [line])
    return "\n".join(out)


class RecipeTree(Tree["RecipeEntry | None"]):
    """The recipe tree, with the j/k/g/G moves every list of the app has."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "scroll_home", "Top", show=False),
        Binding("G", "scroll_end", "Bottom", show=False),
    ]

    #: the tree's width inside its border as of its last resize (0 until laid out): `size` looks up the
    #: region, too slow once a row
    _shown_width = 0
    #: called once a frame with rows in it is on the terminal (`after_rows_painted`)
    _after_rows: Callable[[], object] | None = None

    def watch_loading(self) -> None:
        """Textual leaves a loading widget's keys out of the screen's but says nothing when `loading` changes: said
        here, or the footer kept the screen's keys alone after rows that came once the tree had the focus."""
        if self.has_focus:
            self.refresh_bindings()

    def after_rows_painted(self, callback: Callable[[], object], at_most: float = 1.0) -> None:
        """Call `callback` once the next frame with rows in it is on the terminal, or after `at_most` seconds (a
        tree not on screen draws none): work that would share the interpreter with the first rows waits for them."""
        self._after_rows = callback
        self.set_timer(at_most, self._take_after_rows)

    def _take_after_rows(self) -> None:
        callback, self._after_rows = self._after_rows, None
        if callback is not None:
            callback()

    def render_lines(self, crop: Region) -> list[Strip]:
        lines = super().render_lines(crop)
        if self._after_rows is not None and self.root.children and not self.loading:
            callback, self._after_rows = self._after_rows, None
            # through the app's queue, which it reads once it runs (a frame drawn while it mounts is not shown),
            # then after the refresh that shows these rows
            self.app.call_later(self.call_after_refresh, callback)
        return lines

    class Resized(Message):
        """The tree's size changed (Textual's Resize goes to the widget alone)."""

    def on_resize(self) -> None:
        self._shown_width = self.size.width  # Tree rebuilds its lines on a resize: they are measured anew
        self.post_message(self.Resized())

    # -- rows appended without rebuilding the lines already there ------------------------------------------------

    #: the widest line measured (`_build`, then the lines appended since): `virtual_size`'s width
    _widest = 0

    def _build(self) -> None:
        super()._build()
        self._widest = self.virtual_size.width if self._tree_lines else 0

    def process_label(self, label: TextType) -> Text:
        """A row's label as it is: Tree cuts every label at its first line break, copying it twice a node (a row has
        none)."""
        if isinstance(label, Text) and "\n" not in label.plain:
            return label
        return super().process_label(label)

    def add_folder(
        self, label: Text, before: TreeNode[RecipeEntry | None] | None = None
    ) -> TreeNode[RecipeEntry | None]:
        """A folder row, expanded, last or ``before`` another folder (Tree's `root.add` rebuilds every line)."""
        children = self.root._children
        index = len(children) if before is None else children.index(before)
        folder = self._new_node(self.root, label, None, expand=True)
        children.insert(index, folder)
        self._insert_lines([_TreeLine([folder], True)], before)
        return folder

    def append_leaves(
        self, folder: TreeNode[RecipeEntry | None], rows: list[tuple[Text, RecipeEntry]]
    ) -> list[TreeNode[RecipeEntry | None]]:
        """Recipe rows added at the end of ``folder`` (a row of the root): their lines go in after the folder's last
        one and the lines already built stay as they are, measured and drawn (Tree's `add_leaf` rebuilt and measured
        every line of the tree at the next look, so a library streaming in batches cost the square of its rows)."""
        leaves = [self._new_node(folder, label, entry, allow_expand=False) for label, entry in rows]
        if not leaves:
            return leaves
        above = folder._children[-1] if folder._children else None
        folder._children.extend(leaves)
        if not folder._expanded:  # no line shows them
            return leaves
        lines = [_TreeLine([folder, leaf], False) for leaf in leaves]
        lines[-1].last = True
        folders = self.root._children
        index = folders.index(folder)
        self._insert_lines(lines, folders[index + 1] if index + 1 < len(folders) else None, above)
        return leaves

    def _new_node(
        self,
        parent: TreeNode[RecipeEntry | None],
        label: Text,
        data: RecipeEntry | None,
        *,
        expand: bool = False,
        allow_expand: bool = True,
    ) -> TreeNode[RecipeEntry | None]:
        """A node of this tree, not placed yet (what Tree's `_add_node` makes, without marking every line stale)."""
        node = TreeNode(self, parent, self._new_id(), label, data, expanded=expand, allow_expand=allow_expand)
        self._tree_nodes[node._id] = node
        return node

    def _insert_lines(
        self,
        new: list[_TreeLine[RecipeEntry | None]],
        following: TreeNode[RecipeEntry | None] | None,
        above: TreeNode[RecipeEntry | None] | None = None,
    ) -> None:
        """``new`` lines in before the line of ``following`` (None: at the end), those after them renumbered; the
        lines before them are neither measured nor drawn again. ``above``: the row above them, whose line ends its
        folder no more. With no lines built yet (or lines that do not hold ``following``), every line is built at
        the next look, as Tree does."""
        lines = self._tree_lines_cached
        if lines is None:
            self._invalidate()
            return
        at = len(lines) if following is None else following._line
        if following is not None and not (0 <= at < len(lines) and lines[at].node is following):
            self._invalidate()  # lines that do not hold it: built anew
            return
        if above is not None and 0 <= above._line < len(lines) and lines[above._line].node is above:
            lines[above._line].last = False
            above._updates += 1  # its `└` is a `├` now: the line is drawn again
        if at < len(lines):  # lines below move, and drawn lines are cached by their index
            self._line_cache.clear()
        lines[at:at] = new
        for index in range(at, len(lines)):
            lines[index].node._line = index
        guide_depth, show_root = self.guide_depth, self.show_root
        widths = [self.get_label_width(line.node) + line._get_guide_width(guide_depth, show_root) for line in new]
        self._widest = max(self._widest, *widths)
        if self._growing:
            self._grown = True
        else:
            self._lines_grown()

    #: `growing` blocks open, and whether lines went in during them (the tree is laid out once, as the last one ends)
    _growing = 0
    _grown = False

    @contextlib.contextmanager
    def growing(self) -> Iterator[None]:
        """Rows and folders added in the block lay the tree out, place its cursor line and repaint it once, at its end
        (a batch of a scan holds rows of several folders)."""
        self._growing += 1
        try:
            yield
        finally:
            self._growing -= 1
            if not self._growing and self._grown:
                self._lines_grown()

    def _lines_grown(self) -> None:
        """What `_build` ends with, for lines added to those built: the tree's size, its cursor line, a repaint."""
        self._grown = False
        lines = self._tree_lines_cached
        if lines is None:  # built anew at the next look
            return
        self.virtual_size = Size(self._widest, len(lines))  # a new size lays the tree out again, as `_build` does
        if self.cursor_line != -1:
            if self.cursor_node is not None:
                self.cursor_line = self.cursor_node._line
            if self.cursor_line >= len(lines):
                self.cursor_line = -1
        self.refresh()

    def get_label_width(self, node: TreeNode[RecipeEntry | None]) -> int:
        """A label's width without drawing it: Tree measures every line each time it grows, and drawing all
        700 rows of srtctl's library once a batch was most of the first rows' CPU. At most the room drawn
        labels are fitted to (less a scrollbar), so never a horizontal scrollbar."""
        label = node.label
        width = (label.cell_len if isinstance(label, Text) else cell_len(label)) + (
            cell_len(self.ICON_NODE) if node.allow_expand else 0
        )
        room = self._shown_width - self.styles.scrollbar_size_vertical
        if room <= 0 or width + self.guide_depth * 3 < room:  # not laid out yet, or fits at any depth
            return width
        depth, parent = 0, node.parent
        while parent is not None and not parent.is_root:
            depth, parent = depth + 1, parent.parent
        return max(1, min(width, room - self.guide_depth * depth))

    def render_label(self, node: TreeNode[RecipeEntry | None], base_style: Style, style: Style) -> Text:
        """A folder too long for the tree's width loses middle folders, never its end (cut at its end, srtctl's
        `…/b200-fp4/1k1k/` and `…/b200-fp4/8k1k/` read the same), nor what tells it from folders that would read
        the same (`./recipes/…/1k1k/` was six of them); worked out as it is drawn, at today's width."""
        label = node.label if isinstance(node.label, Text) else Text(node.label)
        room = self.scrollable_content_region.width - 4  # the fold mark and the margin
        if node.data is None and node.allow_expand and 1 < room < label.cell_len:
            short = Text(self._folder_cuts(room - 1)[label.plain.rstrip("/")] + "/", style=label.style)
            short.stylize(style)
            return Text.assemble((self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE, base_style), short)
        folder = node.parent
        if node.data is not None and folder is not None:
            depth, parent = 0, node.parent
            while parent is not None and not parent.is_root:
                depth, parent = depth + 1, parent.parent
            # the guides take `guide_depth` columns a level, then the row's own margin
            room = self.scrollable_content_region.width - self.guide_depth * (depth + 1) - 1
            if 1 < room < label.cell_len:
                label = self._folder_rows(folder, room)[folder.children.index(node)].copy()
                label.stylize(style)
                return label
        return super().render_label(node, base_style, style)

    def _folder_rows(self, folder: TreeNode[RecipeEntry | None], room: int) -> list[Text]:
        """Every row of ``folder`` as it shows in ``room`` cells (`fit_folder`: what tells a row from the others
        depends on them all), worked out once a folder and width: every visible row asks at each paint."""
        rows = tuple(
            (c.label if isinstance(c.label, Text) else Text(str(c.label)), f"  {c.data.shape}" if c.data else "")
            for c in folder.children
        )
        return self._memo(("rows", tuple((label.plain, shape) for label, shape in rows), room),
                          lambda: fit_folder(list(rows), room))  # fmt: skip

    def _folder_cuts(self, width: int) -> dict[str, str]:
        """Every folder row (without its `/`) as it shows in ``width``: `shorten_paths` of them all, since what
        tells a folder apart depends on the others."""
        folders = tuple(str(n.label).rstrip("/") for n in self.root.children if n.data is None)
        return self._memo(("folders", folders, width), lambda: shorten_paths(folders, width))

    def _memo(self, key: tuple[object, ...], make: Callable[[], _T]) -> _T:
        """``make()``, worked out once a key: every visible row asks at each paint (filters and resizes come and
        go, so the memo is emptied now and then)."""
        memo: dict[tuple[object, ...], object] = self.__dict__.setdefault("_memo_", {})
        if key not in memo:
            if len(memo) > 64:
                memo.clear()
            memo[key] = make()
        return cast(_T, memo[key])


class RecipeStep(FilterStep):
    """A folder tree of recipes next to the summary of the highlighted one."""

    step_id: ClassVar[str] = "recipe"
    title: ClassVar[str] = "Recipe"
    filter_id: ClassVar[str] = "recipe-filter"
    filter_list_id: ClassVar[str] = "recipe-tree"
    filter_placeholder: ClassVar[str] = "filter: every word must match (name, folder, engine, topology…)"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "filter", "Filter", tooltip="Filter the recipes: every word must match, !word excludes"),
        Binding("o", "open_file", "Open…", tooltip="Open a recipe file by path"),
        Binding("e", "edit_recipe", "Edit", tooltip="Edit the recipe in $VISUAL or $EDITOR"),
        Binding("r", "reload", "Reload", tooltip="Read the recipe folders again: files added, changed or removed"),
        Binding("escape", "close_filter", "Close filter"),  # shown: in the filter the footer said no way out (op12)
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "recipe-step--match",
        "recipe-step--dim",
        "recipe-step--bad",
        "recipe-step--key",
    }

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's `id`)
        super().__init__(id=id)
        self.entries: list[RecipeEntry] = []
        self.profile_name: str | None = None
        self.query_text = ""
        self._highlight_spec: str | None = None
        self._profile: LoadedProfile | None = None
        self._read_only = False
        self._library: RecipeLibrary | None = None
        #: folder nodes of the tree by folder, and the folder of each folder node (by node id)
        self._folders: dict[str, TreeNode[RecipeEntry | None]] = {}
        self._folder_of: dict[int, str] = {}
        #: the node the step put the cursor on itself: while it is still there, a better one may replace it, unless
        #: it was the row asked for (`_highlight_spec`: a clone's, an opened or edited file's, the one before `/`)
        self._auto_node: TreeNode[RecipeEntry | None] | None = None
        self._auto_asked = False
        #: what validation said about a recipe after it was edited here, by spec: (errors, warnings, whether the
        #: errors are the recipe's own rather than its fit to the profile)
        self._checks: dict[str, tuple[list[str], list[str], bool]] = {}
        #: the wizard's `opened` recipe this step last showed
        self._shown_opened: RecipeEntry | None = None
        #: the chosen profile's cluster (None: none chosen yet): a row whose job needs more nodes shows ✗ and why, a
        #: row that fits it as written • (`recipe_fit`)
        self._limit: ProfileFit | None = None
        #: `fit_of` each entry at `_limit`, by the entry's id (the entry kept beside it: an id is never reused while
        #: its answer is here): the tree asks for every row at each rebuild, twice
        self._big: dict[int, tuple[RecipeEntry, Fit]] = {}
        #: which Python packages this machine's `python3` imports (for a container-less profile's rows), and those
        #: asked about and not answered yet
        self._importable: dict[str, bool] = {}
        self._asking: set[str] = set()

    def compose(self) -> ComposeResult:
        yield Static(HINT, classes="step-hint", id="recipe-hint")
        with Horizontal(id="recipe-body"):
            with Vertical(id="recipe-left"):  # the `/` filter goes above the tree when first asked for
                tree = RecipeTree(Text("recipes"), id="recipe-tree")  # Text: a str is read as markup (+ emoji codes)
                tree.show_root = False
                tree.guide_depth = 2
                yield tree  # loading (its indicator) until rows come: `enter` says, once it knows what was read
            with VerticalScroll(id="recipe-summary-box"):
                yield Static("", id="recipe-summary")

    async def enter(self, state: WizardState) -> None:
        self._profile, self._read_only = state.profile, state.hub.context.read_only
        name = state.profile_name
        limit = self._limit
        if state.profile is not None:
            self._limit = ProfileFit.of(state.profile)
            if self._limit != limit:
                self._big.clear()
        if self._library is None:  # first entry: what the scan read so far (it started with the screen)
            self._library, self.profile_name = state.library, name
            self.entries = list(state.library.entries)
            self._rebuild(keep_cursor=False)
        elif name != self.profile_name:
            self.profile_name = name
            if self.entries:
                self._rebuild(keep_cursor=False)
        elif self._limit != limit and self.entries:  # the given profile's model loaded after the first rows
            self._refit()
        if state.opened is not None and state.opened is not self._shown_opened:
            self._shown_opened = state.opened
            self.show_opened(state.opened)
        self._show_progress()
        self._ask_host_modules()

    #: keys wait (`HoldKeys`) for the tree's first rows (`hold_keys`), or for the rest of the library an Enter in the
    #: filter waits for (`_enter_waits`)
    _holding = False
    #: an Enter in the filter waits for the library: the row it takes is chosen once every recipe is read
    _enter_pending = False

    def hold_keys(self) -> None:
        """The wizard opened here (`srt-tui -p PROFILE`) or came back while the tree has no row yet: the keys typed
        meanwhile wait for the first rows and act on them in order (`/mocker-1p1d` typed at start found no list to
        filter: nothing had the focus)."""
        if self.query_one("#recipe-tree", Tree).loading:
            self._hold(True)

    def _hold(self, on: bool) -> None:
        """Keys wait (on; again: for longer, the library is still being read) or go on (off, when they waited)."""
        if on or self._holding:
            self._holding = on
            # to the app itself: a message bubbling from a screen still being mounted (the wizard's first step) is
            # dropped on its way up
            self.app.post_message(HoldKeys(on))

    def _enter_waits(self) -> bool:
        """Enter in the filter while the library is still read waits for the rest, unless the highlighted row is one
        no row read later can beat (its name is the filter and it is written for the profile): the row Enter takes
        is the best of the whole library, as when the keys are typed once it is read (`/mocker-1p1d` Enter typed at
        start took whatever matched among the folders read so far, or nothing)."""
        library = self._library
        node = self.query_one("#recipe-tree", Tree).cursor_node
        if library is None or not library.loading:
            return False
        if node is not None and node.data is not None and self._rank(node.data) == (0, 0):
            return False
        self._enter_pending = True
        self._hold(True)
        return True

    def _library_progressed(self) -> None:
        """More of the library is in: keys that wait for it wait on (it is still being read), or the Enter that
        waited takes its row, then the keys after it go on."""
        library = self._library
        if self._enter_pending and library is not None and not library.loading:
            self._enter_pending = False
            field = self._field()  # not gone elsewhere after a wait longer than the keys' hold
            if self.display and field is not None and field.has_focus:
                self.take_filtered()
            self._hold(False)
        elif self._holding:
            self._hold(True)

    def _void_enter(self) -> None:
        """The filter changed or closed after an Enter that waited longer than the keys' hold: that Enter is void."""
        if self._enter_pending:
            self._enter_pending = False
            self._hold(False)

    def _rows_shown(self) -> None:
        """The tree has rows and the focus: keys that waited for them go on (unless an Enter waits for the rest)."""
        if self._holding and not self._enter_pending:
            self._hold(False)

    def after_rows_painted(self, callback: Callable[[], object]) -> None:
        """Call `callback` once the tree's next rows are drawn (`RecipeTree.after_rows_painted`)."""
        self.query_one("#recipe-tree", RecipeTree).after_rows_painted(callback)

    def library_grew(self, entries: list[RecipeEntry]) -> None:
        """Append the folders just read: to the tree when they match the filter, the cursor left where it is."""
        if self._library is None:
            return
        end = len(self.entries)  # before the opened recipes, which stay last
        while end and self.entries[end - 1].folder == "opened":
            end -= 1
        self.entries[end:end] = entries
        self._add_rows([e for e in entries if e.matches(self.query_text)], grew=True)
        self._show_progress()
        self._library_progressed()
        self._ask_host_modules()

    def action_reload(self) -> None:
        """Read the library again (the screen scans it in a worker; `library_reloaded` shows what it found)."""
        self.post_message(ReloadRecipes())

    def library_reloaded(self) -> None:
        """The library as read again, the opened recipes kept, the filter applied, the cursor on its recipe."""
        if self._library is None:
            return
        opened = [e for e in self.entries if e.folder == "opened"]
        self.entries = [*self._library.entries, *opened]
        self._importable.clear()  # asked again: an engine installed since fits now
        self._rebuild()
        self._show_progress()
        self._library_progressed()
        self._ask_host_modules()

    def _show_progress(self) -> None:
        """The hint line counts files while a scan reads; the tree shows its loading indicator until rows come."""
        library = self._library
        tree = self.query_one("#recipe-tree", Tree)
        loading = library is not None and library.loading
        tree.loading = loading and not self.entries
        if not tree.loading and self.display and self.screen.focused is None:
            tree.focus()  # a loading tree cannot take the focus: it takes it with its first rows
        if not tree.loading:
            self._rows_shown()
        hint = HINT
        if loading and library is not None:
            read, total = library.counts
            hint += f"  Reading recipes… {read}/{counted(total, 'file')}"
        self.query_one("#recipe-hint", Static).update(hint)

    # -- tree ---------------------------------------------------------------------------------------

    def _label(self, entry: RecipeEntry, styles: dict[str, Style]) -> Text:
        """A row: `✓ label  1P2D · sglang` (its facts were worked out when the file was read): ✓ written for the
        profile, • fits it as written (`recipe_fit`); `✗` when it cannot be read, or when its job needs more nodes
        than the profile's cluster has (the summary says how many)."""
        if entry.broken:
            return Text.assemble(("✗ ", styles["bad"]), (entry.label, styles["bad"]))
        fit = self._fit(entry)
        if fit.too_big:
            return Text.assemble(("✗ ", styles["bad"]), entry.label, (f"  {entry.shape}", styles["dim"]))
        mark = "✓ " if self._written_for(entry) else "• " if fit.fits else "  "
        return Text.assemble((mark, styles["match"]), entry.label, (f"  {entry.shape}", styles["dim"]))

    def _written_for(self, entry: RecipeEntry) -> bool:
        """The recipe's `profiles:` names the chosen profile (its ✓)."""
        return bool(self.profile_name) and self.profile_name in entry.profiles

    def _fit(self, entry: RecipeEntry) -> Fit:
        """How the job as written fits the chosen profile's cluster (`recipe_fit`); pending before one is chosen."""
        if self._limit is None:
            return Fit(pending=True)
        known = self._big.get(id(entry))
        if known is None or known[0] is not entry:
            known = self._big[id(entry)] = (entry, fit_of(entry, self._limit, self._importable))
        return known[1]

    def _too_big(self, entry: RecipeEntry) -> str | None:
        """Why the job as written does not fit the chosen profile's cluster (`max_nodes`), or None."""
        return self._fit(entry).too_big

    def _ask_host_modules(self) -> None:
        """For a container-less profile, ask (in a worker) whether this machine's `python3` imports the packages the
        rows' engines need and that were not asked about yet; their rows are marked once it answers."""
        if self._limit is None or not self._limit.on_host:
            return
        wanted = {m for e in self.entries if e.host_modules for m in e.host_modules}
        fresh = sorted(wanted - self._importable.keys() - self._asking)
        if fresh:
            self._asking.update(fresh)
            self._find_host_modules(fresh)

    @work(thread=True, group="recipe-fit", name="host-modules", exit_on_error=False)
    def _find_host_modules(self, modules: list[str]) -> None:
        """Which of ``modules`` this machine's `python3` imports (one interpreter started for them all)."""
        from srt_tui.core.plan.host_programs import importable_here

        answers = importable_here(modules)
        self.post_message(HostModulesFound({m: answers.get(m, False) for m in modules}))

    @on(HostModulesFound)
    def _host_modules_found(self, message: HostModulesFound) -> None:
        message.stop()
        self._asking.difference_update(message.answers)
        self._importable.update(message.answers)
        self._big.clear()
        if self.entries:
            self._refit()

    def _refit(self) -> None:
        """The rows marked again for the profile's cluster as now known (each row whose mark changed relabelled: the
        rows and their order stay, so the tree is not rebuilt), and the cursor on the best row when the step put it
        where it is (not the operator, a clone or an opened file) and a better one is marked now."""
        tree: Tree[RecipeEntry | None] = self.query_one("#recipe-tree", Tree)
        styles = {name: self._style(f"recipe-step--{name}") for name in ("bad", "match", "dim")}
        best: TreeNode[RecipeEntry | None] | None = None
        best_rank = (0, 0)
        for folder in tree.root.children:
            for leaf in folder.children:
                if leaf.data is None:
                    continue
                label = self._label(leaf.data, styles)
                if label != leaf.label:
                    leaf.set_label(label)
                rank = self._rank(leaf.data)
                if best is None or rank < best_rank:
                    best, best_rank = leaf, rank
        placed = tree.cursor_node is self._auto_node and not self._auto_asked
        if best is not None and placed and best is not tree.cursor_node and self._beats(best_rank, tree.cursor_node):
            self._place_cursor(best)
        else:
            self._summarise_node(tree.cursor_node)  # its `fit` line

    def _folder_node(self, folder: str) -> TreeNode[RecipeEntry | None]:
        """The folder's node, made on first need (before the "opened" folder, which stays last)."""
        node = self._folders.get(folder)
        if node is None:
            tree = self.query_one("#recipe-tree", RecipeTree)
            opened = self._folders.get("opened")
            before = opened if opened is not None and folder != "opened" else None
            node = tree.add_folder(Text(folder + "/", style="bold"), before=before)
            self._folders[folder] = node
            self._folder_of[node.id] = folder
        return node

    def _add_rows(self, entries: list[RecipeEntry], grew: bool = False) -> None:
        """Rows for `entries` under their folders; the cursor moves only while it is where the step put it (not on a
        row it was asked for), to the best ranked row (`_rank`) when that beats the row it is on; rows read later
        going in above the cursor row leave it where it is on screen."""
        tree = self.query_one("#recipe-tree", RecipeTree)
        want = self._highlight_spec
        target = best = None
        line = tree.cursor_line
        offset = line - round(tree.scroll_y)
        best_rank = (0, 0)
        styles = {name: self._style(f"recipe-step--{name}") for name in ("bad", "match", "dim")}
        by_folder: dict[str, list[int]] = {}  # each folder's rows go in at once, in the order given
        for index, entry in enumerate(entries):
            by_folder.setdefault(entry.folder, []).append(index)
        leaves: list[TreeNode[RecipeEntry | None]] = [tree.root] * len(entries)
        with tree.growing():
            for folder, indexes in by_folder.items():
                rows = [(self._label(entries[i], styles), entries[i]) for i in indexes]
                for i, leaf in zip(indexes, tree.append_leaves(self._folder_node(folder), rows), strict=True):
                    leaves[i] = leaf
        for entry, leaf in zip(entries, leaves, strict=True):
            if want is not None and entry.spec == want:
                target = leaf
            rank = self._rank(entry)
            if best is None or rank < best_rank:  # the first of equals: the tree's order
                best, best_rank = leaf, rank
        auto = self._auto_node
        untouched = auto is None or (tree.cursor_node is auto and not self._auto_asked)
        asked = target is not None
        if target is None and best is not None and untouched and self._beats(best_rank, auto):
            target = best
        if target is not None:
            self._place_cursor(target, asked)
            return
        if not grew or tree.cursor_node is None or tree.cursor_node.data is None:
            self._summarise_node(tree.cursor_node)  # rows the scan added change no recipe's summary
        if grew:
            self._keep_cursor_row(line, offset)

    def _rank(self, entry: RecipeEntry) -> tuple[int, int]:
        """Where the step puts the cursor, lowest first: the row whose name answers the filter best (`mocker-1p1d`
        before `mocker-…` whose folder alone matched), then a row written for the profile, then one that fits it as
        written (a profile Setup has just written has none of the first: op11's cursor sat on an AMD recipe of a
        cluster of fake GPUs), then the tree's order (the first of equals: the row nearest the top). A name that
        starts with the query and one that holds it at a word's start answer alike: `/1p2d` put the cursor on
        srtctl's `1p2d-mtp` (GB200, experimental), 20 rows down, over the ✓ `mocker-1p2d` and, with a profile no
        row is written for, over the first row shown."""
        fit = self._fit(entry)
        named = name_rank(entry.label, self.query_text)
        return (2 if named in (1, 2) else named), 3 if fit.too_big else 0 if self._written_for(entry) else (
            1 if fit.fits else 2
        )

    def _beats(self, rank: tuple[int, int], node: TreeNode[RecipeEntry | None] | None) -> bool:
        """Whether a row of `rank` is a better place for the cursor than `node` (None: no row has it yet)."""
        return node is None or node.data is None or rank < self._rank(node.data)

    def _place_cursor(self, node: TreeNode[RecipeEntry | None], asked: bool = False) -> None:
        tree: Tree[RecipeEntry | None] = self.query_one("#recipe-tree", Tree)
        self._auto_node, self._auto_asked = node, asked
        self._highlight_spec = None
        # the summary after the rows are painted: the rows are what the operator waits for
        self.call_after_refresh(lambda: self._summarise_node(tree.cursor_node))
        # reading `last_line` builds the tree's lines now: the cursor is on the node before the next key,
        # not after the next refresh (an Enter typed quickly would otherwise choose the first row)
        if tree.last_line >= 0:
            # the cursor alone (Tree's `move_cursor` also scrolls: a tree with no height yet scrolled the row to its
            # top, hiding the rows above it), the view once the rows are laid out in a tree with its height
            tree.cursor_line = node.line
            self._unshown = True
            self.call_after_refresh(self._show_placed)

    #: the row the step placed is not shown yet: it is once the tree has its height (`_show_placed`)
    _unshown = False

    def _show_placed(self) -> None:
        """The placed row shown with as much of the tree above it as fits, once: after the refresh that lays out its
        rows, or at the tree's first size when it had none then (its first layout; at 80x24 `-p amd-mi300x` opened
        scrolled past `▼ amd/`). Not when the operator has moved the cursor meanwhile."""
        tree: Tree[RecipeEntry | None] = self.query_one("#recipe-tree", Tree)
        height = tree.scrollable_content_region.height
        if not self._unshown or height <= 0:
            return
        self._unshown = False
        line = tree.cursor_line
        if line >= 0 and tree.cursor_node is self._auto_node:
            tree.scroll_to(y=0 if line < height else line - height // 2, animate=False)

    def _keep_cursor_row(self, line: int, offset: int) -> None:
        """The cursor row, moved from ``line`` by rows read later going in above it (they go before the opened
        ones: a clone's row, last, went below the fold as srtctl's library was read), keeps its place on screen,
        ``offset`` rows down (the nearest edge when the view shrank meanwhile): the tree keeps only its cursor."""
        tree: Tree[RecipeEntry | None] = self.query_one("#recipe-tree", Tree)
        node = tree.cursor_node
        height = tree.scrollable_content_region.height
        # `last_line` builds the lines now: the row's line is today's
        if node is None or height <= 0 or tree.last_line < 0 or node.line == line:
            return
        # at once, not after the next refresh: the next batch of rows reads where the view is
        tree.scroll_to(y=node.line - min(max(offset, 0), height - 1), animate=False, immediate=True, force=True)

    def _rebuild(self, keep_cursor: bool = True) -> None:
        if len(self._big) > 2 * len(self.entries) + 64:  # rows reloaded or edited since: their answers go
            self._big.clear()
        tree: Tree[RecipeEntry | None] = self.query_one("#recipe-tree", Tree)
        current = tree.cursor_node.data if keep_cursor and tree.cursor_node is not None else None
        self._highlight_spec = self._highlight_spec or (current.spec if current is not None else None)
        tree.clear()
        tree.move_cursor(None)  # `clear` kept the old cursor node: ctrl+n on a filter matching nothing chose it
        self._folders.clear()
        self._folder_of.clear()
        self._auto_node, self._auto_asked = None, False
        self._add_rows([e for e in self.entries if e.matches(self.query_text)])
        self._highlight_spec = None  # not among the rows the filter leaves: the cursor stays where it went

    def on_resize(self) -> None:
        """The summary's path line follows the width."""
        self.call_after_refresh(lambda: self._summarise_node(self.query_one("#recipe-tree", Tree).cursor_node))

    @on(RecipeTree.Resized)
    def _tree_resized(self) -> None:
        """A row placed while the tree had no height is shown once it has one (`_show_placed`)."""
        self._show_placed()

    @on(Tree.NodeHighlighted, "#recipe-tree")
    def _highlighted(self, event: Tree.NodeHighlighted[RecipeEntry | None]) -> None:
        self._summarise_node(event.node)

    def _summarise_node(self, node: TreeNode[RecipeEntry | None] | None) -> None:
        """The summary of the highlighted row: a recipe's facts, a folder's contents, or why nothing shows."""
        if node is not None and node.data is None and node.id in self._folder_of:
            self._summarise_folder(self._folder_of[node.id], node)
        else:
            self._summarise(node.data if node is not None else None)

    def _summarise_folder(self, folder: str, node: TreeNode[RecipeEntry | None]) -> None:
        st = self._style
        rows = [child.data for child in node.children if child.data is not None]
        broken = sum(1 for e in rows if e.broken)
        big = sum(1 for e in rows if self._too_big(e))
        mine = sum(1 for e in rows if not e.broken and self._written_for(e))
        fitting = sum(1 for e in rows if not self._written_for(e) and self._fit(e).fits)
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style=st("recipe-step--key"), no_wrap=True)
        grid.add_column()
        grid.add_row("folder", Text(folder + "/"))
        count = f"{len(rows)} recipe{'s' if len(rows) != 1 else ''}" + (
            " matching the filter" if self.query_text else ""
        )
        grid.add_row("holds", Text(count))
        if mine:
            grid.add_row("", Text(f"✓ {mine} written for {self.profile_name}", style=st("recipe-step--match")))
        if fitting:
            grid.add_row("", Text(f"• {fitting} fit {self.profile_name} as written", style=st("recipe-step--match")))
        if broken:
            grid.add_row("", Text(f"✗ {broken} cannot be read (highlight one for why)", style=st("recipe-step--bad")))
        if big:
            more = f"✗ {big} need more nodes than {self.profile_name} has (max_nodes)"
            grid.add_row("", Text(more, style=st("recipe-step--bad")))
        keys = "j/k or ↑/↓ move · space folds the folder · / filters · Enter picks a recipe"
        grid.add_row("keys", Text(keys, style=st("recipe-step--dim")))
        self.query_one("#recipe-summary", Static).update(grid)

    @on(Tree.NodeSelected, "#recipe-tree")
    def _selected(self, event: Tree.NodeSelected[RecipeEntry | None]) -> None:
        if event.node.data is not None:
            self._choose(event.node.data)

    def confirm(self) -> None:
        node = self.query_one("#recipe-tree", Tree).cursor_node
        if node is None or node.data is None:
            empty = self.query_text and not any(e.matches(self.query_text) for e in self.entries)
            why = f"No recipe matches the filter {self.query_text!r}: change it, or Esc clears it." if empty else ""
            self.notify(why or "Highlight a recipe first.", severity="warning")
            return
        self._choose(node.data)

    def _choose(self, entry: RecipeEntry) -> None:
        from srt_tui.core.errors import SrtError

        if entry.broken:
            self.notify(f"{entry.label} cannot be used: {entry.error}", severity="error")
            return
        if entry.members:  # a sweep's row for all its jobs: checked on the profile, then to Preview
            self.post_message(SweepChosen(entry.spec, entry.label))
            return
        try:
            recipe, source = entry.chosen()
        except SrtError as exc:  # a cached entry whose file changed or went away since
            self.notify(f"{entry.shown_path} cannot be read now: {exc}", severity="error")
            return
        self.post_message(RecipeChosen(recipe, source, entry.shown_path))

    def _fit_words(self, entry: RecipeEntry) -> Text | None:
        """The summary's `fit` line: `• fits op11 as written: 2 of its 3 nodes, engine installed here`, or why it does
        not (`— written for mi300x GPUs; …`); None before a profile is chosen, or for a job too big for it (its
        `checks` lines say so)."""
        limit, fit = self._limit, self._fit(entry)
        if limit is None or fit.too_big or entry.size is None:
            return None
        st = self._style
        if fit.pending:
            return Text("… looking for its engine on this machine", style=st("recipe-step--dim"))
        if fit.misfit:
            return Text(f"— {fit.misfit}", style=st("recipe-step--dim"))
        nodes = entry.size.nodes(limit.gpus_per_node)
        said = [f"{nodes} of its {limit.max_nodes} nodes" if limit.max_nodes else counted(nodes, "node")]
        if limit.on_host:
            said.append("engine installed here")
        return Text(f"• fits {limit.name} as written: {', '.join(said)}", style=st("recipe-step--match"))

    def _summarise(self, entry: RecipeEntry | None) -> None:
        box = self.query_one("#recipe-summary", Static)
        if entry is None:
            box.update(nothing_matches("recipe", self.query_text) if self.query_text else "")
            return
        st = self._style
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style=st("recipe-step--key"), no_wrap=True)
        grid.add_column()
        grid.add_row("recipe", Text(entry.title or entry.label))
        # where it lives stays whole at 80 columns: a `$SRT_TUI_CONFIG_DIR/…` head says an edit went to the
        # operator's copy, so the middle folders give way first, then the file name takes lines of its own. The
        # column as narrow as it gets: a tall summary's scrollbar shows only once this one is laid out
        scroll = self.query_one("#recipe-summary-box")
        room = scroll.content_region.width - scroll.styles.scrollbar_size_vertical - KEY_WIDTH - 2
        grid.add_row("file", Text(wrap_path(entry.shown_path, room), overflow="fold"))
        checked = self._checks.get(entry.spec)
        if entry.broken:
            # every reason on lines of its own (the pane scrolls: `(+2 more)` led nowhere), unless it was edited
            # here: then its checks below list them, each where it is written
            problems = () if checked is not None and checked[0] else entry.problems or (entry.error or "",)
            for i, line in enumerate(problems):
                key = ("errors" if len(problems) > 1 else "error") if i == 0 else ""
                shown = f"✗ {line}" if len(problems) > 1 else line
                grid.add_row(Text(key, style=st("recipe-step--bad")), Text(shown, style=st("recipe-step--bad")))
        else:
            for key, value in entry.summary:
                grid.add_row(key, Text(value))
            if entry.profiles:
                fits = self.profile_name in entry.profiles if self.profile_name else False
                text = Text(", ".join(entry.profiles))
                if self.profile_name:
                    text.append(
                        "  ✓ includes " + self.profile_name if fits else f"  (not written for {self.profile_name})",
                        style=st("recipe-step--match" if fits else "recipe-step--dim"),
                    )
                grid.add_row("profiles", text)
            said = self._fit_words(entry)
            if said is not None:
                grid.add_row("fit", said)
            big = self._too_big(entry)
            if big and checked is None:  # a valid recipe the profile's cluster cannot run as written
                grid.add_row(
                    "checks", Text(f"✓ valid recipe; does not fit {self.profile_name}:", style=st("recipe-step--dim"))
                )
                grid.add_row("", Text(f"✗ {big}", style=st("recipe-step--bad")))
                grid.add_row("", Text("Enter: a smaller topology on the next step", style=st("recipe-step--dim")))
        if entry.description:
            grid.add_row("about", Text(about_lines(entry.description, room), overflow="fold"))
        if checked is not None:
            errors, warnings, own = checked
            profile = self.profile_name or "its profile"
            if errors and not own:  # a valid recipe the profile's cluster cannot run: said so before why
                grid.add_row("checks", Text(f"✓ valid recipe; does not fit {profile}:", style=st("recipe-step--dim")))
            for i, line in enumerate(errors or [f"✓ valid for {profile}"]):
                style = st("recipe-step--bad" if errors else "recipe-step--match")
                key = "checks" if i == 0 and (own or not errors) else ""
                grid.add_row(key, Text(("✗ " if errors else "") + line, style=style))
            for line in warnings:
                grid.add_row("", Text("! " + line, style=st("recipe-step--dim")))
        box.update(grid)

    # -- filter (`/`, as on every list: `FilterStep`) ------------------------------------------------------

    def _cursor_row(self) -> tuple[str, str] | None:
        node = self.query_one("#recipe-tree", Tree).cursor_node
        return (node.data.spec, node.data.label) if node is not None and node.data is not None else None

    def _filter_typed(self) -> None:
        self._void_enter()
        self._rebuild(keep_cursor=False)

    def _filter_closed(self, keep: str | None) -> None:
        self._void_enter()
        self._highlight_spec = keep
        self._rebuild(keep_cursor=False)
        self.query_one("#recipe-tree", Tree).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "edit_recipe":
            return not self._read_only
        return super().check_action(action, parameters)

    # -- open file… ---------------------------------------------------------------------------------

    def action_open_file(self) -> None:
        from srt_tui.tui.launch.recipe_catalog import why_not_a_recipe_file
        from srt_tui.tui.prompts import PathPrompt

        def opened(path: str | None) -> None:
            if path:
                self.open_recipe(path)

        # a path with no file keeps the prompt open, why under the field: closed, what the operator typed next
        # went to the recipe step as keys
        self.app.push_screen(
            PathPrompt(
                "Open a recipe file",
                "",
                "file.yaml or file.yaml:variant · Enter opens · Esc cancels",
                check=why_not_a_recipe_file,
            ),
            opened,
        )

    @work(thread=True, exclusive=True, group="recipes-open", name="open-recipe", exit_on_error=False)
    def open_recipe(self, path: str) -> None:
        """Read a recipe from anywhere on disk."""
        from srt_tui.tui.launch.recipe_catalog import open_recipes

        self.post_message(RecipeOpened(open_recipes(path), path))

    @on(RecipeOpened)
    def _opened(self, message: RecipeOpened) -> None:
        """An opened recipe joins the tree (a refused one with its ✗ and why, a sweep one row per member); a path
        with no file only says so."""
        message.stop()
        entries = message.entries
        if not entries:  # the prompt checked it: gone since
            from srt_tui.tui.launch.recipe_catalog import RELATIVE_NOTE

            why = f"{message.path}: no such recipe file ({RELATIVE_NOTE})"
            self.notify(why, title="Open…", severity="error", timeout=10)
            return
        for entry in entries:
            if entry.broken:
                self.notify(f"{entry.shown_path}: {entry.error}", severity="error", timeout=10)
        jobs = sum(1 for e in entries if not e.members)
        if jobs > 1:
            also = ", and a row for all of them" if len(entries) > jobs else ""
            self.notify(
                f"{entries[0].shown_path} holds {jobs} jobs: each is listed under opened/{also}, choose one",
                title="Open…",
            )
        self.show_opened(*entries)

    def show_opened(self, *entries: RecipeEntry) -> None:
        """List ``entries`` (one file's jobs) among the opened recipes (replacing opened ones of the same spec, and
        any refused one: its ✗ row said why once; the library's rows of that file stay in their folder), the filter
        cleared and the cursor on the first."""
        specs = {(e.folder, e.spec) for e in entries}
        self.entries = [
            e for e in self.entries if not ((e.folder, e.spec) in specs or e.broken and e.folder == entries[0].folder)
        ] + list(entries)
        self._highlight_spec = entries[0].spec
        self._hide_filter()
        self._rebuild()
        self.query_one("#recipe-tree", Tree).focus()

    # -- edit in $EDITOR --------------------------------------------------------------------------------

    def action_edit_recipe(self) -> None:
        """Open the highlighted recipe in $EDITOR (a shipped one as a user copy), then read it back."""
        from srt_tui.tui.display import display_path
        from srt_tui.tui.launch.steps.recipe_edit import edit_target, read_bytes, run_editor

        node = self.query_one("#recipe-tree", Tree).cursor_node
        if node is None or node.data is None:
            self.notify("Highlight a recipe first.", severity="warning")
            return
        try:
            target = edit_target(node.data)
        except OSError as exc:
            self.notify(f"Cannot prepare {node.data.shown_path} for editing: {exc}", severity="error")
            return
        if target.copied_from is not None:
            self.notify(
                f"{display_path(target.copied_from)} ships with srt-tui: editing your copy {display_path(target.path)}",
                title="Editing a copy",
            )
        before = read_bytes(target.path)
        problem = run_editor(self.app, target.path)
        if problem:
            self.notify(problem, severity="warning", timeout=10)
        self.check_edited(target, before)

    @work(thread=True, exclusive=True, group="recipes-edit", name="check-edited-recipe", exit_on_error=False)
    def check_edited(self, target: EditTarget, before: bytes | None = None) -> None:
        """Read the edited file back and validate it against the chosen profile (unless it is as it was,
        ``before``), off the UI thread."""
        from srt_tui.tui.launch.steps.recipe_edit import read_back

        self.post_message(RecipeEdited(read_back(target, self._profile, before)))

    @on(RecipeEdited)
    def _edited(self, message: RecipeEdited) -> None:
        from srt_tui.tui.display import display_path
        from srt_tui.tui.launch.steps.recipe_edit import replace_rows

        message.stop()
        result = message.result
        # the file's rows read again where they were: srtctl's `b200-fp8/1k1k.yaml` and `b200-fp4/1k1k.yaml`
        # went to one `opened/` folder, where their alike labels crashed the tree
        self.entries = replace_rows(self.entries, result.path, result.entries)
        if result.changed:
            self._checks[result.spec] = (result.errors, result.warnings, result.fits)
        self._highlight_spec = result.spec
        self._rebuild()
        self.query_one("#recipe-tree", Tree).focus()
        if not result.changed:
            self.notify(f"{display_path(result.path)}: unchanged", title="Edited recipe", timeout=4)
        elif result.errors:
            more = f" (+{len(result.errors) - 1} more in the summary)" if len(result.errors) > 1 else ""
            if result.fits:
                self.notify(result.errors[0] + more, title="Edited recipe is not valid", severity="error", timeout=10)
            else:
                what = "this variant" if ":" in result.spec.rsplit("/", 1)[-1] else "it"
                self.notify(
                    f"The recipe is valid; {what} does not fit the cluster of {self.profile_name or 'the profile'}: "
                    + result.errors[0]
                    + more,
                    title="Edited recipe does not fit the profile",
                    severity="warning",
                    timeout=10,
                )
        else:
            self.notify(f"{display_path(result.path)}: valid", title="Edited recipe")

    def focus_default(self) -> None:
        self.query_one("#recipe-tree", Tree).focus()
