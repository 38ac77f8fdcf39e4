"""Mode keys and inputs: digits are text while an input has focus and switch modes otherwise; a fast
Esc then a digit (which arrives as one Alt key, e.g. `™` for Alt+2) switches modes and is never typed;
Setup stays on its probe step when a probe failed and never calls that result a valid profile."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from textual import events
from textual.widgets import ContentSwitcher, Input, Static

from srt_tui.setup.findings import Finding
from srt_tui.setup.probes import ProbeOptions, ProbeRun, Progress
from srt_tui.tui.setup.screen import SetupScreen
from tests.setup.recorded import recorded_run, recorded_runner, setup_app
from tests.tui.scenarios import NVIDIA, reach, settle
from tests.tui.tui_helpers import make_app, terminal_keys


@pytest.fixture(autouse=True)
def _scratch(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    monkeypatch.chdir(tmp_path)


async def test_digits_type_into_a_focused_input_and_switch_modes_otherwise() -> None:
    app = setup_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.click("#run-probes")
        await settle(pilot)
        field = app.screen.query_one("#choice-time_limit", Input)
        field.focus()
        await pilot.press(*"02:00:00")
        assert field.value == "02:00:00" and app.current_mode == "setup"
        await pilot.press("escape")  # leaves the input: now a digit is a mode key
        assert not isinstance(app.focused, Input)
        await pilot.press("2")
        assert app.current_mode == "monitor"
        assert field.value == "02:00:00"


@pytest.mark.parametrize(("raw", "mode"), [("\x1b1", "launch"), ("\x1b2", "monitor"), ("™", "monitor")])
async def test_esc_then_a_digit_arriving_as_one_key_switches_mode_and_types_nothing(raw: str, mode: str) -> None:
    """A fast `ESC 2` is one key, `alt+2` (Textual's own parser read `™`): Esc leaves the field, `2` switches. The
    `™` macOS's Option+2 types is a mode key too, not text."""
    app = setup_app()
    async with app.run_test(size=(120, 36)) as pilot:
        partition = app.screen.query_one("#opt-partition", Input)
        partition.focus()
        await pilot.press("g", "p", "u")
        for event in terminal_keys(app, raw):  # what the terminal driver would post
            assert isinstance(event, events.Key) and event.is_printable
            app.post_message(event)
        await settle(pilot)
        assert partition.value == "gpu"
        assert app.current_mode == mode


def _failed_runner(options: ProbeOptions, progress: Progress) -> ProbeRun:
    """The recorded run, but the partition asked for does not exist."""
    recorded_runner(options, progress)
    run = recorded_run()
    bad = Finding.bad("partitions", "partition ™ does not exist", "choose one of: gpu")
    return dataclasses.replace(run, findings=[*run.findings, bad])


async def test_a_failed_probe_stays_on_the_probe_step_and_is_not_a_valid_profile() -> None:
    app = setup_app(runner=_failed_runner)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        await pilot.click("#run-probes")
        await settle(pilot)
        assert screen.query_one("#setup-switcher", ContentSwitcher).current == "setup-probe"
        evidence = str(screen.query_one("#evidence", Static).render())
        assert "valid profile" not in evidence
        assert screen.proposal is not None and any("partition ™ does not exist" in p for p in screen.proposal.problems)
        assert screen.query_one("#write-profile").disabled


async def test_esc_then_a_digit_with_help_open_closes_help_then_switches_and_help_opens_again() -> None:
    """Operator pass 4: `?`, then `ESC 2` in one read, then `?` crashed (DuplicateIds: the first Help was left open
    under the mode switched away from). Esc closes Help, the digit switches, and Help opens again."""
    from srt_tui.tui.help_screen import HelpScreen

    app = setup_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        for event in terminal_keys(app, "\x1b2"):
            app.post_message(event)
        await settle(pilot)
        assert app.current_mode == "monitor" and not isinstance(app.screen, HelpScreen)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("1")  # Help is modal: no mode key reaches the app under it
        await pilot.press("escape", "3")
        await settle(pilot)
        assert app.current_mode == "setup"
        assert not any(isinstance(s, HelpScreen) for s in app.screen_stack)


async def test_esc_then_a_letter_in_one_read_is_esc_then_the_letter() -> None:
    """`ESC r` arrives as `alt+r` with the character `r`: it was typed into the field (`gpur`). It is Esc (the
    field loses the focus), then `r`, as typed."""
    app = setup_app()
    async with app.run_test(size=(120, 36)) as pilot:
        partition = app.screen.query_one("#opt-partition", Input)
        partition.focus()
        await pilot.press("g", "p", "u")
        app.post_message(events.Key("alt+r", "r"))
        await settle(pilot)
        assert partition.value == "gpu"
        assert app.focused is not partition


async def test_esc_then_ctrl_n_in_one_read_goes_back_then_on_and_submits_nothing() -> None:
    """`tmux send-keys Escape C-n` (or a burst over ssh) is one read: Textual's parser kept only `ctrl+n`, so on the
    Preview it went on to Submit, and on Submit it submitted the job the Esc was to leave. It is Esc (back to the
    Topology), then ^N (the Preview again)."""
    app = make_app(NVIDIA.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, NVIDIA, "preview", typed=False)
        steps = app.screen.query_one("#steps", ContentSwitcher)
        assert steps.current == "step-preview"
        keys = terminal_keys(app, "\x1b\x0e")
        assert [k.key for k in keys] == ["escape", "ctrl+n"]
        for key in keys:
            app.post_message(key)
        await settle(pilot)
        assert steps.current == "step-preview"
