"""Step 2: pick a recipe. Folders of shipped and user recipes, a `/` filter, a summary, and "open file…"."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static, Tree
from textual.widgets.tree import TreeNode

from srt_tui.tui.launch.messages import RecipeChosen, RecipeOpened, RecipesLoaded
from srt_tui.tui.launch.steps.base import WizardState, WizardStep

if TYPE_CHECKING:
    from srt_tui.core.spec.profile import LoadedProfile
    from srt_tui.tui.launch.recipe_catalog import RecipeEntry
    from srt_tui.tui.launch.steps.recipe_edit import EditResult, EditTarget


class RecipeEdited(Message):
    """The file edited in $EDITOR was read back and validated (in a worker)."""

    def __init__(self, result: EditResult) -> None:
        super().__init__()
        self.result = result


class RecipeStep(WizardStep):
    """A folder tree of recipes next to the summary of the highlighted one."""

    step_id: ClassVar[str] = "recipe"
    title: ClassVar[str] = "Recipe"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "filter", "Filter"),
        Binding("o", "open_file", "Open…", tooltip="Open a recipe file by path"),
        Binding("e", "edit_recipe", "Edit", tooltip="Edit the recipe in $VISUAL or $EDITOR"),
        Binding("escape", "close_filter", "Close filter", show=False),
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
        #: what validation said about a recipe after it was edited here, by spec: (errors, warnings)
        self._checks: dict[str, tuple[list[str], list[str]]] = {}

    def compose(self) -> ComposeResult:
        yield Static(
            "Choose a recipe (✓ = written for this profile).",
            classes="step-hint",
        )
        with Horizontal(id="recipe-body"):
            with Vertical(id="recipe-left"):
                yield Input(placeholder="filter: name, folder, engine, topology…", id="recipe-filter")
                tree: Tree[RecipeEntry | None] = Tree("recipes", id="recipe-tree")
                tree.show_root = False
                tree.guide_depth = 2
                tree.loading = True
                yield tree
            with VerticalScroll(id="recipe-summary-box"):
                yield Static("", id="recipe-summary")

    def on_mount(self) -> None:
        self.query_one("#recipe-filter", Input).display = False
        self.load_recipes()

    async def enter(self, state: WizardState) -> None:
        self._profile, self._read_only = state.profile, state.hub.context.read_only
        name = state.profile.name if state.profile else None
        if name != self.profile_name:
            self.profile_name = name
            if self.entries:
                self._rebuild(keep_cursor=False)

    @work(thread=True, exclusive=True, group="recipes", name="scan-recipes", exit_on_error=False)
    def load_recipes(self) -> None:
        """Read every recipe file (shipped and user) off the UI thread."""
        from srt_tui.tui.launch.recipe_catalog import scan_recipes

        self.post_message(RecipesLoaded(scan_recipes()))

    @on(RecipesLoaded)
    def _loaded(self, message: RecipesLoaded) -> None:
        message.stop()
        opened = [e for e in self.entries if e.folder == "opened"]
        self.entries = message.entries + opened
        tree = self.query_one(Tree)
        tree.loading = False
        self._rebuild(keep_cursor=False)
        if self.display and not self.query_one("#recipe-filter", Input).has_focus:
            tree.focus()

    # -- tree ---------------------------------------------------------------------------------------

    def _label(self, entry: RecipeEntry) -> Text:
        st = self._style
        if entry.recipe is None:
            return Text.assemble(("✗ ", st("recipe-step--bad")), (entry.label, st("recipe-step--bad")))
        from srt_tui.tui.launch.core_names import topology_name

        mark = "✓ " if self.profile_name and self.profile_name in entry.profiles else "  "
        return Text.assemble(
            (mark, st("recipe-step--match")),
            entry.label,
            (f"  {topology_name(entry.recipe)} · {entry.recipe.engine.type}", st("recipe-step--dim")),
        )

    def _rebuild(self, keep_cursor: bool = True) -> None:
        tree: Tree[RecipeEntry | None] = self.query_one("#recipe-tree", Tree)
        current = tree.cursor_node.data if keep_cursor and tree.cursor_node is not None else None
        want = self._highlight_spec or (current.spec if current is not None else None)
        self._highlight_spec = None
        tree.clear()
        folders: dict[str, TreeNode[RecipeEntry | None]] = {}
        target: TreeNode[RecipeEntry | None] | None = None
        first_match: TreeNode[RecipeEntry | None] | None = None
        first_leaf: TreeNode[RecipeEntry | None] | None = None
        for entry in self.entries:
            if not entry.matches(self.query_text):
                continue
            folder = folders.get(entry.folder)
            if folder is None:
                folder = tree.root.add(Text(entry.folder + "/", style="bold"), data=None, expand=True)
                folders[entry.folder] = folder
            leaf = folder.add_leaf(self._label(entry), data=entry)
            first_leaf = first_leaf or leaf
            if want is not None and entry.spec == want:
                target = leaf
            if first_match is None and self.profile_name and self.profile_name in entry.profiles:
                first_match = leaf
        node = target or first_match or first_leaf
        self._summarise(node.data if node is not None else None)
        # reading `last_line` builds the tree's lines now: the cursor is on the node before the next key,
        # not after the next refresh (an Enter typed quickly would otherwise choose the first row)
        if node is not None and tree.last_line >= 0:
            tree.move_cursor(node, False)

    @on(Tree.NodeHighlighted, "#recipe-tree")
    def _highlighted(self, event: Tree.NodeHighlighted[RecipeEntry | None]) -> None:
        self._summarise(event.node.data)

    @on(Tree.NodeSelected, "#recipe-tree")
    def _selected(self, event: Tree.NodeSelected[RecipeEntry | None]) -> None:
        if event.node.data is not None:
            self._choose(event.node.data)

    def confirm(self) -> None:
        node = self.query_one("#recipe-tree", Tree).cursor_node
        if node is None or node.data is None:
            self.notify("Highlight a recipe first.", severity="warning")
            return
        self._choose(node.data)

    def _choose(self, entry: RecipeEntry) -> None:
        if entry.recipe is None:
            self.notify(f"{entry.label} cannot be used: {entry.error}", severity="error")
            return
        self.post_message(RecipeChosen(entry.recipe, entry.source, entry.shown_path))

    def _summarise(self, entry: RecipeEntry | None) -> None:
        box = self.query_one("#recipe-summary", Static)
        if entry is None:
            box.update("No recipe matches." if self.query_text else "")
            return
        st = self._style
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style=st("recipe-step--key"), no_wrap=True)
        grid.add_column()
        grid.add_row("recipe", Text(entry.label))
        grid.add_row("file", Text(entry.shown_path))
        if entry.recipe is None:
            grid.add_row(
                Text("error", style=st("recipe-step--bad")), Text(entry.error or "", style=st("recipe-step--bad"))
            )
        else:
            from srt_tui.tui.launch.recipe_summary import summary_rows

            for key, value in summary_rows(entry.recipe):
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
        if entry.description:
            grid.add_row("about", Text(entry.description))
        if entry.spec in self._checks:
            errors, warnings = self._checks[entry.spec]
            for i, line in enumerate(errors or [f"✓ valid for {self.profile_name or 'its profile'}"]):
                style = st("recipe-step--bad" if errors else "recipe-step--match")
                grid.add_row("checks" if i == 0 else "", Text(("✗ " if errors else "") + line, style=style))
            for line in warnings:
                grid.add_row("", Text("! " + line, style=st("recipe-step--dim")))
        box.update(grid)

    # -- filter -------------------------------------------------------------------------------------

    def action_filter(self) -> None:
        field = self.query_one("#recipe-filter", Input)
        field.display = True
        field.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "close_filter":
            return self.query_one("#recipe-filter", Input).display
        if action == "edit_recipe":
            return not self._read_only
        return True

    def action_close_filter(self) -> None:
        field = self.query_one("#recipe-filter", Input)
        with field.prevent(Input.Changed):
            field.value = ""
        field.display = False
        self.query_text = ""
        self._rebuild()
        self.query_one("#recipe-tree", Tree).focus()

    @on(Input.Changed, "#recipe-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.query_text = event.value
        self._rebuild(keep_cursor=False)

    @on(Input.Submitted, "#recipe-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#recipe-tree", Tree).focus()

    # -- open file… ---------------------------------------------------------------------------------

    def action_open_file(self) -> None:
        from srt_tui.tui.prompts import PathPrompt

        def opened(path: str | None) -> None:
            if path:
                self.open_recipe(path)

        self.app.push_screen(
            PathPrompt("Open a recipe file", "", "file.yaml or file.yaml:variant · Enter opens · Esc cancels"),
            opened,
        )

    @work(thread=True, exclusive=True, group="recipes-open", name="open-recipe", exit_on_error=False)
    def open_recipe(self, path: str) -> None:
        """Read a recipe from anywhere on disk."""
        from srt_tui.tui.launch.recipe_catalog import open_recipe

        self.post_message(RecipeOpened(open_recipe(path)))

    @on(RecipeOpened)
    def _opened(self, message: RecipeOpened) -> None:
        message.stop()
        entry = message.entry
        if entry.recipe is None:
            self.notify(f"{entry.shown_path}: {entry.error}", severity="error", timeout=10)
        self.entries = [e for e in self.entries if e.spec != entry.spec] + [entry]
        self._highlight_spec = entry.spec
        self.query_text = ""
        field = self.query_one("#recipe-filter", Input)
        with field.prevent(Input.Changed):
            field.value = ""
        field.display = False
        self._rebuild()
        self.query_one("#recipe-tree", Tree).focus()

    # -- edit in $EDITOR --------------------------------------------------------------------------------

    def action_edit_recipe(self) -> None:
        """Open the highlighted recipe in $EDITOR (a shipped one as a user copy), then read it back."""
        from srt_tui.tui.display import display_path
        from srt_tui.tui.launch.steps.recipe_edit import edit_target, run_editor

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
        problem = run_editor(self.app, target.path)
        if problem:
            self.notify(problem, severity="warning", timeout=10)
        self.check_edited(target)

    @work(thread=True, exclusive=True, group="recipes-edit", name="check-edited-recipe", exit_on_error=False)
    def check_edited(self, target: EditTarget) -> None:
        """Read the edited file back and validate it against the chosen profile, off the UI thread."""
        from srt_tui.tui.launch.steps.recipe_edit import read_back

        self.post_message(RecipeEdited(read_back(target, self._profile)))

    @on(RecipeEdited)
    def _edited(self, message: RecipeEdited) -> None:
        from srt_tui.tui.display import display_path
        from srt_tui.tui.launch.steps.recipe_edit import same_file

        message.stop()
        result = message.result
        self.entries = [e for e in self.entries if not same_file(e, result.path)] + result.entries
        self._checks[result.spec] = (result.errors, result.warnings)
        self._highlight_spec = result.spec
        self._rebuild()
        self.query_one("#recipe-tree", Tree).focus()
        if result.errors:
            more = f" (+{len(result.errors) - 1} more in the summary)" if len(result.errors) > 1 else ""
            self.notify(result.errors[0] + more, title="Edited recipe is not valid", severity="error", timeout=10)
        else:
            self.notify(f"{display_path(result.path)}: valid", title="Edited recipe")

    def focus_default(self) -> None:
        self.query_one("#recipe-tree", Tree).focus()
