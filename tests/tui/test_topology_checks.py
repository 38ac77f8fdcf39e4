"""The Topology step's checks list every independent error at once, in the words `srt-tui dry-run` uses.

Operator pass at 80x24: with decode TP `8x` (from the file), typing prefill TP 48 showed `Checks · 1 error` (the
decode one); `TP 48 = 48 GPUs, but each prefill worker has 8` appeared only once decode was fixed.
"""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from srt_tui.tui.launch.gpu_grid import GpuGrid
from srt_tui.widgets.problem_list import ProblemList
from tests.tui.scenarios import settle
from tests.tui.test_tui_wizard import _open_file
from tests.tui.tui_helpers import make_app

REPO = Path(__file__).resolve().parents[2]


async def test_a_decode_tp_that_does_not_read_hides_no_prefill_error(tmp_path: Path) -> None:
    text = (REPO / "recipes/mocker/mocker-1p2d.yaml").read_text(encoding="utf-8")
    head, _, decode = text.partition("  decode:")
    (tmp_path / "tp.yaml").write_text(head + "  decode:" + decode.replace("tp-size: 8", 'tp-size: "8x"'))
    app = make_app("local")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _open_file(pilot, "tp.yaml")
        await pilot.press("enter")  # → Topology
        await settle(pilot)
        problems = app.screen.query_one(ProblemList)
        box = app.screen.query_one("#problems-box")
        assert app.screen.query_one("#decode-tp", Input).value == "8x"
        assert box.border_title == "Checks · 1 error", problems.text
        assert "roles.decode.args.tp-size: `8x` is not a whole number" in problems.text

        app.screen.query_one("#prefill-tp", Input).focus()
        await pilot.press("end", "backspace", "4", "8")
        await settle(pilot)
        assert box.border_title == "Checks · 2 errors", problems.text
        assert "roles.decode.args.tp-size: `8x` is not a whole number" in problems.text
        assert "roles.prefill.args.tp-size: TP 48 = 48 GPUs, but each prefill worker has 8" in problems.text
        assert app.screen.query_one(GpuGrid).plan is None

        app.screen.query_one("#decode-tp", Input).focus()
        await pilot.press("end", "backspace", "backspace", "8")
        await settle(pilot)
        assert box.border_title == "Checks · 1 error", problems.text
        assert "`8x`" not in problems.text and "TP 48 = 48 GPUs" in problems.text
