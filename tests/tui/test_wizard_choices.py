"""The wizard's choices and the words about them (issue 11): the router where the recipe allows several,
breadcrumbs that follow a changed profile or recipe, sbatch directives named by their source, and a
preset that cannot run saying why."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, OptionList, Select, Static, TabbedContent

from srt_tui.tui.launch.screen import LaunchScreen
from srt_tui.widgets.step_bar import StepBar
from tests.core.core_helpers import RECIPES_DIR
from tests.tui.scenarios import SCENARIOS, Scenario, reach, settle
from tests.tui.tui_helpers import make_app, paths_found

MOCK_2P1D = Scenario("mock-2p1d", "local", "mocker-2p1d.yaml")
MOCK_AGG = Scenario("mock-agg", "local", "mocker-agg-direct.yaml")
SGLANG_ROUTER = "sglang_router.launch_router --pd-disaggregation"
VLLM_ROUTER = "vllm-router --vllm-pd-disaggregation"


async def _choose_router(pilot: Pilot[None], label_start: str) -> None:
    """Open the router list with Enter, move to the option whose label starts so, Enter."""
    select: Select[str] = pilot.app.screen.query_one("#router-select", Select)
    select.focus()
    await pilot.press("enter")
    await settle(pilot)
    overlay = select.query_one(OptionList)
    labels = [str(overlay.get_option_at_index(i).prompt) for i in range(overlay.option_count)]
    target = next(i for i, text in enumerate(labels) if text.startswith(label_start))
    current = overlay.highlighted or 0
    await pilot.press(*(["down"] * (target - current) if target >= current else ["up"] * (current - target)))
    await pilot.press("enter")
    await settle(pilot)


def _script(pilot: Pilot[None]) -> str:
    screen = pilot.app.screen
    assert isinstance(screen, LaunchScreen) and screen.state.prepared is not None
    return screen.state.prepared.script


async def test_the_router_choice_flows_into_the_preview() -> None:
    app = make_app(MOCK_2P1D.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, MOCK_2P1D, "topology", typed=False)
        select: Select[str] = app.screen.query_one("#router-select", Select)
        assert select.value == "sglang"  # the recipe's own, preselected
        assert app.screen.query_one("#router-row").display
        await _choose_router(pilot, "vllm-router")
        await pilot.press("ctrl+n")
        await settle(pilot)
        script = _script(pilot)
        assert VLLM_ROUTER in script and SGLANG_ROUTER not in script
        assert "behind vllm-router" in str(app.screen.query_one("#preview-summary", Static).render())

        await pilot.press("escape")
        await settle(pilot)
        await _choose_router(pilot, "sglang")
        await pilot.press("ctrl+n")
        await settle(pilot)
        script = _script(pilot)
        assert SGLANG_ROUTER in script and VLLM_ROUTER not in script


async def test_the_router_list_follows_the_topology() -> None:
    """One aggregated worker may be served directly; two need a router, and the direct choice goes."""
    app = make_app(MOCK_AGG.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, MOCK_AGG, "topology", typed=False)
        select: Select[str] = app.screen.query_one("#router-select", Select)
        assert select.value == "sglang"
        await _choose_router(pilot, "vllm-router")
        assert "vllm-router" in _script_or_none(pilot)
        await _type(pilot, "#agg-workers", "2")
        assert select.value == "vllm-router"  # still allowed: kept
        await _choose_router(pilot, "sglang")  # sglang for two workers runs the SGLang router
        assert str(select.selection) == "sglang"
        overlay = select.query_one(OptionList)
        labels = [str(overlay.get_option_at_index(i).prompt) for i in range(overlay.option_count)]
        assert labels[0] == "sglang → sglang-router" and not any("worker serves" in x for x in labels), labels


MI300X_DIRECT = Scenario("mi300x-direct", "amd-mi300x", "mi300x-agg-sglang-direct")


async def test_the_router_row_shows_what_the_plan_runs_as_the_worker_count_changes() -> None:
    """Operator pass: a recipe without a router (one aggregated `sglang` worker serving port 8000) showed `Router
    sglang → sglang-router` while its plan had only `agg_0:8000`: Select.set_options keeps the old list's label when
    the first option has the value already selected (`sglang`, routed for two workers, direct for one)."""
    app = make_app(MI300X_DIRECT.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, MI300X_DIRECT, "topology", typed=False)
        select: Select[str] = app.screen.query_one("#router-select", Select)
        hint = app.screen.query_one("#router-hint", Static)

        def shown() -> str:
            return _text(select.query_one("#label", Static)).strip()

        assert (select.value, shown(), hint.display) == ("sglang", "no router: worker serves", True)
        await _type(pilot, "#agg-workers", "2")
        assert (select.value, shown(), hint.display) == ("sglang", "sglang → sglang-router", False)
        await _type(pilot, "#agg-workers", "1")
        assert (select.value, shown(), hint.display) == ("sglang", "no router: worker serves", True)
        screen = app.screen
        assert isinstance(screen, LaunchScreen) and screen.state.prepared is not None
        assert [w.name for w in screen.state.prepared.plan.workers] == ["agg_0"]
        assert "sglang_router" not in screen.state.prepared.script


async def _type(pilot: Pilot[None], selector: str, text: str) -> None:
    from tests.tui.scenarios import type_into

    await type_into(pilot, selector, text)
    await settle(pilot)


def _script_or_none(pilot: Pilot[None]) -> str:
    screen = pilot.app.screen
    assert isinstance(screen, LaunchScreen)
    prepared = screen.state.prepared
    return prepared.script if prepared is not None else ""


async def test_a_preset_that_cannot_run_says_why() -> None:
    """`frontend.type: vllm` serves one worker directly: agg2 and agg4 say "no router", not "type does not
    fit"; with a router chosen they fit."""
    folder = Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "recipes"
    folder.mkdir(parents=True, exist_ok=True)
    text = (RECIPES_DIR / "mocker" / "mocker-agg-direct.yaml").read_text(encoding="utf-8")
    (folder / "agg-vllm-direct.yaml").write_text(
        text.replace("name: mocker-agg-direct", "name: agg-vllm-direct").replace("type: sglang", "type: vllm"),
        encoding="utf-8",
    )
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, Scenario("vllm-direct", "local", "agg-vllm-direct"), "topology", typed=False)
        presets = app.screen.query_one("#presets", OptionList)

        def notes() -> dict[str, str]:
            return {
                str(o.prompt).split()[0]: str(o.prompt)
                for o in (presets.get_option_at_index(i) for i in range(presets.option_count))
            }

        assert notes()["agg2"].endswith("✗ no router (frontend vllm)"), notes()
        assert "does not fit" not in " ".join(notes().values())
        await _choose_router(pilot, "vllm-router")
        assert not any("✗" in n for n in notes().values()), notes()


