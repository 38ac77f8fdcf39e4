"""`?`: every key that works right now, read from the active bindings (nothing hard-coded)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from srt_tui.tui.dismiss_once import DismissOnce


@dataclass(frozen=True)
class KeyHelp:
    """One row of the help: where the key works, the key as displayed, what it does."""

    scope: str
    key: str
    description: str


#: where a key works, in the order Help lists them: what this screen does first (as lazygit lists the
#: current panel's keys first), the focused widget's next, the app's own keys last
SCOPE_ORDER = {"this screen": 0, "everywhere": 2, "outside text fields": 3}


def widget_scope(node: object) -> str:
    """A widget's name for an operator: its `HELP_SCOPE`, else its class name in words (`WorkerTable` → `worker
    table`), never a Python identifier."""
    named = getattr(node, "HELP_SCOPE", None)
    if isinstance(named, str) and named:
        return named
    return " ".join(re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", type(node).__name__)).lower()


#: Textual's own movement actions (scrolling views, tables): one row per widget instead of ten rows of
#: `Scroll Up`, `Page Left`, `Cursor right` … that every such widget repeats
MOVES = frozenset(
    f"{verb}_{way}" for verb in ("scroll", "cursor", "page") for way in ("up", "down", "left", "right")
) | {"scroll_home", "scroll_end", "scroll_top", "scroll_bottom"}
MOVE_KEYS, MOVE_DESCRIPTION = "↑↓←→", "Move or scroll (PgUp/PgDn and Home/End too)"
#: the letters a table or tree also moves with (vim's), named in the move row when the view has them
VIM_MOVES = ("j", "k", "g", "G")


def collect_keys(screen_bindings: dict[str, object], key_display: dict[str, str]) -> list[KeyHelp]:
    """Rows from `Screen.active_bindings` (key → ActiveBinding); duplicates of a description dropped."""
    from textual.app import App
    from textual.screen import Screen as TScreen

    merged: dict[tuple[str, str], list[str]] = {}
    for key, active in screen_bindings.items():
        if key.startswith("super+"):  # a Mac's command key: a terminal over SSH never sends it
            continue
        node = getattr(active, "node", None)
        binding = getattr(active, "binding", None)
        if binding is None or not getattr(active, "enabled", True):
            continue
        # the longer words (tooltip) where a footer label is kept short for 80 columns
        description = binding.tooltip or binding.description or binding.action
        if binding.action in MOVES and not binding.tooltip:
            description = MOVE_DESCRIPTION
        if isinstance(node, App):
            # a letter or digit typed in a text field is text there: the app's keys work outside them
            scope = "outside text fields" if len(key) == 1 and key.isprintable() else "everywhere"
        elif isinstance(node, TScreen):
            scope = "this screen"
        elif node is not None and getattr(node, "title", None) and hasattr(node, "step_id"):
            scope = f"{node.title} step"
        else:
            scope = widget_scope(node) if node is not None else ""
        merged.setdefault((scope, description), []).append(key_display.get(key, key))
    rows = [
        KeyHelp(scope, " ".join(keys), description)
        if description != MOVE_DESCRIPTION
        else KeyHelp(scope, MOVE_KEYS, _moves(keys))
        for (scope, description), keys in merged.items()
    ]
    return sorted(rows, key=lambda r: (SCOPE_ORDER.get(r.scope, 1), r.scope))


def with_fields(rows: list[KeyHelp], fields: list[KeyHelp]) -> list[KeyHelp]:
    """The key rows with a screen's field rows (a step's role fields) placed as their scope's keys are: after this
    screen's keys, the step's own keys first."""
    return sorted([*rows, *fields], key=lambda r: (SCOPE_ORDER.get(r.scope, 1), r.scope))


@dataclass(frozen=True)
class ColumnLegend:
    """What a table's column headers mean, for Help: the table's name and (header, meaning) per column, read from
    the column definitions it is drawn with (`fit_columns.legend`)."""

    table: str
    columns: tuple[tuple[str, str], ...]


def _moves(keys: list[str]) -> str:
    """The move row's words, with the vim letters the view also moves with (j/k were listed nowhere)."""
    letters = [k for k in VIM_MOVES if k in keys]
    if not letters:
        return MOVE_DESCRIPTION
    return f"Move or scroll ({'/'.join(letters)}, PgUp/PgDn and Home/End too)"


class HelpScreen(DismissOnce[None], ModalScreen[None]):
    """A modal table of keys grouped by where they work."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", "Close help"),
        # half a page, as the job view, the worker detail and the log viewer page (PgDn/PgUp work too)
        Binding("ctrl+d", "half_page(1)", "Scroll down", show=False),
        Binding("ctrl+u", "half_page(-1)", "Scroll up", show=False),
    ]

    def __init__(self, rows: list[KeyHelp], legend: str = "", columns: Sequence[ColumnLegend] = ()) -> None:
        super().__init__()  # no id: a Help left open under another mode never clashes with the next one
        self.rows = rows
        #: what the screen's marks mean (a screen's `HELP_LEGEND`), under the keys
        self.legend = legend
        #: what its tables' column headers mean (a screen's `HELP_COLUMNS`), under the keys
        self.columns = tuple(columns)

    def compose(self) -> ComposeResult:
        table = Table(box=None, padding=(0, 2), show_header=True, header_style="bold")
        table.add_column("WHERE", no_wrap=True)
        table.add_column("KEY", no_wrap=True)
        table.add_column("ACTION")
        last = ""
        for row in self.rows:
            table.add_row(row.scope if row.scope != last else "", Text(row.key, style="bold"), row.description)
            last = row.scope
        with VerticalScroll(id="help-box"):
            yield Static(table, id="help-table")
            for legend in self.columns:
                yield Static(_column_table(legend), classes="help-columns")
            if self.legend:
                yield Static(self.legend, id="help-legend")
            yield Static("Esc, ? or q closes this help.", id="help-note")

    def on_mount(self) -> None:
        self.query_one("#help-box").border_title = "Keys"

    def action_half_page(self, direction: int) -> None:
        """ctrl+d / ctrl+u: the keys half a page down or up (operator pass: only PgDn moved them)."""
        box = self.query_one("#help-box", VerticalScroll)
        box.scroll_relative(y=direction * max(1, box.scrollable_content_region.height // 2), animate=False)

    def action_close(self) -> None:
        self.dismiss(None)


def _column_table(legend: ColumnLegend) -> Table:
    """One table's column legend: its headers in bold, each meaning wrapped in its own column."""
    table = Table(box=None, padding=(0, 2), show_header=False, title=legend.table, title_justify="left",
                  title_style="bold")  # fmt: skip
    table.add_column(no_wrap=True)
    table.add_column()
    for header, meaning in legend.columns:
        table.add_row(Text(header, style="bold"), meaning)
    return table
