"""Text fields and the mode keys (issue 21, new-operator pass op11, defect 1): `srt-tui setup` opened with the cursor
in the Partition field, so `1` (Help: `1/2/3` switch modes outside a text field) typed `31` there; Esc in a Setup
review field went back to the probes and in a Topology field back to the Recipe step. Setup opens on its button, and
in every text field Esc leaves the field, the step staying, and the next `1`/`2`/`3` switches modes; Help says so."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Input

from srt_tui.tui.app import SrtTuiApp
from srt_tui.tui.help_screen import HelpScreen
from tests.setup.recorded import setup_app
from tests.tui.scenarios import NVIDIA, reach, settle
from tests.tui.tui_helpers import make_app

#: where a test stands: the mode, and the step its switcher shows (the Launch wizard's or Setup's)
Where = tuple[str, str]


def _where(app: SrtTuiApp) -> Where:
    screen = app.screen
    for switcher in ("#steps", "#setup-switcher"):
        found = screen.query(switcher)
        if found:
            return app.current_mode, str(found.first(ContentSwitcher).current)
    return app.current_mode, ""


def _focus_log(monkeypatch: pytest.MonkeyPatch) -> list[Widget]:
    """Every widget focused from now on in any app, in order (the app's own handler keeps running)."""
    seen: list[Widget] = []
    handler = SrtTuiApp.on_descendant_focus

    def record(self: SrtTuiApp, event: events.DescendantFocus) -> None:
        seen.append(event.widget)
        handler(self, event)

    monkeypatch.setattr(SrtTuiApp, "on_descendant_focus", record)
    return seen


async def test_setup_opens_on_its_button_never_in_a_text_field(monkeypatch: pytest.MonkeyPatch) -> None:
    """`srt-tui setup`, and `3` from Launch: Textual focused the Partition field first and Setup's button a turn
    later; a digit typed in between was typed into Partition."""
    seen = _focus_log(monkeypatch)
    app = setup_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert [w.id for w in seen] == ["run-probes"], [w.id for w in seen]
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        seen.clear()
        await pilot.press("3")
        await settle(pilot)
        assert app.current_mode == "setup"
        assert not any(isinstance(w, Input) for w in seen), [w.id for w in seen]
        partition = app.screen.query_one("#opt-partition", Input)
        await pilot.press("1")
        await settle(pilot)
        assert app.current_mode == "launch" and partition.value == ""


async def _probed(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    await pilot.click("#run-probes")
    await settle(pilot)


async def _topology(pilot: Pilot[Any]) -> None:
    await reach(pilot, NVIDIA, "topology", typed=False)


async def _monitor(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    await pilot.press("2")
    await settle(pilot)


#: (id, the app, how it reaches the field's step, the keys that put the focus in the field and type in it, the
#: field, the mode key then pressed)
FIELDS: list[tuple[str, Callable[[], SrtTuiApp], Callable[[Pilot[Any]], Awaitable[None]], tuple[str, ...], str, str]]
FIELDS = [
    ("profile-filter", make_app, settle, ("slash", "l"), "#profile-filter", "2"),
    ("recipe-filter", lambda: make_app("local"), settle, ("slash", "m"), "#recipe-filter", "2"),
    ("topology-field", lambda: make_app(NVIDIA.profile), _topology, ("2",), "#prefill-workers", "2"),
    ("setup-partition", setup_app, settle, ("g",), "#opt-partition", "1"),
    ("setup-paths", setup_app, settle, ("/",), "#opt-paths", "1"),
    *[
        (f"setup-{name}", setup_app, _probed, ("4",), f"#choice-{name}", "1")
        for name in ("name", "account", "time_limit", "max_nodes", "output_dir", "models", "containers")
    ],
    ("monitor-filter", make_app, _monitor, ("slash", "x"), "#jobs-filter", "1"),
]


@pytest.mark.parametrize(("reach_step", "keys", "selector", "mode_key", "make"),
                         [pytest.param(r, k, s, m, a, id=i) for i, a, r, k, s, m in FIELDS])  # fmt: skip
async def test_esc_in_a_text_field_leaves_it_and_the_mode_keys_then_work(
    reach_step: Callable[[Pilot[Any]], Awaitable[None]],
    keys: tuple[str, ...],
    selector: str,
    mode_key: str,
    make: Callable[[], SrtTuiApp],
) -> None:
    app = make()
    async with app.run_test(size=(120, 36)) as pilot:
        await reach_step(pilot)
        if keys[0] != "slash":  # a field the operator Tabs to: focused as Tab leaves it
            app.screen.query_one(selector, Input).focus()
            await settle(pilot)
        await pilot.press(*keys)
        await settle(pilot)
        field = app.screen.query_one(selector, Input)
        assert app.focused is field
        where, typed = _where(app), field.value
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.focused, Input), app.focused
        assert _where(app) == where  # the step stays (the Topology step, Setup's review)
        await pilot.press(mode_key)
        await settle(pilot)
        assert app.current_mode != where[0]
        await pilot.press({"launch": "1", "monitor": "2", "setup": "3"}[where[0]])
        await settle(pilot)
        assert _where(app) == where
        if not selector.endswith("filter"):  # a filter's Esc clears it; a field keeps what was typed
            assert app.screen.query_one(selector, Input).value == typed


@pytest.mark.parametrize(
    ("make", "reach_step", "selector", "says"),
    [
        pytest.param(setup_app, _probed, "#choice-name", "then 1 2 3 switch modes", id="setup-review"),
        pytest.param(setup_app, settle, "#opt-partition", "then 1 2 3 switch modes", id="setup-probe"),
        pytest.param(
            lambda: make_app(NVIDIA.profile), _topology, "#prefill-gpus", "then 1 2 3 switch modes", id="topology"
        ),  # fmt: skip
    ],
)
async def test_help_in_a_text_field_says_esc_leaves_it(
    make: Callable[[], SrtTuiApp], reach_step: Callable[[Pilot[Any]], Awaitable[None]], selector: str, says: str
) -> None:
    """F1 (`?` is text there): Help said `esc  Back to probes` in a review field, where Esc is now the way out of it."""
    app = make()
    async with app.run_test(size=(120, 40)) as pilot:
        await reach_step(pilot)
        app.screen.query_one(selector, Input).focus()
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        esc = [row for row in app.screen.rows if row.key == "esc"]
        assert len(esc) == 1 and "Leave the" in esc[0].description and says in esc[0].description, esc


def _footer(app: SrtTuiApp) -> dict[str, str]:
    """The keys the footer shows and what each says."""
    from textual.widgets._footer import FooterKey

    return {key.key_display: key.description for key in app.screen.query(FooterKey)}


@pytest.mark.parametrize(("reach_step", "keys", "selector", "make"),
                         [pytest.param(r, k, s, a, id=i) for i, a, r, k, s, _ in FIELDS])  # fmt: skip
async def test_the_footer_in_a_text_field_says_how_to_leave_it_and_reach_help(
    reach_step: Callable[[Pilot[Any]], Awaitable[None]],
    keys: tuple[str, ...],
    selector: str,
    make: Callable[[], SrtTuiApp],
) -> None:
    """Operator pass op12: in a Topology count the footer said only `^n Next`, and the `?` a k9s user pressed for
    help was refused as text. In every text field it says what Esc does there and that F1 is Help; outside one,
    `? Help` and no F1."""
    app = make()
    async with app.run_test(size=(120, 36)) as pilot:
        await reach_step(pilot)
        if keys[0] != "slash":
            app.screen.query_one(selector, Input).focus()
            await settle(pilot)
        await pilot.press(*keys)
        await settle(pilot)
        assert isinstance(app.focused, Input)
        shown = _footer(app)
        assert shown.get("f1") == "Help" and "?" not in shown, shown
        assert shown.get("esc") in ("Leave field", "Close filter", "Clear filter", "Back"), shown
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("escape")  # out of the field
        await settle(pilot)
        assert not isinstance(app.focused, Input), app.focused
        shown = _footer(app)
        assert "f1" not in shown, shown


async def test_a_refused_key_in_a_count_says_the_way_out_and_help() -> None:
    """Op12: `?` typed into the prefill workers count was refused with `digits only`, nothing more."""
    app = make_app(NVIDIA.profile)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await _topology(pilot)
        app.screen.query_one("#prefill-workers", Input).focus()
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        toasts = [str(toast.render()) for toast in app.screen.query("Toast")]
        assert toasts == ["Not typed\nprefill workers: digits only (a count)\nEsc leaves the field; F1 help"], toasts
        assert _footer(app).get("esc") == "Leave field"
