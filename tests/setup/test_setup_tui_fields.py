"""Issue 21: the TUI's Setup probed (the probe job too) before checking its fields, while `setup --probe` checks
them first (`choice_problems`, relative `--path`): the same check runs before probing, and a problem is shown on
its field (red, its tooltip says it), nothing being probed."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from srt_tui.setup.probes import ProbeOptions, ProbeRun
from srt_tui.tui.setup.screen import SetupScreen
from tests.setup.recorded import recorded_runner, setup_app
from tests.tui.scenarios import settle


@pytest.fixture(autouse=True)
def _no_animation(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    monkeypatch.chdir(tmp_path)


class _Counting:
    """The recorded runner, counting its runs."""

    def __init__(self) -> None:
        self.runs = 0

    def __call__(self, options: ProbeOptions, progress: object) -> ProbeRun:
        self.runs += 1
        return recorded_runner(options, progress)  # type: ignore[arg-type]


async def test_a_bad_profile_name_is_shown_on_its_field_and_nothing_is_probed() -> None:
    runner = _Counting()
    app = setup_app(runner=runner)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        await pilot.click("#run-probes")
        await settle(pilot)
        assert runner.runs == 1
        name = screen.query_one("#choice-name", Input)
        name.value = "../x"
        await pilot.pause()
        await pilot.click("#back")  # Probe again
        await pilot.pause()
        screen.action_run_probes()
        await settle(pilot)
        assert runner.runs == 1  # refused before any probe, as `setup --probe --name ../x` is
        assert name.has_class("-invalid") and "must be a plain file name" in str(name.tooltip), name.tooltip
        assert screen.query_one("#setup-switcher").current == "setup-review"  # type: ignore[attr-defined]
        assert screen.focused is name
        name.value = "lab"
        await pilot.pause()
        assert not name.has_class("-invalid") and name.tooltip is None  # fixed: the field says nothing more
        screen.action_run_probes()
        await settle(pilot)
        assert runner.runs == 2


async def test_a_relative_shared_path_is_shown_on_its_field_and_nothing_is_probed() -> None:
    runner = _Counting()
    app = setup_app(runner=runner)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        paths = screen.query_one("#opt-paths", Input)
        paths.value = "/shared/models models"
        await pilot.click("#run-probes")
        await settle(pilot)
        assert runner.runs == 0
        assert paths.has_class("-invalid") and "`models` is relative" in str(paths.tooltip), paths.tooltip
        assert screen.focused is paths
        paths.value = "/shared/models"
        await pilot.pause()
        assert not paths.has_class("-invalid")
        await pilot.click("#run-probes")
        await settle(pilot)
        assert runner.runs == 1
