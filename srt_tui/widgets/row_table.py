"""A DataTable of rows with the keys an operator expects: j/k move, Home/g the first row, End/G the last.

Textual's DataTable moves Home/End only sideways in row mode, and knows no vi keys (issue 11, item 6). Its
cells are rendered once per content (see `RowTable._render_cell`).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, ClassVar, TypeVar, cast

from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual._types import SegmentLines
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.css.styles import RenderStyles
from textual.geometry import Region
from textual.renderables.styled import Styled
from textual.strip import Strip
from textual.widgets import DataTable

from srt_tui.widgets.fit_columns import Fitted

CellT = TypeVar("CellT")

#: DataTable's LRU caches, emptied on every update (`_clear_caches`)
_DATATABLE_LRU_CACHES = (
    "_row_render_cache",
    "_cell_render_cache",
    "_row_renderable_cache",
    "_line_cache",
    "_offset_cache",
    "_ordered_row_cache",
)
#: rendered cells kept per table: a screenful at 200 columns and 60 rows, twice over (cursor and not)
CELL_CACHE_SIZE = 4096
#: cell styles with their position kept per table (a screenful of cells in a few styles each); emptied when full
PLACED_STYLES = 16384


def content_key(cell: object) -> Hashable | None:
    """What a one-line cell shows, as a cache key; None for a renderable other than str or Text (not cached)."""
    if isinstance(cell, str):
        return cell
    if isinstance(cell, Text):
        return (cell.plain, tuple(cell.spans), cell.style, cell.justify, cell.overflow, cell.no_wrap, cell.end)
    return None


class RowTable(DataTable[CellT]):
    """DataTable with row-wise Home/End plus j/k/g/G; callers pass `cursor_type="row"` (DataTable defaults to cells)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("home,g", "first_row", "First row", show=False),
        Binding("end,G", "last_row", "Last row", show=False),
    ]

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._content_cache: LRUCache[Hashable, SegmentLines] = LRUCache(CELL_CACHE_SIZE)
        self._fitted: tuple[Fitted, ...] | None = None
        #: (a cell's style, row, column) → that style with the position's meta (see `_placed`)
        self._placed_styles: dict[tuple[Style | None, int, int], Style] = {}
        #: during `render_lines`: the table's and its components' styles, worked out once for the pass
        self._pass_styles: dict[tuple[str, ...], _PassStyles] | None = None
        self._pass_rich_style: Style | None = None

    def watch_loading(self) -> None:
        """Textual leaves a loading widget's keys out of the screen's but says nothing when `loading` changes: said
        here, or the footer kept the keys of before a reload of the focused table (`r` on the profile list)."""
        if self.has_focus:
            self.refresh_bindings()

    def render_lines(self, crop: Region) -> list[Strip]:
        """DataTable's, with the styles it asks for on every line (the table's, the header's, the zebra rows')
        worked out once for the whole pass: each one walks the widget's ancestors, ~a fifth of a repaint after a
        sort at 64 jobs (issue 22). Nothing restyles the table during a pass."""
        self._pass_styles = {}
        try:
            return super().render_lines(crop)
        finally:
            self._pass_styles = None
            self._pass_rich_style = None

    @property
    def rich_style(self) -> Style:
        """The table's Rich style (once per `render_lines` pass)."""
        if self._pass_styles is None:
            return super().rich_style
        if self._pass_rich_style is None:
            self._pass_rich_style = super().rich_style
        return self._pass_rich_style

    def get_component_styles(self, *names: str) -> RenderStyles:
        """The component's styles (once per `render_lines` pass, with their Rich style worked out once)."""
        memo = self._pass_styles
        if memo is None:
            return super().get_component_styles(*names)
        styles = memo.get(names)
        if styles is None:
            styles = memo[names] = _PassStyles(super().get_component_styles(*names))
        return cast(RenderStyles, styles)

    def refit(self, columns: tuple[Fitted, ...]) -> None:
        """Empty the rows; make the header again only when the columns that fit changed (a new header re-lays the
        screen: a refresh that keeps the columns must not)."""
        if columns == self._fitted:
            self.clear()
            return
        self.clear(columns=True)
        for c in columns:
            self.add_column(c.header, key=c.key, width=c.width)
        self._fitted = columns

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> SegmentLines:
        """A one-line cell rendered once per content, width and style, not once per table update.

        DataTable keys its cell cache by its update counter, so one changed cell or a re-sort renders every
        visible cell through Rich again (~400 at 120x36, most of a key's repaint at 64 jobs). Here the Rich
        rendering is keyed by what the cell shows and only the row/column mouse meta is added per position.
        """
        row_key = self._row_locations.get_key(row_index) if row_index >= 0 else None
        column_key = self._column_locations.get_key(column_index) if column_index >= 0 else None
        content = None
        if row_key is not None and column_key is not None and self.rows[row_key].height == 1:
            content = content_key(self._data[row_key].get(column_key))
        if content is None:  # headers, labels, taller rows and other renderables: DataTable's own path
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        fixed = row_index < self.fixed_rows or column_index < self.fixed_columns
        key = (content, width, base_style, fixed, cursor, hover, self._show_hover_cursor, self._pseudo_class_state)
        lines = self._content_cache.get(key)
        if lines is None:
            component_style, post_style = self._get_styles_to_render_cell(
                False,
                False,
                fixed,
                hover,
                cursor,
                self.show_cursor,
                self._show_hover_cursor,
                self.cursor_foreground_priority == "css",
                self.cursor_background_priority == "css",
            )
            cell = self._get_row_renderables(row_index).cells[column_index]
            options = self.app.console_options.update_dimensions(width, 1).update(no_wrap=True)
            styled = Styled(Padding(cell, (0, self.cell_padding)), base_style + component_style, post_style)
            lines = self.app.console.render_lines(styled, options)
            self._content_cache[key] = lines
        return [self._placed(line, row_index, column_index) for line in lines]

    def _placed(self, line: list[Segment], row_index: int, column_index: int) -> list[Segment]:
        """``line`` with the cell's position in its styles' meta (what a click reports), as
        `Segment.apply_style(line, post_style=Style.from_meta(...))` does; each style met at a position is combined
        once (a fresh meta style each time missed Rich's combination cache: after a sort every visible cell paid it)."""
        placed = self._placed_styles
        out = []
        for text, style, control in line:
            if control:
                out.append(Segment(text, None, control))
                continue
            key = (style, row_index, column_index)
            combined = placed.get(key)
            if combined is None:
                meta = Style.from_meta({"row": row_index, "column": column_index})
                combined = style + meta if style else meta
                if not combined.link:  # a link's style is copied afresh each time (its own link id)
                    if len(placed) >= PLACED_STYLES:
                        placed.clear()
                    placed[key] = combined
            out.append(Segment(text, combined, control))
        return out

    def _clear_caches(self) -> None:
        """DataTable's, with each LRU cache's ring of entries unlinked first. `LRUCache.clear` drops the ring as
        it is, a cycle holding every strip and segment the table had cached, so each update and sort left tens
        of thousands of objects for the cycle collector, whose full passes then held the loop for up to ~0.1 s
        (issue 22); unlinked, reference counting frees them at once."""
        for name in _DATATABLE_LRU_CACHES:
            cache = getattr(self, name, None)
            if isinstance(cache, LRUCache):
                for entry in getattr(cache, "_cache", {}).values():
                    if isinstance(entry, list):
                        entry.clear()
        super()._clear_caches()

    def action_first_row(self) -> None:
        """The first row (and the left edge)."""
        if self.row_count:
            self.move_cursor(row=0)
        self.scroll_x = 0

    def action_last_row(self) -> None:
        """The last row."""
        if self.row_count:
            self.move_cursor(row=self.row_count - 1)


class _PassStyles:
    """A component's styles for one render pass: `rich_style` worked out once, the rest as the styles say."""

    def __init__(self, styles: RenderStyles) -> None:
        self._styles = styles
        self.rich_style = styles.rich_style

    def __getattr__(self, name: str) -> Any:
        return getattr(self._styles, name)
