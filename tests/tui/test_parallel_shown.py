"""A data-parallel recipe is not summarised as TP only (operator pass: srtctl's `vllm/deepseek-r1/disagg-h100-16gpu`,
`data-parallel-size: 16`, read `1 worker × 16 GPUs (tensor-parallel-size 1)` and `prefill 1 2 16 1` in the Topology
table): the recipe summary and the Topology table say each role's DP and EP beside its TP, at 80×24 too, and the
table's line follows the TP typed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.widgets import Static

from tests.tui.scenarios import Scenario, reach, settle, type_into
from tests.tui.test_recipe_library import _summary
from tests.tui.tui_helpers import make_app

ARGS = "{tensor-parallel-size: 1, data-parallel-size: 16, enable-expert-parallel: true}"
ROLE = f"{{nodes: 2, workers: 1, gpus: 16, args: {ARGS}}}"
DP16 = f"""\
name: dp16-ep
model: {{path: /models/m, container: /c/img.sqsh}}
engine: vllm
frontend: {{type: dynamo, enable_multiple_frontends: false}}
roles:
  prefill: {ROLE}
  decode: {ROLE}
"""


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_dp_and_ep_show_in_the_summary_and_the_topology_table(size: tuple[int, int]) -> None:
    library = Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "recipes"
    library.mkdir(parents=True, exist_ok=True)
    (library / "dp16-ep.yaml").write_text(DP16, encoding="utf-8")
    scenario = Scenario("dp16", "nvidia-h100", "dp16-ep")
    app = make_app(scenario.profile)
    async with app.run_test(size=size) as pilot:
        await reach(pilot, scenario, "recipe", typed=False)
        summary = " ".join(_summary(app).split())
        assert "prefill 1 worker × 16 GPUs (TP 1 × DP 16 · EP 16) on 2 nodes" in summary, summary
        await pilot.press("enter")  # the recipe highlighted: to the Topology step
        await settle(pilot)
        screen = app.screen
        for role in ("prefill", "decode"):
            line = screen.query_one(f"#{role}-parallel", Static)
            assert str(line.content) == "TP 1 × DP 16 · EP 16" and line.display
            x, y = line.region.x, line.region.y
            assert screen.get_widget_at(x, y)[0] is line, f"{role}'s line is hidden at {size}"
        await type_into(pilot, "#prefill-tp", "2")  # EP over every TP × DP rank follows
        await settle(pilot)
        assert str(screen.query_one("#prefill-parallel", Static).content) == "TP 2 × DP 16 · EP 32"


async def test_a_role_with_tp_only_shows_no_parallel_line() -> None:
    scenario = Scenario("nvidia", "nvidia-h100", "2p1d-sgl")
    app = make_app(scenario.profile)
    async with app.run_test(size=(80, 24)) as pilot:
        await reach(pilot, scenario, "topology", typed=False)
        assert not [w for w in app.screen.query(".role-parallel") if w.display]
