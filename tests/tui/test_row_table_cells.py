"""RowTable renders a one-line cell once per content (issue 22: a re-sort re-rendered every visible cell through
Rich): what it paints must be exactly what Textual's own DataTable paints, segment for segment, styles and the
row/column mouse meta included, through sorting, cell updates, the cursor and zebra stripes."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.geometry import Region
from textual.widgets import DataTable

from srt_tui.widgets.row_table import RowTable

ROWS = [
    ("job-3", Text("serving", style="bold green"), "12 s", Text.assemble(("4", "red"), "/", ("8", "dim"))),
    ("job-1", Text("a name far too long for its column", style="italic"), "3 min", "x"),
    ("job-2", Text("queued"), "—", Text("right", justify="right")),
    ("job-4", Text("failed", style="bold red"), "1 h 2 min", ""),
]


class Twins(App[None]):
    """The same rows in a RowTable and in Textual's DataTable, side by side at the same width."""

    CSS = "DataTable { width: 40; height: 8; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            for table in (RowTable[object](id="ours"), DataTable[object](id="theirs")):
                table.cursor_type = "row"
                table.zebra_stripes = True
                yield table

    def on_mount(self) -> None:
        for table in self.query(DataTable):
            table.add_column("job", key="job", width=6)
            table.add_column("stage", key="stage", width=12)
            table.add_column("elapsed", key="elapsed")
            table.add_column("ok", key="ok", width=5)
            for key, *cells in ROWS:
                table.add_row(key, *cells, key=key)


def painted(table: DataTable[object]) -> list[list[tuple[str, Style | None]]]:
    """Every line the table paints, as (text, style) segments: line by line, and as the compositor asks for them
    (one `render_lines` pass, where RowTable works out the table's styles once)."""
    lines = [[(s.text, s.style) for s in table.render_line(y)] for y in range(table.size.height)]
    table._styles_cache.clear()
    passed = [[(s.text, s.style) for s in strip] for strip in table.render_lines(Region(0, 0, *table.size))]
    return lines + passed


async def same_paint(
    pilot: object, ours: DataTable[object], theirs: DataTable[object]
) -> list[list[tuple[str, Style | None]]]:
    """Each table focused in turn (the cursor's colours follow focus) paints the same lines; ours returned."""
    lines: list[list[list[tuple[str, Style | None]]]] = []
    for table in (ours, theirs):
        table.focus()
        await pilot.pause()  # type: ignore[attr-defined]
        lines.append(painted(table))
    assert lines[0] == lines[1]
    return lines[0]


async def test_row_table_paints_what_datatable_paints() -> None:
    app = Twins()
    async with app.run_test(size=(90, 12)) as pilot:
        ours, theirs = app.query_one("#ours", DataTable), app.query_one("#theirs", DataTable)
        await same_paint(pilot, ours, theirs)

        for table in (ours, theirs):  # a re-sort, a changed cell, the cursor elsewhere
            table.sort("job")
            table.update_cell("job-2", "stage", Text("serving", style="bold green"))
            table.move_cursor(row=2)
        lines = await same_paint(pilot, ours, theirs)
        assert any(text.strip() == "job-2" for line in lines for text, _ in line)
        metas = {
            (style.meta.get("row"), style.meta.get("column"))
            for line in lines
            for _, style in line
            if style is not None
        }
        assert (2, 1) in metas  # the mouse meta follows the row's new place, not where the content was cached

        for table in (ours, theirs):
            table.sort("job", reverse=True)
        await same_paint(pilot, ours, theirs)


async def test_row_table_updates_leave_no_rings_of_cached_renders() -> None:
    """A cleared DataTable's `LRUCache.clear` leaves each cache's ring of entries (holding every cached strip and
    segment) for the cycle collector; RowTable unlinks them, so reference counting frees them at once (issue 22: full
    collections held the Monitor's loop). Textual's strips that cache themselves are cycles of their own, left."""
    import gc

    def ring_entry(o: object) -> bool:  # an LRUCache entry: [previous entry, next entry, key, value]
        return type(o) is list and len(o) == 4 and type(o[0]) is list and type(o[1]) is list

    async def rings_left(table_id: str) -> int:
        app = Twins()
        async with app.run_test(size=(90, 12)) as pilot:
            table = app.query_one(table_id, DataTable)
            table.focus()
            gc.collect()
            gc.set_debug(gc.DEBUG_SAVEALL)
            try:
                for n in range(6):  # the jobs table rebuilt, as when a column's width follows its values
                    table.clear()
                    for key, *cells in ROWS:
                        table.add_row(key, *cells[:-1], f"{n} s", key=key)
                    await pilot.pause()
                gc.collect()
                return sum(ring_entry(o) for o in gc.garbage)
            finally:
                gc.set_debug(0)
                gc.garbage.clear()

    assert await rings_left("#theirs") > 20  # what Textual's own DataTable leaves (the test's premise)
    assert await rings_left("#ours") == 0
