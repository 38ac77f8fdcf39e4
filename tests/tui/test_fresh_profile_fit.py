"""A profile Setup has just written shows which recipes run there (issue 21, new-operator pass op11, defect 2): after
Setup wrote `op11` (8 fake GPUs a node, 3 nodes, `container_runtime: none`) the recipe list marked nothing and
highlighted the alphabetically first `amd/mi300x-agg-sglang-direct`; the mocker recipes that run there were neither
marked nor preselected. Rows that fit the profile as written (nodes, GPUs per node and type, an engine it can start)
are marked • beside ✓ (written for it), the first of them highlighted, from each row's facts (no recipe model)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from rich.console import Console
from textual.widgets import Static, Tree

from srt_tui.core.spec.job_size import JobSize, RoleSize, gpu_misfit
from srt_tui.tui.launch.recipe_catalog import RecipeEntry, read_entries
from srt_tui.tui.launch.recipe_fit import ProfileFit, fit_of
from tests.conftest import REPO
from tests.setup.recorded import setup_app
from tests.tui.scenarios import settle

#: the profile of op11's pass, as Setup proposes it from the recorded probes
OP11 = ProfileFit("op11", max_nodes=3, gpus_per_node=8, on_host=True)


def _entry(path: str) -> RecipeEntry:
    """The row of a shipped recipe, read as the list reads it, handed over as facts (the cache, the reader)."""
    (entry,) = read_entries(REPO / "recipes" / path, "x")
    return RecipeEntry.from_facts(entry.facts())


def test_a_rows_fit_comes_from_its_facts() -> None:
    mocker, sglang, amd = (_entry(p) for p in ("mocker/mocker-1p1d.yaml", "nvidia/h100-1p1d-sglang.yaml",
                                                "amd/mi300x-agg-sglang-direct.yaml"))  # fmt: skip
    assert (mocker.host_modules, sglang.host_modules, amd.gpu_type) == (("srt_tui",), ("sglang",), "mi300x")
    here = {"srt_tui": True, "sglang": False}
    assert fit_of(mocker, OP11, here).fits
    assert fit_of(mocker, OP11, {}).pending  # the engine not looked for yet: not said either way
    said = fit_of(sglang, OP11, here).misfit
    assert said is not None and "`sglang` not importable by python3 here" in said, said
    assert fit_of(amd, OP11, here).misfit == "written for mi300x GPUs; op11 names none (default_gpu_type)"
    # in containers: one the profile knows; the mocker's recipes name none
    h100 = ProfileFit("nvidia-h100", None, 8, "h100", containers=frozenset({"sglang"}))
    assert fit_of(sglang, h100, {}).fits
    assert fit_of(mocker, h100, {}).misfit == "names no container (model.container), which nvidia-h100's pyxis needs"
    mi300x = ProfileFit("amd-mi300x", None, 8, "MI300X", containers=frozenset({"sglang-rocm"}))
    assert fit_of(amd, mi300x, {}).fits and not fit_of(sglang, mi300x, {}).fits
    small = ProfileFit("one-node", max_nodes=1, gpus_per_node=8, on_host=True)
    assert fit_of(mocker, small, here).too_big == "needs 2 nodes; this cluster has 1 (max_nodes)"


def test_gpus_per_node_and_workers_must_tile_the_profiles_nodes() -> None:
    roles = (RoleSize("prefill", 1, 4, None), RoleSize("decode", 1, 2, None))
    assert gpu_misfit(JobSize(roles), 8) is None and gpu_misfit(JobSize(roles), None) is None
    assert gpu_misfit(JobSize(roles, gpus_per_node=4), 8) == "written for nodes of 4 GPUs; this cluster's have 8"
    assert gpu_misfit(JobSize(roles), 6) == "prefill workers of 4 GPUs do not divide a node's 6"
    assert gpu_misfit(JobSize((RoleSize("agg", 1, 12, None),)), 8) == "agg workers of 12 GPUs are not whole nodes of 8"


def _summary(app: Any) -> str:
    console = Console(width=200, record=True, color_system=None)
    console.print(app.screen.query_one("#recipe-summary", Static).content)
    return console.export_text()


async def test_after_setup_writes_a_profile_the_recipes_that_run_there_are_marked_and_one_highlighted() -> None:
    """op11's pass key by key: Setup's probes (recorded: 3 nodes of 8 GPUs, no pyxis), the name typed on the
    proposal, ctrl+s, `1`, the profile found with `/op11` and taken with Enter."""
    profiles = Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "profiles"
    app = setup_app(profiles_dir=profiles)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("enter")  # Run probes: Setup opens on it
        await settle(pilot)
        await pilot.press(*"op11")  # typed on the proposal: its first field, Profile name
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert (profiles / "op11.yaml").is_file()
        await pilot.press("1")
        await settle(pilot)
        await pilot.press("slash", *"op11", "enter")
        await settle(pilot)
        assert app.current_mode == "launch" and app.screen.state.profile.name == "op11"  # type: ignore[attr-defined]
        tree: Tree[Any] = app.screen.query_one("#recipe-tree", Tree)
        rows = {
            str(folder.label): {leaf.data.label: str(leaf.label)[:2] for leaf in folder.children if leaf.data}
            for folder in tree.root.children
        }
        assert set(rows["mocker/"].values()) == {"• "}, rows["mocker/"]
        assert set(rows["amd/"].values()) == {"  "}, rows["amd/"]  # written for MI300X/MI355X GPUs
        node = tree.cursor_node
        assert node is not None and node.data is not None and node.data.label == "mocker-1p1d"
        assert "• fits op11 as written: 2 of its 3 nodes, engine installed here" in _summary(app)
        assert "• fits it as written" in str(app.screen.query_one("#recipe-hint", Static).content)
        amd = next(leaf for folder in tree.root.children for leaf in folder.children if leaf.data and
                   leaf.data.label == "mi300x-agg-sglang-direct")  # fmt: skip
        tree.move_cursor(amd)
        await pilot.pause()
        assert "— written for mi300x GPUs; op11 names none (default_gpu_type)" in _summary(app)
        tree.move_cursor(node.parent)
        await pilot.pause()
        assert "• 12 fit op11 as written" in _summary(app)
