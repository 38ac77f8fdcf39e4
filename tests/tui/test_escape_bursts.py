"""Enter and Esc in one burst (issue 21, new-operator pass): `tmux send-keys Enter Escape Enter Escape` is one read
of the terminal, and each key acts in order on the screen that is current when it comes.

Textual's parser holds `ESC CR` undecided until the next byte; an Esc as that byte made it re-issue the held pair as
text, the Esc as a literal `^`. The Monitor then read Enter (open the job), `^` (nothing), Enter (the worker's
detail), Esc (closed it): the job view, where the operator meant the jobs list. Every burst here goes through the
parser the app's terminal driver reads with (`terminal_keys`), all its keys queued before the first is handled.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import ContentSwitcher, Input

from srt_tui.tui.launch.screen import LaunchScreen
from srt_tui.tui.monitor.screen import MonitorScreen
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import NVIDIA, reach, settle
from tests.tui.tui_helpers import burst, make_app, terminal_keys

ENTER, ESC = "\r", "\x1b"


async def _read(pilot: Pilot[Any], raw: str) -> None:
    """``raw`` as one read of the app's terminal: every key it makes is queued before the first is handled."""
    for key in terminal_keys(pilot.app, raw):
        pilot.app.post_message(key)
    await settle(pilot)


@pytest.mark.parametrize(
    ("raw", "keys"),
    [
        (ENTER + ESC + ENTER + ESC, ["enter", "escape", "enter", "escape"]),
        ((ENTER + ESC) * 3, ["enter", "escape"] * 3),
        (ESC + ENTER + ESC + ENTER, ["escape", "enter", "escape", "enter"]),
        (ESC + ENTER, ["escape", "enter"]),
        (ESC + "x" + ESC, ["escape", "x", "escape"]),  # an Esc held with a letter, then an Esc: never a `^`
        ("^" + ESC + "^", ["circumflex_accent", "alt+circumflex_accent"]),  # a `^` typed stays one
        (ESC + ESC + "3", ["escape", "alt+3"]),  # not `£` (Textual's macOS Option character), a mode key with no Esc
        (ESC + "-" + ESC + "=", ["alt+minus", "alt+equals_sign"]),  # not `–` and `≠` typed into a field
    ],
)
async def test_every_esc_in_a_read_is_an_esc(raw: str, keys: list[str]) -> None:
    app = frozen_app([frozen.nvidia()])
    async with app.run_test(size=(120, 36)):
        assert [k.key for k in terminal_keys(app, raw)] == keys


#: bursts typed on the jobs list, and whether the job view is shown after them (nothing open on top)
ON_THE_LIST = [
    (ENTER + ESC + ENTER + ESC, False),
    ((ENTER + ESC) * 3, False),
    (ESC + ENTER, True),  # nothing to go back from, then the job opens
    (ENTER + ESC + ENTER, True),
]
#: bursts typed in the job view (its worker table focused: Enter opens the worker's detail, Esc closes it)
IN_THE_JOB_VIEW = [
    (ENTER + ESC, True),
    (ESC + ENTER, True),  # back to the list, and the job again
    (ENTER + ESC + ESC, False),
    (ENTER + ESC + ENTER + ESC + ESC, False),
]


@pytest.mark.parametrize(("raw", "job_view"), ON_THE_LIST)
async def test_a_burst_on_the_jobs_list_acts_key_by_key(raw: str, job_view: bool) -> None:
    app = frozen_app([frozen.nvidia()])
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        monitor = app.screen
        assert isinstance(monitor, MonitorScreen) and not monitor.in_job_view
        await _read(pilot, raw)
        assert app.screen_stack == [monitor], app.screen_stack  # nothing left open on top
        assert monitor.in_job_view is job_view


@pytest.mark.parametrize(("raw", "job_view"), IN_THE_JOB_VIEW)
async def test_a_burst_in_the_job_view_acts_key_by_key(raw: str, job_view: bool) -> None:
    app = frozen_app([frozen.nvidia()])
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        monitor = app.screen
        assert isinstance(monitor, MonitorScreen) and monitor.in_job_view
        await _read(pilot, raw)
        assert app.screen_stack == [monitor], app.screen_stack  # nothing left open on top
        assert monitor.in_job_view is job_view


def _step(app: Any) -> str:
    screen = app.screen
    assert isinstance(screen, LaunchScreen), app.screen_stack
    return str(screen.query_one("#steps", ContentSwitcher).current)


#: (the Launch step the burst is typed on, the burst, the step it ends on)
ON_LAUNCH = [
    ("recipe", ENTER + ESC + ENTER + ESC, "step-recipe"),
    ("recipe", (ENTER + ESC) * 3, "step-recipe"),
    ("recipe", ESC + ENTER, "step-recipe"),  # the profile list, and the profile chosen again
    ("topology", ESC + ENTER + ESC + ENTER, "step-topology"),
    ("topology", (ENTER + ESC) * 3, "step-recipe"),
    ("preview", ESC + "\x0e" + ESC + "\x0e", "step-preview"),  # Esc, ^N twice: back and on, twice
]


