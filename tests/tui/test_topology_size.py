"""The Topology step names the role an operator made too big for the cluster (operator pass op11): mocker-2p1d on a
profile of `max_nodes: 3` with decode set to 999 nodes read `✗ roles.prefill: this job needs … nodes`, the role with
the most GPUs, not the one changed."""

from __future__ import annotations

import os

from textual.widgets import Input

from srt_tui.widgets.problem_list import ProblemList
from tests.conftest import REPO
from tests.tui.scenarios import settle
from tests.tui.tui_helpers import make_app


def _three_nodes() -> str:
    """A user profile: the embedded `local` one on a cluster of three nodes; its name."""
    profiles = os.path.join(os.environ["SRT_TUI_CONFIG_DIR"], "profiles")
    os.makedirs(profiles, exist_ok=True)
    text = (REPO / "profiles" / "local.yaml").read_text(encoding="utf-8")
    with open(os.path.join(profiles, "three-nodes.yaml"), "w", encoding="utf-8") as f:
        f.write(text + "max_nodes: 3\n")
    return "three-nodes"


async def test_decode_set_too_big_is_named_as_decode() -> None:
    app = make_app(_three_nodes())
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"mocker-2p1d", "enter", "enter")
        await settle(pilot)
        problems = app.screen.query_one(ProblemList)
        assert problems.text.startswith("✓ valid: 2P1D"), problems.text
        nodes = app.screen.query_one("#decode-nodes", Input)
        nodes.focus()
        nodes.value = ""
        await pilot.press(*"999")
        await settle(pilot)
        assert "✗ roles.decode: this job needs 1000 nodes; max_nodes is 3" in problems.text, problems.text
        assert "roles.prefill" not in problems.text
        assert "fix: decode takes 999 nodes, prefill 1; pick a smaller topology" in problems.text, problems.text