async def test_breadcrumbs_follow_a_changed_profile_and_recipe() -> None:
    scenario = SCENARIOS["nvidia"]
    app = make_app(scenario.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "preview", typed=False)
        bar = app.screen.query_one(StepBar)
        assert bar.note == "nvidia-h100 · h100-2p1d-sglang · 2P1D"
        for _ in range(4):  # to Topology, the recipes (still filtered as chosen), the filter closed, the profiles
            await pilot.press("escape")
            await settle(pilot)
        assert bar.current == 0
        await pilot.press("down", "down", "enter")  # another profile
        await settle(pilot)
        assert bar.current == 1 and bar.reached == 1
        assert bar.note == "nvidia-h200", bar.note  # the recipe was chosen for the other profile
        await pilot.press("down", "enter")
        await settle(pilot)
        first = bar.note
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("down", "enter")  # another recipe
        await settle(pilot)
        assert bar.note != first and bar.note.startswith("nvidia-h200 · ") and bar.reached == 2


async def test_the_sbatch_tab_names_where_each_directive_comes_from() -> None:
    scenario = SCENARIOS["nvidia"]
    app = make_app(scenario.profile)
    async with app.run_test(size=(160, 40)) as pilot:
        await reach(pilot, scenario, "preview", typed=False)
        app.screen.query_one("#preview-tabs", TabbedContent).active = "tab-sbatch"
        await settle(pilot)
        shown = _text(app.screen.query_one("#directives", Static)).splitlines()
        lines = {line.split()[1]: line for line in shown if "#SBATCH" in line}
        assert lines["--account"].rstrip().endswith("profile (default_account)")
        assert lines["--time"].rstrip().endswith("profile (default_time_limit)")
        assert lines["--partition"].rstrip().endswith("profile (default_partition)")
        assert lines["--nodes"].rstrip().endswith("srt-tui (topology)")


def _text(widget: Static) -> str:
    """What the widget shows, as plain text."""
    from rich.console import Console

    console = Console(width=160, record=True, color_system=None)
    console.print(widget.content)
    return console.export_text()


async def test_submit_to_an_unreachable_slurm_says_the_tui_fix_and_updates_the_header(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check said Slurm answers, then the submit finds no controller (a config that names none): the
    fix names the launcher choice on screen, not `--launcher local`, and the header turns ✗."""
    monkeypatch.setenv("SLURM_CONF", str(tmp_path / "no-such-slurm.conf"))
    paths_found(monkeypatch)  # the profile's /lustre model: this test is about Slurm
    scenario = SCENARIOS["nvidia"]
    app = make_app(scenario.profile, probe=(True, "sinfo answered"))
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        assert app.hub.context.slurm_state == "up"
        app.screen.query_one("#submit", Button).press()
        await settle(pilot)
        status = str(app.screen.query_one("#submit-status", Static).content)
        assert "nothing was submitted" in status or "Slurm" in status, status
        assert "choose Local (this machine)" in status and "--launcher" not in status, status
        assert app.hub.context.slurm_state == "down"
        # the choice stays the operator's: Slurm, and Submit now says it cannot (issue 21 defect 1)
        assert app.screen.query_one("#request-box").border_title == "What Slurm will be asked"
        assert app.screen.query_one("#submit", Button).disabled