@pytest.mark.parametrize(("step", "raw", "ends"), ON_LAUNCH)
async def test_a_burst_on_a_launch_step_acts_key_by_key(step: str, raw: str, ends: str) -> None:
    app = make_app(NVIDIA.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, NVIDIA, step, typed=False)
        assert _step(app) == f"step-{step}"
        fields = {f.id: f.value for f in app.screen.query(Input)}
        await _read(pilot, raw)
        assert _step(app) == ends
        assert all("^" not in f.value for f in app.screen.query(Input)), fields  # no Esc typed as `^`


@pytest.fixture
def held_profiles(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """The Profile step's list is read only once the returned event is set (set at the end in any case)."""
    from srt_tui.core.spec import profile

    gate = threading.Event()
    real = profile.list_profile_files

    def held() -> list[Any]:
        gate.wait(30)
        return real()

    monkeypatch.setattr(profile, "list_profile_files", held)
    yield gate
    gate.set()


async def _back_to_the_loading_profiles(pilot: Pilot[Any]) -> None:
    """From the recipe list (`-p` given), `Esc Enter` in one burst, while the profile list loads."""
    await reach(pilot, NVIDIA, "recipe", typed=False)
    burst(pilot.app, "escape", "enter")
    for _ in range(20):
        await pilot.pause()
    assert _step(pilot.app) == "step-profile"


async def test_esc_enter_while_the_profile_list_loads_waits_for_it(held_profiles: threading.Event) -> None:
    """With `-p` the Profile step is read only when Esc goes back to it. `Esc Enter` in one read: the Enter reached
    the recipe list, hidden but still focused while the profile list loaded (a loading table takes no focus), and
    went on to the Topology step. The Enter waits for the list and chooses there."""
    app = make_app(NVIDIA.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await _back_to_the_loading_profiles(pilot)
        assert app.focused is None, app.focused  # not the hidden recipe list
        held_profiles.set()
        await settle(pilot)
        assert _step(app) == "step-recipe"  # the Enter chose the highlighted profile
        assert isinstance(app.screen, LaunchScreen) and app.screen.state.profile is not None


async def test_a_key_never_reaches_a_step_left(monkeypatch: pytest.MonkeyPatch, held_profiles: threading.Event) -> None:
    """Keys that no longer wait (a list slower than `HoldKeys` allows; here the hold is off): the Enter after Esc went
    to the recipe list, hidden but focused until the next repaint, and on to the Topology step. The step left keeps
    no focus, so that Enter does nothing."""
    from srt_tui.tui.launch.steps.profile_step import ProfileStep

    monkeypatch.setattr(ProfileStep, "hold_keys", lambda self: None)
    app = make_app(NVIDIA.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await _back_to_the_loading_profiles(pilot)
        held_profiles.set()
        await settle(pilot)
        assert _step(app) == "step-profile"


#: `A /zz Enter Esc`, then 60 ms later (within Textual's 100 ms wait after an Esc) `Esc 3`: three reads
ESC_ESC_3 = ("A/zz" + ENTER + ESC, ESC, "3")


def test_a_second_esc_read_with_a_digit_stays_an_esc() -> None:
    """The second Esc waited for its key; the `3` came within the wait and Textual read `ESC 3` as `£`."""
    app = make_app(NVIDIA.profile)
    keys = terminal_keys(app, *ESC_ESC_3)
    assert [(k.key, k.character) for k in keys[-3:]] == [("enter", ENTER), ("escape", ESC), ("alt+3", "3")]


async def _launch_after(keys: list[Any]) -> tuple[str, str]:
    """The mode after ``keys`` typed on the recipe list (each handled in turn), and the Launch step `1` goes back to."""
    app = make_app(NVIDIA.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, NVIDIA, "recipe", typed=False)
        for key in keys:
            app.post_message(key)
        await settle(pilot)
        mode = app.current_mode
        await pilot.press("1")
        await settle(pilot)
        return mode, _step(app)


async def test_esc_esc_3_typed_fast_leaves_the_step_then_switches() -> None:
    """`A /zz Enter Esc Esc 3` with the second Esc 60 ms after the first (op13): the `£` the terminal driver read
    switched to Setup with no Esc, and Launch stayed on the recipe list. The first Esc closes the filter, the second
    goes back to the Profile step, as a lone Esc would, and `3` switches to Setup."""
    app = make_app(NVIDIA.profile)
    fast = await _launch_after(terminal_keys(app, *ESC_ESC_3))
    slow = await _launch_after([k for raw in "".join(ESC_ESC_3) for k in terminal_keys(app, raw)])  # a read a key
    assert fast == slow == ("setup", "step-profile")
