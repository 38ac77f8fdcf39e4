"""The Launch wizard below 70 columns (issue 21, operator pass op12): side by side, the Topology step's GPU plan was
18 columns at 60x24 and wrapped every row (`│ GPU     0  1    │` / `│ 2  3  4  5  6   │`), an empty 2-column box at
44x24, and the Recipe step's details were 7 columns (`re…`, `fi…`). The screen's `-slim` class (widgets.layout) stacks
the panels, each the whole width, and the GPU plan fits its width as the Monitor's grid does: a row is never wrapped,
the legend's items stay whole. Also: a path longer than the Submit step's value column is cut in its middle, as
`status` cuts one (`/lustre/…/lmsysorg+sglang+v0.5.8.sqsh`), never at the column's edge (`…/bin/pytho…`)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.geometry import Region
from textual.widget import Widget

from srt_tui.tui.display import fit_paths
from srt_tui.tui.launch.gpu_grid import GpuGrid
from srt_tui.widgets.layout import SLIM, is_slim
from tests.tui.scenarios import NVIDIA, STEP_ORDER, Scenario, reach, settle
from tests.tui.tui_helpers import make_app

SLIM_SIZES = {"60x24": (60, 24), "44x24": (44, 24)}
#: a 1P1D plan on a profile with 8 GPUs per node (the operator's)
ONE_ONE = Scenario("h100-1p1d", "nvidia-h100", "h100-1p1d-sgl")


def _lines(widget: Widget) -> list[str]:
    """What ``widget`` draws, line by line, at its own size (the part scrolled out of view too)."""
    strips = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
    return [strip.text.rstrip() for strip in strips]


def _whole_width(widget: Widget, width: int) -> None:
    """``widget`` has the screen's width, less its margins and a scrollbar at most (beside another panel it had 18
    columns of 60, 2 of 44)."""
    assert widget.outer_size.width >= width - 6, f"{widget.id}: {widget.outer_size.width} of {width} columns"


def test_the_slim_class_is_below_70_columns() -> None:
    assert is_slim(SLIM - 1) and not is_slim(SLIM)


@pytest.mark.parametrize("size", list(SLIM_SIZES))
async def test_the_gpu_plan_goes_under_the_roles_and_no_row_wraps(size: str) -> None:
    width, height = SLIM_SIZES[size]
    app = make_app(ONE_ONE.profile)
    async with app.run_test(size=(width, height)) as pilot:
        await reach(pilot, ONE_ONE, "topology", typed=False)
        await settle(pilot)
        screen = app.screen
        assert screen.has_class("-slim")
        left, box = screen.query_one("#topology-left"), screen.query_one("#grid-box")
        assert box.region.y >= left.region.bottom, (box.region, left.region)  # under the roles, not beside them
        _whole_width(box, width)
        lines = [line for line in _lines(screen.query_one(GpuGrid)) if line.strip()]
        assert lines[0].split() == ["GPU", *map(str, range(8))], lines  # each row whole on its line
        assert lines[1].split() == ["node0", *["P0"] * 8], lines
        assert lines[2].split() == ["node1", *["D0"] * 8], lines
        assert any(line.strip() == "mask = CUDA_VISIBLE_DEVICES" or line.endswith("mask = CUDA_VISIBLE_DEVICES")
                   for line in lines), lines  # fmt: skip
        assert not any(line.rstrip().endswith("mask =") for line in lines), lines  # a legend item is never split


@pytest.mark.parametrize("size", list(SLIM_SIZES))
async def test_the_recipe_details_go_under_the_tree(size: str) -> None:
    width, height = SLIM_SIZES[size]
    app = make_app(NVIDIA.profile)
    async with app.run_test(size=(width, height)) as pilot:
        await reach(pilot, NVIDIA, "recipe", typed=False)
        await settle(pilot)
        screen = app.screen
        tree, box = screen.query_one("#recipe-tree"), screen.query_one("#recipe-summary-box")
        assert box.region.y >= tree.region.bottom, (box.region, tree.region)
        assert tree.region.height >= 5 and box.region.height >= 5, (tree.region, box.region)
        _whole_width(box, width)
        summary = _lines(screen.query_one("#recipe-summary"))
        assert summary[0].split() == ["recipe", "h100-2p1d-sglang"], summary  # was `re…`
        assert ["engine", "sglang"] in [line.split() for line in summary], summary


@pytest.mark.parametrize("size", list(SLIM_SIZES))
async def test_the_launcher_goes_under_the_request_and_submit_stays_on_screen(size: str) -> None:
    width, height = SLIM_SIZES[size]
    app = make_app(NVIDIA.profile)
    async with app.run_test(size=(width, height)) as pilot:
        await reach(pilot, NVIDIA, "submit", typed=False)
        await settle(pilot)
        screen = app.screen
        request, launcher = screen.query_one("#request-box"), screen.query_one("#launcher-box")
        assert launcher.region.y >= request.region.bottom, (launcher.region, request.region)
        _whole_width(request, width)
        _whole_width(launcher, width)
        button = screen.query_one("#submit")
        assert screen.region.contains_region(button.region) and launcher.region.contains_region(button.region)
        request_lines = _lines(screen.query_one("#request"))
        assert request_lines[0].startswith("✗ 2 checks fail: model.path"), request_lines  # worst first, on top
        assert request_lines[1].split() == ["job", "name", "h100-2p1d-sglang"], request_lines  # was `h1`/`00`/…


async def test_a_path_longer_than_the_request_column_is_cut_in_its_middle() -> None:
    """At 120 columns the container's path was cut at the column's edge (`/lustre/containers/lmsysorg+sglang+v0.5…`,
    the operator's `…/bin/pytho…`): its middle folders give way, its head and file name stay."""
    app = make_app(NVIDIA.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, NVIDIA, "submit", typed=False)
        await settle(pilot)
        text = "\n".join(_lines(app.screen.query_one("#request")))
        assert "/lustre/…/lmsysorg+sglang+v0.5.8.sqsh" in text, text
        assert "v0.5…" not in text, text


def test_fit_paths_cuts_only_what_does_not_fit() -> None:
    said = "`srt_tui` is not importable by `python3` (/root/.pyenv/versions/3.11.7/bin/python); the job fails"
    assert fit_paths(said, 24) == "`srt_tui` is not importable by `python3` (/root/…/bin/python); the job fails"
    assert fit_paths(said, 40) == said  # a path that fits is kept whole
    assert fit_paths("see http://host:8000/a/very/long/health/path/of/a/url", 10).endswith("/url")  # not a path


SLIM_STEPS = (*STEP_ORDER, "setup")


@pytest.mark.parametrize("size", list(SLIM_SIZES))
@pytest.mark.parametrize("step", SLIM_STEPS)
def test_slim_step(snap_compare: Any, step: str, size: str) -> None:
    """Every wizard step (and Setup) at 60x24 and 44x24: stacked panels, nothing wrapped into nonsense."""

    async def run_before(pilot: Any) -> None:
        if step == "setup":
            await settle(pilot)
            await pilot.press("3")
            await settle(pilot)
            return
        await reach(pilot, ONE_ONE if step == "topology" else NVIDIA, step, typed=False)
        await settle(pilot)

    assert snap_compare(make_app(NVIDIA.profile), run_before=run_before, terminal_size=SLIM_SIZES[size])


def _footer(app: Any) -> dict[str, str]:
    """The keys the footer shows and what each says."""
    from textual.widgets._footer import FooterKey

    return {key.key_display: key.description for key in app.screen.query(FooterKey)}


@pytest.mark.parametrize("size", list(SLIM_SIZES))
async def test_stacked_the_request_scrolls_from_the_keyboard(size: str) -> None:
    """Stacked, the request box cut its lower rows (`benchmark`, `preflight`) and took no focus: only the mouse wheel
    scrolled it. Now Tab reaches it (as lazygit's panels), j/k, the arrows, PgDn and Home scroll it, the footer says
    `j/k Scroll`; beside the launcher (80 columns) it stays a Tab stop (`test_submit_narrow`)."""
    width, height = SLIM_SIZES[size]
    app = make_app(NVIDIA.profile)
    async with app.run_test(size=(width, height)) as pilot:
        await reach(pilot, NVIDIA, "submit", typed=False)
        await settle(pilot)
        box = app.screen.query_one("#request-box")
        assert box.max_scroll_y > 2, box.virtual_size  # more rows than it shows
        unlit = box.styles.border_top
        await pilot.press("tab")
        await settle(pilot)
        assert app.focused is box and box.styles.border_top != unlit  # its border says where the keys are
        assert _footer(app).get("j/k") == "Scroll", _footer(app)
        await pilot.press("j", "j", "down")
        await settle(pilot)
        assert box.scroll_y == 3
        await pilot.press("k")
        await settle(pilot)
        assert box.scroll_y == 2
        await pilot.press("pagedown")
        await settle(pilot)
        assert box.scroll_y > 3
        await pilot.press("end")
        await settle(pilot)
        assert box.scroll_y == box.max_scroll_y
        await pilot.press("home")
        await settle(pilot)
        assert box.scroll_y == 0
        await pilot.press("tab")  # on to the launcher, and ctrl+n still submits from there
        await settle(pilot)
        assert app.focused is not None and app.focused.id == "launcher"
        await pilot.resize_terminal(80, 24)  # side by side: still a Tab stop, its keys scroll it there too
        await settle(pilot)
        assert box.can_focus and box in app.screen.focus_chain


@pytest.mark.parametrize("size", list(SLIM_SIZES))
async def test_stacked_the_gpu_plan_scrolls_from_the_keyboard(size: str) -> None:
    """Stacked, the Topology body scrolls and the plan's box is as tall as the plan: focused by Tab, its arrows did
    nothing (the box itself cannot scroll), so the plan's rows below the screen were the mouse's only. Its keys now
    scroll the body it sits in, and the footer says `j/k Scroll`."""
    width, height = SLIM_SIZES[size]
    app = make_app(ONE_ONE.profile)
    async with app.run_test(size=(width, height)) as pilot:
        await reach(pilot, ONE_ONE, "topology", typed=False)
        await settle(pilot)
        body, box = app.screen.query_one("#topology-body"), app.screen.query_one("#grid-box")
        assert body.max_scroll_y > 2, body.virtual_size
        unlit = box.styles.border_top
        await pilot.press("shift+tab", "shift+tab")  # presets ← checks ← the plan
        await settle(pilot)
        shown = body.scroll_y
        assert app.focused is box and shown > 2  # brought into view: the whole box (the Checks box below takes rows)
        assert body.content_region.contains_region(box.region), (box.region, body.content_region)
        assert box.styles.border_top != unlit  # its border says where the keys are
        await pilot.press("k", "up")
        await settle(pilot)
        assert body.scroll_y == shown - 2
        await pilot.press("j")
        await settle(pilot)
        assert body.scroll_y == shown - 1
        await pilot.press("home")
        await settle(pilot)
        assert body.scroll_y == 0
        await pilot.press("pagedown")
        await settle(pilot)
        assert body.scroll_y > 0
        assert _footer(app).get("j/k") == "Scroll", _footer(app)


@pytest.mark.parametrize("size", list(SLIM_SIZES))
async def test_stacked_the_gpu_plan_box_is_whole_above_the_checks(size: str) -> None:
    """Stacked, the plan's box fits the body it scrolls in: at 60x24 its 13 rows in a 12-row body lost the bottom
    border under the Checks box (taller since it gained host checks) whenever its top was in view."""
    width, height = SLIM_SIZES[size]
    app = make_app(ONE_ONE.profile)
    async with app.run_test(size=(width, height)) as pilot:
        await reach(pilot, ONE_ONE, "topology", typed=False)
        await settle(pilot)
        await pilot.press("shift+tab", "shift+tab")  # presets ← checks ← the plan: its top brought into view
        await settle(pilot)
        body, box = app.screen.query_one("#topology-body"), app.screen.query_one("#grid-box")
        checks = app.screen.query_one("#problems-box")
        assert app.focused is box
        assert body.content_region.contains_region(box.region), (box.region, body.content_region)
        assert not box.region.overlaps(checks.region), (box.region, checks.region)
