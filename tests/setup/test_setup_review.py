"""Setup as a new operator meets it (issue 21): every focus stop shows the focus, a hint never reads as a value, and
the cluster's node count is written (`max_nodes`), so the wizard refuses a topology larger than the cluster at once."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from rich.style import Style
from textual.widget import Widget
from textual.widgets import DataTable, Input

from srt_tui.core.spec.profile import parse_profile
from srt_tui.tui.setup.screen import SetupScreen
from srt_tui.widgets.problem_list import ProblemList
from tests.setup.recorded import setup_app
from tests.tui.scenarios import settle


@pytest.fixture(autouse=True)
def _no_animation(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    monkeypatch.chdir(tmp_path)


def _looks(widget: Widget) -> list[list[tuple[str, Style | None]]]:
    """What the screen shows in the widget's region: each line's segments with their styles."""
    region = widget.region
    strips = widget.screen._compositor.render_strips()
    return [
        [(seg.text, seg.style) for seg in strip.crop(region.x, region.right)]
        for strip in strips[region.y : region.bottom]
    ]


async def _every_stop_shows_the_focus(pilot: Any, screen: SetupScreen) -> list[str]:
    """The focus chain's widgets: each must look different focused than with the focus on another stop."""
    chain = list(screen.focus_chain)
    assert len(chain) > 2
    for n, widget in enumerate(chain):
        chain[n - 1].focus()  # the focus on the stop before (Tab's way in)
        await pilot.pause()
        blurred = _looks(widget)
        widget.focus()
        await pilot.pause()
        assert pilot.app.focused is widget
        assert _looks(widget) != blurred, f"#{widget.id} ({type(widget).__name__}) does not show it has the focus"
    return [str(w.id) for w in chain]


async def test_every_focus_stop_of_setup_shows_the_focus() -> None:
    """Operator pass: after the probes, Tab landed on the evidence pane, which showed nothing (no border change, no
    cursor), so Tab seemed to do nothing. Every stop of the probe and the review step shows it has the focus."""
    app = setup_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        probe = await _every_stop_shows_the_focus(pilot, screen)
        assert "probe-findings-box" in probe  # where the focus goes while the probes run
        await pilot.click("#run-probes")
        await settle(pilot)
        assert screen.query_one("#setup-switcher").current == "setup-review"  # type: ignore[attr-defined]
        review = await _every_stop_shows_the_focus(pilot, screen)
        assert "evidence-box" in review and "choice-max_nodes" in review


