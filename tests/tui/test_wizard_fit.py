"""The wizard at 80 columns (the last new-operator pass): the recipe's file line keeps where it lives
(`$SRT_TUI_CONFIG_DIR/…`) and its file name, the step bar drops whole facts, never cuts one, and every screen that
shows the recipe says when its job ends, from the benchmark type's declaration."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar

import pytest
from textual.pilot import Pilot

from srt_tui.core import registry
from srt_tui.core.benchmark.types import BENCHMARKS, job_end, register_benchmark
from srt_tui.core.benchmark.types.base import BenchmarkType
from srt_tui.tui.display import shorten_path, wrap_path
from srt_tui.tui.launch.steps.recipe_step import KEY_WIDTH
from srt_tui.widgets.step_bar import StepBar, fit_note
from tests.conftest import REPO
from tests.tui.scenarios import settle
from tests.tui.tui_helpers import make_app

USER_COPY = "$SRT_TUI_CONFIG_DIR/recipes/nvidia/h100-2p1d-sglang-long-experiment.yaml"


@pytest.mark.parametrize(
    ("shown", "width", "expected"),
    [
        (USER_COPY, 80, USER_COPY),  # fits: unchanged
        (USER_COPY, 50, "$SRT_TUI_CONFIG_DIR/…/h100-2p1d-sglang-long-experiment.yaml"),
        ("./recipes/gb300-fp8/1k1k/deep/glm5.yaml", 30, "./recipes/…/deep/glm5.yaml"),
        ("recipes/nvidia/h100-2p1d-sglang.yaml", 20, "recipes/…/h100-2p1d-sglang.yaml"),  # longer than asked: whole
        ("recipes/x.yaml", 5, "recipes/x.yaml"),  # nothing in the middle to drop
    ],
)
def test_a_path_gives_way_in_its_middle_never_its_head_or_file_name(shown: str, width: int, expected: str) -> None:
    assert shorten_path(shown, width) == expected


@pytest.mark.parametrize(
    ("shown", "width", "expected"),
    [
        ("recipes/amd/mi355x-1p1d-sglang-mori.yaml", 60, "recipes/amd/mi355x-1p1d-sglang-mori.yaml"),  # fits
        ("recipes/mocker/mocker-1p1d.yaml", 26, "recipes/…/mocker-1p1d.yaml"),  # the folders give way first
        ("recipes/amd/mi355x-1p1d-sglang-mori.yaml", 26, "recipes/…/\nmi355x-1p1d-sglang-\nmori.yaml"),
        ("./recipes/gb300/1k1k/ctx1_gen1_dep32_eplb0_mtp.yaml", 16, "./recipes/…/\nctx1_gen1_dep32_\neplb0_mtp.yaml"),
        ("recipes/x/averyveryverylongname.yaml", 12, "recipes/…/\naveryveryverylongname.yaml"),  # one word: whole
    ],
)
def test_a_file_name_too_long_for_its_line_breaks_between_words(shown: str, width: int, expected: str) -> None:
    """Operator pass: at 80 columns the summary's file line read `…-mori.ya` / `ml`."""
    assert wrap_path(shown, width) == expected


@pytest.mark.parametrize(
    ("room", "expected"),
    [
        (80, "local · mocker-2p1d-vllm-router · 2P1D"),
        (30, "mocker-2p1d-vllm-router · 2P1D"),  # the profile, which the header names, gives way first
        (25, "mocker-2p1d-vllm-router"),  # then the last facts, whole
        (20, "mocker…d-vllm-router"),  # then the recipe loses its middle, never its end
        (7, "local"),  # too little room to cut it: the profile alone
        (3, ""),
    ],
)
def test_step_facts_drop_whole(room: int, expected: str) -> None:
    assert fit_note("local · mocker-2p1d-vllm-router · 2P1D", room) == expected


@pytest.mark.parametrize(("note", "room"), [("", -3), ("", 0), ("", 5), ("local · mocker-1p1d", -3), ("local", 0)])
def test_no_room_or_no_note_is_nothing(note: str, room: int) -> None:
    """New-operator pass: at 62 columns the crumbs alone overflowed (room -3) with no note yet, and `srt-tui`
    ended in an IndexError."""
    assert fit_note(note, room) == ""


class _Serves(BenchmarkType):
    """A type registered by someone else that runs no step: it keeps its job serving, whatever its name."""

    name: ClassVar[str] = "zz-hold"
    reads: ClassVar[frozenset[str]] = frozenset({"type"})
    runs: ClassVar[bool] = False


def test_when_a_job_ends_is_the_benchmark_types_declaration() -> None:
    assert job_end("sa-bench") == "sa-bench ends the job when done · `manual` serves until cancelled"
    assert job_end("gsm8k") == "gsm8k ends the job when done · `manual` serves until cancelled"
    assert job_end("manual") == "manual runs nothing: the job serves until cancelled"
    assert job_end("no-such-type") is None
    register_benchmark(_Serves())
    try:
        assert job_end("zz-hold") == "zz-hold runs nothing: the job serves until cancelled"
    finally:
        registry.unregister("benchmark", "zz-hold")
    assert "zz-hold" not in BENCHMARKS


async def _recipe_step_at_80(pilot: Pilot[Any], query: str) -> None:
    await settle(pilot)
    await pilot.press("slash", *query)
    await settle(pilot)
    await pilot.press("tab")  # the keys to the tree, the match highlighted
    await settle(pilot)


