"""The Profile step's table at any width (issue 21, new-operator pass): at 62 columns its RUN column was cut to
`pyx`, EXPORTER off the edge, and at 80 and 120 the gb200's interface `enP6p3s0f0np0` showed as `enP6p3s0f0`, a
name that looks whole. Columns give way whole by priority (the detail pane spells every fact out), a header is
never cut, and a value is whole or cut after a whole word with `…`."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import DataTable

from tests.tui.scenarios import settle
from tests.tui.tui_helpers import make_app

#: what each terminal width shows: the narrow set below 110 columns, the wide one from there
SHOWN = {
    62: ["", "NAME", "GPUS", "MASK", "REQUEST", "RUN"],
    80: ["", "NAME", "GPUS", "MASK", "REQUEST", "INTERFACE", "RUN", "EXPORTER"],
    110: ["", "NAME", "SOURCE", "GPUS", "MASK VARIABLE", "GPU REQUEST", "INTERFACE", "RUNTIME"],
    120: ["", "NAME", "SOURCE", "GPUS", "MASK VARIABLE", "GPU REQUEST", "INTERFACE", "RUNTIME", "EXPORTER"],
}


@pytest.mark.parametrize("width", list(SHOWN))
async def test_columns_give_way_whole_and_values_are_never_clipped(width: int) -> None:
    app = make_app(None)
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(pilot)
        table: DataTable[Any] = app.screen.query_one("#profile-table", DataTable)
        columns = list(table.columns.values())
        assert [c.label.plain for c in columns] == SHOWN[width]
        assert all(c.width >= len(c.label.plain) for c in columns)  # no header cut
        assert table.virtual_size.width <= table.scrollable_content_region.width  # nothing off the edge
        rows = {
            str(table.get_row_at(i)[1]): [str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)
        }
        for name, cells in rows.items():
            for column, cell in zip(columns, cells, strict=True):
                assert len(cell) <= column.width, (name, column.label, cell)
        if "RUN" in SHOWN[width]:
            run = SHOWN[width].index("RUN")
            assert {rows[name][run] for name in ("local", "nvidia-h100")} == {"none", "pyxis"}
        if "INTERFACE" in SHOWN[width]:  # whole when the table has the room, else cut with `…`, never clipped
            interface = rows["nvidia-gb200"][SHOWN[width].index("INTERFACE")]
            assert interface == ("enP6p3s0f0np0" if width >= 120 else "enP6p3s0f…"), interface
