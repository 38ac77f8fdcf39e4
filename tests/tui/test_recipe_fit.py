"""The recipe list against the chosen profile and as its authors wrote it (issue 21, the operator's cockpit):
a job that needs more nodes than the profile's cluster has (`max_nodes`) is marked ✗ in the list with how many
it needs, as a recipe that cannot be read is (only the Topology step refused it, once chosen); and a recipe's
`about` keeps its header comment's lines and paragraphs (srtctl's were one run-on line)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Static, Tree

from srt_tui.core.spec.job_size import JobSize, RoleSize, too_big
from srt_tui.tui.launch.recipe_catalog import RecipeEntry, read_entries
from tests.conftest import REPO, require
from tests.tui.scenarios import settle
from tests.tui.test_recipe_first import SRTCTL_LIBRARY
from tests.tui.tui_helpers import make_app

#: srtctl's B200 FP4 1k1k variants: `…stp_lowlat[1]` is 1P6D (7 nodes of 8 GPUs), `…stp_maxtpt[1]` 1P2D (3 nodes)
B200 = "b200-fp4/1k1k.yaml"
BIG, FITS = "1k1k:zip_override_stp_lowlat[1]", "1k1k:zip_override_stp_maxtpt[1]"
#: a recipe whose header comment is a title, paragraphs and a list
DEEPSEEK = "vllm/deepseek-r1/disagg-h100-16gpu.yaml"


def _library(*files: str) -> None:
    """srtctl's ``files`` in ./recipes (the TUI tests run in a scratch directory)."""
    require(SRTCTL_LIBRARY.is_dir(), f"srtctl's library is not at {SRTCTL_LIBRARY}")
    for name in files:
        target = Path.cwd() / "recipes" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SRTCTL_LIBRARY / name, target)


def _profile(name: str, extra: str = "") -> str:
    """A user profile: nvidia-h100's (8 GPUs a node) and ``extra``; its name."""
    profiles = Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "profiles"
    profiles.mkdir(parents=True, exist_ok=True)
    text = (REPO / "profiles" / "nvidia-h100.yaml").read_text(encoding="utf-8")
    (profiles / f"{name}.yaml").write_text(text + extra, encoding="utf-8")
    return name


def _rows(tree: Tree[Any], folder: str) -> dict[str, Any]:
    node = next(f for f in tree.root.children if str(f.label) == folder)
    return {n.data.label: n for n in node.children if n.data is not None}


def _summary(app: Any, width: int = 200) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(app.screen.query_one("#recipe-summary", Static).content)
    return console.export_text()


async def _highlight(pilot: Pilot[Any], node: Any) -> None:
    tree: Tree[Any] = pilot.app.screen.query_one("#recipe-tree", Tree)
    tree.move_cursor(node)
    await pilot.pause()