def _user_copy() -> None:
    target = Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "recipes" / "nvidia" / "h100-2p1d-sglang-long-experiment.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    text = (REPO / "recipes" / "nvidia" / "h100-2p1d-sglang.yaml").read_text(encoding="utf-8")
    target.write_text(text.replace("name: h100-2p1d-sglang", "name: h100-long-experiment"), encoding="utf-8")


def test_an_operators_copy_keeps_its_config_dir_head_at_80_columns(snap_compare: Any) -> None:
    _user_copy()

    async def run_before(pilot: Pilot[Any]) -> None:
        await _recipe_step_at_80(pilot, "long-experiment")

    assert snap_compare(make_app("nvidia-h100"), run_before=run_before, terminal_size=(80, 24))


async def test_the_summary_shows_the_copys_head_and_file_name_and_when_the_job_ends() -> None:
    _user_copy()
    app = make_app("nvidia-h100")
    async with app.run_test(size=(80, 24)) as pilot:
        await _recipe_step_at_80(pilot, "long-experiment")
        from rich.console import Console

        summary = app.screen.query_one("#recipe-summary")
        console = Console(width=summary.content_region.width, record=True, color_system=None)
        console.print(summary.content)  # type: ignore[attr-defined]
        text = console.export_text()
        flat = "".join(line.split("  ", 1)[-1].strip() for line in text.splitlines())
        assert "$SRT_TUI_CONFIG_DIR/…/h100-2p1d-sglang-long-experiment.yaml" in flat, text
        assert "sa-bench ends the job when done" in " ".join(text.split()), text


async def test_the_step_bar_at_80_columns_shows_whole_facts() -> None:
    app = make_app("local")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"mocker-2p1d-vllm-router", "enter")  # named exactly: Enter chooses → Topology
        await settle(pilot)
        bar = app.screen.query_one(StepBar)
        assert bar.note == "local · mocker-2p1d-vllm-router · 2P1D"
        shown = bar.render().plain
        assert len(shown) <= 78 and shown.rstrip().endswith(("local", "mocker-2p1d-vllm-router", "2P1D")), shown
        # operator pass: from here on the bar read `… 5 Submit   local`, the recipe gone; the steps done give
        # their names way first (`✓ 1 › ✓ 2 ›  3 Topology`), and at Submit the note is whole
        assert "mocker-2p1d-vllm-router" in shown and shown.startswith("✓ 1 › ✓ 2 ›  3 Topology  ›"), shown
        await pilot.press("ctrl+n", "ctrl+n")
        await settle(pilot)
        shown = bar.render().plain
        assert shown.startswith("✓ 1 › ✓ 2 › ✓ 3 › ✓ 4 ›  5 Submit "), shown
        assert len(shown) <= 78 and shown.endswith("local · mocker-2p1d-vllm-router · 2P1D"), shown


async def test_the_save_dry_run_prompt_reads_whole_at_80_columns() -> None:
    """Operator pass: at 80 columns the Preview's `s` prompt read `Save the dry-run directory (sbatch.sh,
    plan.json, recipe.y`, and its path lost its last digit. The title wraps; the path's end is in view."""
    from textual.geometry import Region
    from textual.widgets import Input, Label

    app = make_app("local")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"mocker-2p1d-vllm-router", "enter")
        await settle(pilot)
        await pilot.press("ctrl+n")  # → Preview
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        title = app.screen.query_one("#prompt-title", Label)
        lines = [s.text.rstrip() for s in title.render_lines(Region(0, 0, *title.size))]
        assert " ".join(lines).endswith("recipe.yaml, profile.yaml)") and len(lines) == 2, lines
        field = app.screen.query_one("#prompt-input", Input)
        assert field.value.startswith("dry-runs/mocker-2p1d-vllm-router-2P1D-"), field.value
        assert len(field.value) > field.content_region.width, field.value  # too long for the field: it scrolls
        seen = field.scroll_offset.x + field.content_region.width
        assert seen >= len(field.value), (field.scroll_offset, field.content_region)  # to its last character


async def test_the_summarys_file_line_breaks_between_words_once_its_scrollbar_shows() -> None:
    """Operator pass: at 80 columns the file line broke inside the file name. A folder's short summary has no
    scrollbar; the recipe's after it does, so the column is narrower than when the summary was made."""
    from textual.geometry import Region
    from textual.widgets import Static, Tree

    app = make_app("amd-mi355x")
    async with app.run_test(size=(80, 24)) as pilot:
        await _recipe_step_at_80(pilot, "mi355x-1p1d-sglang")
        tree: Tree[Any] = app.screen.query_one("#recipe-tree", Tree)
        await pilot.press("k", "j")  # from its folder's summary, which has no scrollbar
        await settle(pilot)
        node = tree.cursor_node
        assert node is not None and node.data is not None and node.data.label == "mi355x-1p1d-sglang-mori"
        summary = app.screen.query_one("#recipe-summary", Static)
        drawn = [s.text.rstrip() for s in summary.render_lines(Region(0, 0, *summary.size))]
        start = next(i for i, line in enumerate(drawn) if line.startswith("file"))
        end = next(i for i, line in enumerate(drawn) if line.startswith("engine"))
        lines = [line[KEY_WIDTH + 2 :] for line in drawn[start:end]]
        assert "".join(lines) == "recipes/…/mi355x-1p1d-sglang-mori.yaml", drawn
        assert all(line.endswith(("/", "-", "_")) for line in lines[:-1]), lines
