"""The Topology step's checks list every independent error at once, in the words `srt-tui dry-run` uses.

Operator pass at 80x24: with decode TP `8x` (from the file), typing prefill TP 48 showed `Checks · 1 error` (the
decode one); `TP 48 = 48 GPUs, but each prefill worker has 8` appeared only once decode was fixed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from srt_tui.tui.launch.gpu_grid import GpuGrid
from srt_tui.widgets.problem_list import ProblemList
from tests.tui.scenarios import NVIDIA, reach, settle
from tests.tui.test_tui_wizard import _open_file
from tests.tui.tui_helpers import burst, make_app

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


@pytest.mark.parametrize("typing", ["key-by-key", "burst"])
async def test_a_tp_that_is_not_a_number_can_be_backspaced_and_retyped(tmp_path: Path, typing: str) -> None:
    """Operator: a recipe's `tp-size: eight` in the prefill TP field, End, Backspace ×5, `8` left `eight` (the
    digits-only rule matched the whole value, so no deletion from a non-number passed). Typing is still digits only."""
    text = (REPO / "recipes/mocker/mocker-1p1d.yaml").read_text(encoding="utf-8")
    (tmp_path / "badtp.yaml").write_text(text.replace("args: {tp-size: 8,", "args: {tp-size: eight,", 1))
    app = make_app("local")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await _open_file(pilot, "badtp.yaml")
        await pilot.press("enter")  # → Topology
        await settle(pilot)
        field = app.screen.query_one("#prefill-tp", Input)
        assert field.value == "eight"
        field.focus()
        keys = ("end", *["backspace"] * 5, "x", "8")
        if typing == "burst":
            burst(app, *keys)
        else:
            await pilot.press(*keys)
        await settle(pilot)
        assert field.value == "8"
        box = app.screen.query_one("#problems-box")
        assert "eight" not in app.screen.query_one(ProblemList).text, box.border_title


async def test_the_agg_preset_of_a_pd_recipe_takes_one_agg_row_and_back() -> None:
    """Operator pass op12: no aggregated preset for a P/D recipe. Enter on `agg4` (h100-2p1d-sglang) makes the roles
    one agg row, planned on the recipe's 2 nodes; a P/D preset then brings the prefill and decode rows back."""
    from textual.widgets import OptionList

    from srt_tui.tui.launch.steps.topology_step import TopologyStep

    app = make_app(NVIDIA.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, NVIDIA, "topology", typed=False)
        step = app.screen.query_one(TopologyStep)
        presets = app.screen.query_one("#presets", OptionList)
        presets.focus()
        await pilot.press("end", "enter")
        await settle(pilot)
        assert str(presets.get_option_at_index(presets.highlighted or 0).prompt).startswith("agg4   2 nodes")
        assert step.prepared is not None and step._roles == ["agg"]
        assert (step.prepared.plan.topology, step.prepared.plan.nodes) == ("agg4", 2)
        assert app.screen.query_one("#agg-workers", Input).value == "4"
        await pilot.press("home", "enter")  # the recipe's own 2P1D
        await settle(pilot)
        assert step._roles == ["prefill", "decode"] and step.prepared is not None
        assert step.prepared.plan.topology == "2P1D"
