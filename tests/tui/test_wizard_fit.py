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
from srt_tui.tui.display import shorten_path
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
    ("room", "expected"),
    [
        (80, "local · mocker-2p1d-vllm-router · 2P1D"),
        (30, "mocker-2p1d-vllm-router · 2P1D"),  # the profile, which the header names, gives way first
        (25, "mocker-2p1d-vllm-router"),  # then the last facts, whole
        (7, "local"),  # when none of those fits, the profile alone
        (3, ""),
    ],
)
def test_step_facts_drop_whole(room: int, expected: str) -> None:
    assert fit_note("local · mocker-2p1d-vllm-router · 2P1D", room) == expected


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
    await pilot.press("enter")  # closes the filter, the match highlighted
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
        await pilot.press("slash", *"mocker-2p1d-vllm-router", "enter", "enter")  # → Topology
        await settle(pilot)
        bar = app.screen.query_one(StepBar)
        assert bar.note == "local · mocker-2p1d-vllm-router · 2P1D"
        shown = bar.render().plain
        assert len(shown) <= 78 and shown.rstrip().endswith(("local", "mocker-2p1d-vllm-router", "2P1D")), shown