async def test_hints_read_as_hints_and_say_what_an_empty_field_writes(tmp_path: Path) -> None:
    """Operator pass: `Output dir  /shared/outputs` looked set (a plausible value in the place of a value); a hint is
    worded `e.g. …` or `default: …`, dimmed and italic unlike typed text, and a `default: …` hint is what the written
    profile holds when the field stays empty (the review shows what will be written)."""
    app = setup_app(profiles_dir=tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        await pilot.click("#run-probes")
        await settle(pilot)
        name = screen.query_one("#choice-name", Input)
        typed_style = next(seg[1] for seg in _looks(name)[0] if seg[0].strip())
        name.value = ""
        await settle(pilot)
        fields = [f for f in screen.query(Input) if not f.value]
        assert {f.id for f in fields} >= {"choice-name", "choice-output_dir", "choice-max_nodes", "opt-paths"}

        def hints_look_like_hints() -> None:
            shown = [f for f in fields if f.region.height]
            assert shown
            for field in shown:
                hint = next(seg for seg in _looks(field)[0] if seg[0].strip())
                assert hint[0] in field.placeholder, (field.id, hint)
                assert hint[1] is not None and typed_style is not None
                assert hint[1].italic and hint[1].color != typed_style.color, (field.id, hint[1], typed_style)

        for field in fields:
            assert field.placeholder.startswith(("e.g. ", "default: ")), (field.id, field.placeholder)
        hints_look_like_hints()
        said = {f.id: f.placeholder for f in fields}
        # what the probes propose: the partition's 3 nodes, a 4-hour limit, the default partition probed
        assert said["choice-max_nodes"] == "default: 3"
        assert said["choice-time_limit"] == "default: 04:00:00"
        assert said["choice-name"] == "default: my-cluster"
        assert said["opt-partition"] == "default: gpu"
        table = screen.query_one("#proposal-table", DataTable)
        shown = {str(table.get_row_at(n)[0]): str(table.get_row_at(n)[1]) for n in range(table.row_count)}
        assert shown["max_nodes"] == "3" and shown["default_time_limit"] == "04:00:00"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.written == tmp_path / "my-cluster.yaml"
        await pilot.press("escape")  # the probe step's fields
        await settle(pilot)
        hints_look_like_hints()
    profile = parse_profile(tmp_path / "my-cluster.yaml")
    assert profile.max_nodes == 3 and profile.default_time_limit == "04:00:00"
    assert profile.output_dir is None


async def test_max_nodes_is_the_partitions_node_count_and_the_operator_may_change_it(tmp_path: Path) -> None:
    """The profile Setup wrote had no `max_nodes`, so only `apply`'s preflight refused a 4-node job on a 3-node
    cluster. It holds the probed partition's node count, with where it came from; the operator's number wins."""
    app = setup_app(profiles_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        await pilot.click("#run-probes")
        await settle(pilot)
        assert screen.proposal is not None
        key = screen.proposal.key("max_nodes")
        assert key is not None and key.value == 3 and key.source == "probe"
        assert "partition gpu has 3 nodes" in key.evidence and "srtctl has none" in key.evidence
        field = screen.query_one("#choice-max_nodes", Input)
        field.focus()
        await pilot.press(*"x2")  # a count: the letter is refused as it is typed
        await settle(pilot)
        assert field.value == "2"
        key = screen.proposal.key("max_nodes")
        assert key is not None and key.value == 2 and key.source == "operator"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.written is not None
    text = screen.written.read_text()
    assert "\nmax_nodes: 2\n" in text
    assert parse_profile(screen.written).max_nodes == 2


async def test_the_topology_step_refuses_more_nodes_than_setup_found(tmp_path: Path) -> None:
    """On the 3-node cluster Setup probed, the wizard's Topology step refuses 2P2D (4 nodes) at once, naming
    `max_nodes`, instead of passing it on to `apply`'s preflight."""
    models = tmp_path / "models" / "mock-model"
    models.mkdir(parents=True)
    app = setup_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        await pilot.click("#run-probes")
        await settle(pilot)
        screen.query_one("#choice-name", Input).value = "three-nodes"
        screen.query_one("#choice-models", Input).value = f"mock-model={models}"
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.written == Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "profiles" / "three-nodes.yaml"
        await pilot.press("1")  # Launch: the cursor on the profile just written
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        from srt_tui.tui.launch.screen import LaunchScreen

        launch = app.screen
        assert isinstance(launch, LaunchScreen)
        await pilot.press("slash", *"mocker-1p1d", "enter")
        await settle(pilot)
        assert launch.state.profile is not None and launch.state.profile.name == "three-nodes"
        assert app.focused is not None and app.focused.id == "presets"
        from textual.widgets import OptionList

        presets = app.screen.query_one("#presets", OptionList)
        labels = [str(presets.get_option_at_index(n).prompt) for n in range(presets.option_count)]
        assert labels[0].startswith("1P1D") and "2 nodes" in labels[0], labels
        four = next(n for n, label in enumerate(labels) if label.startswith("2P2D"))
        assert "✗" in labels[four] and "max_nodes" in labels[four], labels
        await pilot.press(*["down"] * four, "enter")
        await settle(pilot)
        said = app.screen.query_one(ProblemList).text
        assert "this job needs 4 nodes; max_nodes is 3" in said, said


@pytest.mark.parametrize("count", ["0", "three", "-1"])
def test_setup_max_nodes_takes_a_node_count(count: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`setup --probe --max-nodes` refuses what is not a node count before probing anything, naming the flag."""
    from srt_tui.cli.main import main

    with pytest.raises(SystemExit) as exited:
        main(["setup", "--probe", "--max-nodes", count])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --max-nodes: `{count}` is not a node count: a whole number, at least 1" in err, err
    assert "Traceback" not in err
