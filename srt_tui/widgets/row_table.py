"""A DataTable of rows with the keys an operator expects: j/k move, Home/g the first row, End/G the last.

Textual's DataTable moves Home/End only sideways in row mode, and knows no vi keys (issue 11, item 6).
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.widgets import DataTable

CellT = TypeVar("CellT")


class RowTable(DataTable[CellT]):
    """DataTable with row-wise Home/End plus j/k/g/G; callers pass `cursor_type="row"` (DataTable defaults to cells)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("home,g", "first_row", "First row", show=False),
        Binding("end,G", "last_row", "Last row", show=False),
    ]

    def action_first_row(self) -> None:
        """The first row (and the left edge)."""
        if self.row_count:
            self.move_cursor(row=0)
        self.scroll_x = 0

    def action_last_row(self) -> None:
        """The last row."""
        if self.row_count:
            self.move_cursor(row=self.row_count - 1)
