"""The Launch wizard lists the demo `local` first (issue 21, pass 7): a file name's sort put `local-rocr.yaml`
above `local.yaml`, although `local` is what the README's first command uses. Then the operator's own profiles,
then the shipped ones, each by name, as the step's hint says."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from textual.widgets import DataTable, Static

from tests.conftest import REPO
from tests.core.core_helpers import cli
from tests.tui.scenarios import settle
from tests.tui.tui_helpers import make_app

SHIPPED = sorted(p.stem for p in (REPO / "profiles").glob("*.yaml") if p.stem != "local")


async def test_the_demo_profile_comes_first_then_yours_then_the_shipped_ones() -> None:
    mine = Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "profiles" / "a-mine.yaml"
    mine.write_text((REPO / "profiles" / "local.yaml").read_text(), encoding="utf-8")
    app = make_app(None)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        table: DataTable[Any] = app.screen.query_one("#profile-table", DataTable)
        names = [str(table.get_row_at(i)[1]) for i in range(table.row_count)]
        assert names == ["local", "a-mine", "broken", *SHIPPED]  # (`broken`: the tests' own broken user file)
        assert table.cursor_row == 0
        hint = str(app.screen.query_one("#step-profile .step-hint", Static).render())
        assert "the demo `local` first, then yours, then the shipped ones, each A–Z" in hint


def test_profiles_lists_them_in_the_same_order(tmp_path: Path) -> None:
    proc = cli("profiles", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    names = [line.split()[0] for line in proc.stdout.splitlines()[1:]]
    assert names == ["local", *SHIPPED]