async def test_a_job_larger_than_max_nodes_is_marked_in_the_list_with_why() -> None:
    _library(B200)
    profile = _profile("three-nodes", "max_nodes: 3\n")
    app = make_app(profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        tree: Tree[Any] = app.screen.query_one("#recipe-tree", Tree)
        rows = _rows(tree, "./recipes/b200-fp4/")
        assert str(rows[BIG].label).startswith("✗ "), rows[BIG].label
        assert not str(rows[FITS].label).startswith("✗"), rows[FITS].label
        await _highlight(pilot, rows[BIG])
        summary = _summary(app)
        assert "✓ valid recipe; does not fit three-nodes:" in summary, summary
        assert "✗ needs 7 nodes; this cluster has 3 (max_nodes)" in summary, summary
        await _highlight(pilot, rows[FITS])
        assert "max_nodes" not in _summary(app)
        await _highlight(pilot, rows[BIG].parent)  # the folder counts them
        assert "✗ 5 need more nodes than three-nodes has (max_nodes)" in _summary(app)
        await _highlight(pilot, rows[BIG])
        await pilot.press("enter")  # a valid recipe: the Topology step offers the shapes that fit
        await settle(pilot)
        assert app.screen.query_one("#presets").has_focus


async def test_without_max_nodes_no_row_is_marked() -> None:
    _library(B200)
    app = make_app(_profile("no-limit"))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        rows = _rows(app.screen.query_one("#recipe-tree", Tree), "./recipes/b200-fp4/")
        assert not any(str(n.label).startswith("✗") for n in rows.values()), [str(n.label) for n in rows.values()]


def test_the_size_goes_with_a_rows_facts_and_agrees_with_resolve() -> None:
    """The reader process and the cache hand rows over as facts: the size goes with them; the list's node count
    is the one `resolve` (dry-run, the Topology step) works out."""
    from srt_tui.core.plan.resolve import resolve
    from srt_tui.core.spec.profile import load_profile

    require(SRTCTL_LIBRARY.is_dir(), f"srtctl's library is not at {SRTCTL_LIBRARY}")
    loaded = load_profile(str(REPO / "profiles" / "nvidia-h100.yaml"))
    entries = read_entries(SRTCTL_LIBRARY / B200, "b200-fp4")
    assert len(entries) > 5
    for entry in entries:
        back = RecipeEntry.from_facts(entry.facts())
        assert back.size == entry.size and back.too_big(3, 8) == entry.too_big(3, 8)
        recipe, source = entry.chosen()
        assert entry.size is not None and entry.size.nodes(8) == resolve(loaded, recipe, source).total_nodes, (
            entry.label
        )


def test_a_job_size_counts_roles_colocation_and_the_reserved_node() -> None:
    disagg = JobSize((RoleSize("prefill", 1, 4, None), RoleSize("decode", 3, None, None)))
    assert disagg.nodes(8) == 3  # decode's 3 workers take prefill's 4 GPUs: 2 nodes, prefill 1
    assert disagg.nodes(4) == 4
    assert JobSize(disagg.roles, gpus_per_node=4).nodes(8) == 4  # the recipe's own GPUs per node win
    assert JobSize(disagg.roles, reserved=1).nodes(8) == 4
    colocated = JobSize((RoleSize("prefill", 1, 4, None), RoleSize("decode", 1, 4, "colocate")))
    assert colocated.nodes(8) == 1
    assert too_big(disagg, 2, 8) == "needs 3 nodes; this cluster has 2 (max_nodes)"
    assert too_big(disagg, 3, 8) is None and too_big(disagg, None, 8) is None
    for bad in ([[["prefill", -1, None, None]], None, False, 0], [[["cook", 1, 1, 1]], None, False, 0], "x", [1]):
        try:
            JobSize.from_facts(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} was taken as a job size")


async def test_about_keeps_the_comments_lines_and_paragraphs() -> None:
    """srtctl's DeepSeek-R1 H100 recipe opens on a title, a `Based on …` line, a paragraph and a list: each stays
    on lines of its own, a blank line between paragraphs, a wrapped list item going on under its text."""
    _library(DEEPSEEK)
    app = make_app("nvidia-h100")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        rows = _rows(app.screen.query_one("#recipe-tree", Tree), "./recipes/vllm/deepseek-r1/")
        await _highlight(pilot, rows["disagg-h100-16gpu"])
        lines = [line.rstrip() for line in _summary(app, width=200).splitlines()]
        about = next(i for i, line in enumerate(lines) if line.startswith("about"))
        column = lines[about].index("DeepSeek-R1")
        text = [line[column:] for line in lines[about:]]
        based = next(i for i, line in enumerate(text) if "Based on" in line)
        assert 0 < based <= 2 and text[based].startswith("Based on dynamo exemplar:"), text  # a line of its own
        assert "" in text[based + 1 : based + 4], text  # the paragraph break
        items = [i for i, line in enumerate(text) if line.startswith("- ")]
        assert len(items) == 5 and text[items[0]].startswith("- Each GPU runs its own vLLM process"), text
        # the pane's value column is narrower than the longest item: it wraps under its text, not under its `-`
        wrapped = [line for line in text[items[0] : items[-1] + 1] if not line.startswith("- ")]
        assert wrapped and all(line.startswith("  ") and line[2] != " " for line in wrapped), text


def test_lines_an_editor_wrapped_are_joined_and_the_authors_breaks_kept() -> None:
    """A paragraph the author's editor wrapped at ~90 columns is one line again (the pane wraps it at its own width:
    kept as written it read ragged in 50), while a title, list items, indented lines and a line that ends early
    stay lines of their own (srtctl's Qwen3.5 nsys slow-down recipe has all of them)."""
    from srt_tui.tui.launch.recipe_catalog import _leading_comment

    slowdown = "qwen3.5/fp8/disagg/mooncake/profile/1p1d-dep4-nsys-profile-slowdown.yaml"
    require(SRTCTL_LIBRARY.is_dir(), f"srtctl's library is not at {SRTCTL_LIBRARY}")
    lines = _leading_comment((SRTCTL_LIBRARY / slowdown).read_text(encoding="utf-8")).split("\n")
    paragraph = next(line for line in lines if line.startswith("Slow-down is meant"))
    assert paragraph.endswith("*before* the nsys decode window."), lines  # four lines as written, one here
    assert "Choose profiling.decode.start_step as:" in lines and "  1100 = 1024 + 4 + 72" in lines, lines
    assert lines[-1] == "Adjust the three terms if you change osl, concurrency, or slow_down timing.", lines
    assert lines[lines.index("") - 1].startswith("This file changes frontend"), lines  # not joined to the path


def test_separate_lines_of_srtctls_headers_stay_apart() -> None:
    """Only prose an editor wrapped is joined: srtctl's headers also hold lines that merely reach the fill column,
    which read as one run-on line (`zip_override_stp_* — …` and `zip_override_mtp_* — …` as one; five `srtctl apply`
    commands as one; `Based on …` and `Adapted to …` as one sentence; `Config: …` and `max global bs: …`)."""
    from srt_tui.tui.launch.recipe_catalog import _leading_comment

    require(SRTCTL_LIBRARY.is_dir(), f"srtctl's library is not at {SRTCTL_LIBRARY}")

    def about(name: str) -> list[str]:
        return _leading_comment((SRTCTL_LIBRARY / name).read_text(encoding="utf-8")).split("\n")

    b200 = about("b200-fp4/1k1k.yaml")
    assert [line for line in b200 if line.startswith("  zip_override_")] == [
        "  zip_override_stp_*  — standard token prediction (no speculative decoding)",
        "  zip_override_mtp_*  — multi-token prediction (EAGLE speculative decoding)",
    ], b200
    assert len([line for line in b200 if line.lstrip().startswith("srtctl ")]) == 5, b200  # a command a line
    assert "Low-latency variants: tep8 decode (DP=1), dep4 prefill (DP=4 TP=4)" in b200, b200
    agg = about("dsv4-pro/sglang/gb300-fp4/1k1k/agg/mtp/agg-low-latency.yaml")
    assert len(agg) == 3 and agg[2].startswith("Adapted to GB300"), agg
    config = about("gb300-fp4/128k8k/highthroughput-ctx5_pp4_gen1_dep16_batch16_eplb0_mtp0.yaml")
    assert config == ["Config: ctx5_pp4_gen1_dep16_batch16_eplb0_mtp0", "max global bs: 256, concurrency: 512"]
    title = about("qwen3.5/fp8/agg/mtp_radix_off/tp4-mtp-acc.yaml")
    assert title[1] == "NEXTN MTP speculative decoding, radix cache OFF", title  # not joined to the title
    # while a paragraph an editor wrapped is still one line (a title that goes on in lower case too)
    moe = about("dsv4-pro/sglang/gb300-fp4/1k1k/disagg/stp/disagg-1p1d-dep4-mega-moe.yaml")
    assert moe[2].startswith("1 prefill node") and moe[2].endswith("KV transfer over NIXL."), moe
    flash = about("qwen3.5/nvfp4/agg/stp_radix_on/tp4-acc.yaml")
    assert flash == [
        "FlashInfer GDN decode validation: NVFP4, linear-attn-decode-backend=flashinfer (ladfi), extra_buffer Mamba "
        "scheduler (radix cache on), no MTP, concurrency 512."
    ], flash
