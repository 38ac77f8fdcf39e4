"""Submit at 80×24 with Slurm unreachable and a long reason: the Submit button stays on screen
(issue 11, item 2: it was pushed out of view and Enter submitted blind)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button

from tests.tui.scenarios import SCENARIOS, Scenario, reach, settle
from tests.tui.tui_helpers import FakeCluster, answer_preflight_with, make_app, paths_found


@pytest.fixture(autouse=True)
def _paths_exist(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped cluster profiles' model and container paths are not on this machine: here they are (Submit
    refuses a missing one: `test_launcher_choice.test_submit_refuses_a_model_path_apply_refuses`)."""
    paths_found(monkeypatch)


#: what `sinfo` says when slurmctld is down (long enough to wrap over several lines at 80 columns)
DOWN = (
    False,
    "sinfo: error: slurm_load_partitions: Unable to contact slurm controller (connect failure); "
    "slurmctld on head-node-01.cluster.example.org:6817 did not answer within 10 s; "
    "sinfo: error: Unable to establish a connection to the backup controller head-node-02:6817",
)


async def test_submit_button_visible_with_slurm_unreachable_at_80x24() -> None:
    scenario = SCENARIOS["nvidia"]
    app = make_app(scenario.profile, probe=DOWN)
    async with app.run_test(size=(80, 24)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        button = app.screen.query_one("#submit", Button)
        widget, _ = app.screen.get_widget_at(button.region.x + 2, button.region.y + 1)
        assert widget is button, f"the Submit button is hidden (at its place: {widget})"


def test_submit_slurm_unreachable_snapshot(snap_compare: Any) -> None:
    scenario = SCENARIOS["nvidia"]

    async def run_before(pilot: Pilot[None]) -> None:
        await reach(pilot, scenario, "submit", typed=False)

    assert snap_compare(make_app(scenario.profile, probe=DOWN), run_before=run_before, terminal_size=(80, 24))


async def test_a_preflight_refusal_shows_when_submit_opens_at_80x24(monkeypatch: pytest.MonkeyPatch) -> None:
    """Operator pass: a 4-node job against a 3-node partition showed `✗ preflight nodes: the job needs 4 nodes;
    partition gpu has 3` at the foot of the request, below the fold at 80×24, seen only once ^n had failed. It
    shows under the Submit button, in sight when the step opens."""
    from textual.widgets import Static

    answer_preflight_with(monkeypatch, FakeCluster(nodes=3, partition="batch"))
    four_nodes = Scenario("four", "nvidia-h100", "2p1d-sgl", (("decode-workers", "3"), ("decode-nodes", "3")))
    app = make_app(four_nodes.profile, probe=(True, "slurmctld answers (cli transport)"))
    async with app.run_test(size=(80, 24)) as pilot:
        await reach(pilot, four_nodes, "submit", typed=False)
        await settle(pilot)
        screen = app.screen
        status = screen.query_one("#submit-status", Static)
        shown = str(status.render())
        assert "✗ preflight nodes: the job needs 4 nodes; partition `batch` has 3" in shown, shown
        # the fix in the TUI's words (operator pass: it said `-t / the recipe's roles`, the command line's flag)
        assert "fix: choose fewer workers or nodes in the Topology step, or a partition with more nodes" in shown
        assert "-t" not in shown
        assert status.region.height and status.region.bottom <= 23, status.region  # above the footer
        assert screen.get_widget_at(status.region.x, status.region.y)[0] is status


async def test_the_request_scrolls_from_the_keyboard_to_its_last_line_at_80x24() -> None:
    """Operator pass: beside the launcher at 80x24 the request box showed 18 of its ~59 lines and took no focus, so
    its lower rows (the paths checked, the preflight) were out of the keys' reach. Now Tab reaches it at every width
    (as stacked), End brings its last line into view, Home back to the first."""
    from textual.geometry import Region
    from textual.widgets import Static

    scenario = SCENARIOS["nvidia"]
    app = make_app(scenario.profile, probe=DOWN)
    async with app.run_test(size=(80, 24)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        await settle(pilot)
        box, request = app.screen.query_one("#request-box"), app.screen.query_one("#request", Static)
        lines = [s.text.rstrip() for s in request.render_lines(Region(0, 0, request.size.width, request.size.height))]
        last = max(i for i, line in enumerate(lines) if line.strip())
        assert last >= box.content_region.height, (last, box.content_region)  # more lines than the box shows
        for _ in range(6):  # Tab on from the launcher until the request box has the keys
            if app.focused is box:
                break
            await pilot.press("tab")
            await settle(pilot)
        assert app.focused is box
        await pilot.press("end")
        await settle(pilot)
        row = request.region.y + last  # where the last line is drawn, the box scrolled
        assert box.content_region.y <= row < box.content_region.bottom, (row, box.content_region)
        assert app.screen.get_widget_at(request.region.x + 1, row)[0] is request
        await pilot.press("home")
        await settle(pilot)
        assert box.scroll_y == 0
