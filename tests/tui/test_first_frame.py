"""The first frame (issue 22: the first screen within srtctl's first prompt, a screenful of recipes in <= 0.5 s), as
mechanisms rather than times: nothing is rendered and thrown away while the app starts, the rows the reader process
sent by then are in the first frame (no loading indicator comes and goes), the first screen composes no hidden
filter field and recomposes its footer only when its keys change, and it imports none of what it does not show."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from rich.console import RenderableType
from textual import on
from textual.app import App
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Input, LoadingIndicator, Tree
from textual.widgets._footer import FooterKey

from srt_tui.tui.app import SrtTuiApp
from srt_tui.tui.launch import recipe_catalog, recipe_reader
from srt_tui.tui.launch.recipe_catalog import SCREENFUL, LibraryRoot, RecipeEntry, library_roots
from srt_tui.tui.launch.recipe_reader import RecipeReader
from srt_tui.tui.launch.screen import LaunchScreen
from srt_tui.tui.launch.steps.profile_step import ProfileStep
from srt_tui.widgets.fit_footer import FitFooter
from tests.tui.scenarios import NVIDIA, reach, settle
from tests.tui.test_recipe_library import _leaves, _user_library, make_library
from tests.tui.tui_helpers import FIXED_NOW, make_app


@pytest.fixture(autouse=True)
def _no_reader_left() -> Any:
    yield
    reader, recipe_reader._early = recipe_reader._early, None
    if reader is not None:
        reader.close()


def _frames(monkeypatch: pytest.MonkeyPatch, seen: Any = None) -> list[tuple[bool, bool]]:
    """Every frame Textual hands to the terminal: (the app had started, something was rendered); `seen(app)` is
    called at the first one drawn. The app has started once its start-up batch has ended (Textual throws away a frame
    rendered during a batch: `App._display`), or a frame was drawn (later batches are Textual's ordinary ones)."""
    frames: list[tuple[bool, bool]] = []
    display = App._display

    def recording(app: App[Any], screen: Screen[Any], renderable: RenderableType | None) -> None:
        drawn = renderable is not None and not app._batch_count
        first = not any(s and d for s, d in frames)
        if drawn and seen is not None and first:
            seen(app)
        frames.append((not first or not app._batch_count, renderable is not None))
        display(app, screen, renderable)

    monkeypatch.setattr(App, "_display", recording)
    return frames


@pytest.mark.parametrize("profile", ["local", None], ids=["recipes", "profiles"])
async def test_no_frame_is_rendered_before_the_app_has_started(monkeypatch: pytest.MonkeyPatch, profile: str) -> None:
    """Textual rendered the first screen two or three times while the app was starting and threw each frame away
    (nothing is drawn then): a mode's screen renders once the app has started, and that frame is drawn."""
    frames = _frames(monkeypatch)
    async with make_app(profile).run_test(size=(120, 36)) as pilot:
        await settle(pilot)
    assert [f for f in frames if not f[0] and f[1]] == []  # rendered while starting
    assert (True, True) in frames


class _Queued(Message):
    """Posted to the app before it starts: read only after every start-up message (the reader's rows, focus)."""


async def test_the_held_frame_is_drawn_before_the_app_reads_what_was_queued_while_it_started(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A frame held while the app starts is drawn as the start-up batch ends, not at a turn of the app's queue:
    messages posted while it starts (16 for `-p local`) were read first, and under load the first frame waited
    behind them (CI: the Slurm check's 2 s fallback fired before any frame, or the frame was drawn inside the
    shutdown's batch). When the app reads a message queued before it started, no frame is held that could reach
    the terminal: one is held only while a batch of updates is still open (a footer's recompose holds one across the
    start-up batch's end, and Textual would throw that frame away)."""
    frames = _frames(monkeypatch)
    held_when_read: list[bool] = []

    class Queued(SrtTuiApp):
        @on(_Queued)
        def _read(self) -> None:
            screen = self.screen
            held = isinstance(screen, LaunchScreen) and screen._frame_held
            held_when_read.append(held and not self._batch_count)

    app = Queued(profile="local", clock=lambda: FIXED_NOW, check_slurm=False, cursor_blink=False)
    app.post_message(_Queued())
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
    assert held_when_read == [False]
    assert (True, True) in frames


def _no_scan(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The screen's scan worker replaced by a no-op (its readers kept to close): rows come only from what the
    reader had sent when the screen took it."""
    readers: list[Any] = []

    def scan(screen: LaunchScreen, scan: int, roots: Any, reader: Any = None, taken: Any = None) -> None:
        readers.append(reader)

    monkeypatch.setattr(LaunchScreen, "scan_recipes", scan)
    return readers


async def test_rows_the_reader_sent_before_the_screen_mounts_are_in_the_first_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A reader ahead of the app (a warm cache answers in ~0.1 s, the app paints in ~0.3 s) has its first screenful
    in the first frame: it was drawn without rows (a loading indicator) and the rows came in a frame after it."""
    make_library(_user_library(), folders=3, per_folder=4)
    recipe_reader.start_early()
    early = recipe_reader._early
    assert early is not None
    early.proc.wait(timeout=60)  # everything it had to say is in the pipe
    readers = _no_scan(monkeypatch)
    first: list[tuple[int, int]] = []

    def seen(app: App[Any]) -> None:
        tree = app.screen.query_one("#recipe-tree", Tree)
        first.append((len(_leaves(tree)), len(app.screen.query(LoadingIndicator))))

    _frames(monkeypatch, seen)
    try:
        async with make_app("local").run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            screen = pilot.app.screen
            assert isinstance(screen, LaunchScreen) and len(screen.state.library.entries) >= SCREENFUL
    finally:
        for reader in readers:
            if reader is not None:
                reader.close()
    assert first and first[0][0] >= SCREENFUL and first[0][1] == 0


async def test_the_rest_of_the_library_waits_for_the_first_screenful_to_be_painted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A warm reader sends the whole library at once (srtctl's: ~700 rows in one line): the scan read and parsed it,
    and the screen took its rows, while the first frame was due, or before it. With a screenful of rows in hand the
    scan reads no more until they are painted; then it reads the rest."""
    jobs = make_library(_user_library(), folders=6, per_folder=5)
    recipe_reader.start_early()
    early = recipe_reader._early
    assert early is not None
    early.proc.wait(timeout=60)  # everything it had to say is in the pipe
    parsed: list[bool] = []
    parse = RecipeReader._parse

    def parsing(line: bytes) -> Any:
        parsed.append(threading.current_thread() is threading.main_thread())
        return parse(line)

    monkeypatch.setattr(RecipeReader, "_parse", staticmethod(parsing))
    first: list[tuple[int, int]] = []

    def seen(app: App[Any]) -> None:
        screen = app.screen
        assert isinstance(screen, LaunchScreen)
        first.append((len(screen.state.library.entries), parsed.count(False)))

    _frames(monkeypatch, seen)
    async with make_app("local").run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, LaunchScreen)
        tree = screen.query_one("#recipe-tree", Tree)
        assert len([x for x in _leaves(tree) if x.startswith(("r", "same", "variants", "broken"))]) == jobs
    rows, read_by_the_scan = first[0]
    assert rows >= SCREENFUL and read_by_the_scan == 0  # the screenful taken for the frame, nothing more yet
    assert parsed.count(False) > 0  # the scan read the rest after it


async def test_profile_rows_the_reader_sent_before_the_screen_mounts_are_in_the_first_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The profile list's rows too; the profile models (pydantic, ~0.2 s) are warmed after that frame, not during."""
    recipe_reader.start_early(profiles=True)
    early = recipe_reader._early
    assert early is not None
    early.proc.wait(timeout=60)
    readers = _no_scan(monkeypatch)
    first: list[tuple[int, int]] = []
    frames = _frames(monkeypatch, lambda app: first.append((len(app.screen.query_one(ProfileStep).rows), 0)))
    warmed: list[int] = []
    monkeypatch.setattr(ProfileStep, "_warm_models", lambda step: warmed.append(len(frames)))
    try:
        async with make_app(None).run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            assert not pilot.app.screen.query_one("#profile-table", DataTable).loading
    finally:
        for reader in readers:
            if reader is not None:
                reader.close()
    assert first and first[0][0] > 0
    assert warmed and warmed[0] > 0


def test_ready_takes_whole_lines_and_batches_goes_on_from_there() -> None:
    """`ready` takes what the reader has sent without waiting (up to `enough` entries), keeps the start of a line
    not whole yet, and `batches` reads on from there: nothing lost, nothing twice."""

    def batch(i: int, total: int = 4) -> str:
        entry = RecipeEntry("f", f"r{i}", f"/l/r{i}.yaml", f"r{i}.yaml").facts()
        return json.dumps({"read": i, "total": total, "entries": [entry]})

    script = textwrap.dedent(
        f"""
        import sys
        out = sys.stdout
        out.write({batch(1)!r} + "\\n" + {batch(2)!r} + "\\n" + {batch(3)[:20]!r}); out.flush()
        sys.stdin.readline()
        out.write({batch(3)[20:]!r} + "\\n" + {batch(4)!r} + "\\n"); out.flush()
        """
    )
    with tempfile.TemporaryFile() as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr
        )
        reader = RecipeReader([LibraryRoot("user", Path("/l"))], proc, stderr)
        try:
            got: list[Any] = []
            deadline = time.monotonic() + 30
            while len(got) < 2 and time.monotonic() < deadline:
                got += reader.ready(enough=1)  # one entry is enough: the second line waits for the next call
                time.sleep(0.01)
            assert [[e.label for e in entries] for entries, _, _ in got] == [["r1"], ["r2"]]
            time.sleep(0.2)
            assert reader.ready(enough=5) == []  # half a line: nothing yet
            assert proc.stdin is not None
            proc.stdin.write(b"go\n")
            proc.stdin.flush()
            rest = [([e.label for e in entries], read) for entries, read, _ in reader.batches()]
            assert rest == [(["r3"], 3), (["r4"], 4)]
        finally:
            reader.close()


async def test_a_reader_that_sent_nonsense_before_the_first_frame_is_let_go() -> None:
    """What the reader sent by the first frame is not a batch: the app lets it go and reads the library itself."""
    jobs = make_library(_user_library(), folders=3, per_folder=3)
    with tempfile.TemporaryFile() as stderr:
        proc = subprocess.Popen([sys.executable, "-c", "print('not a batch', flush=True)"], stdout=subprocess.PIPE,
                                stderr=stderr)  # fmt: skip
        proc.wait(timeout=60)
        recipe_reader._early = RecipeReader(library_roots(), proc, stderr)
        async with make_app("local").run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            tree = pilot.app.screen.query_one("#recipe-tree", Tree)
            assert len([x for x in _leaves(tree) if x.startswith(("r", "same", "variants", "broken"))]) == jobs
        assert recipe_reader._early is None and proc.stdout is not None and proc.stdout.closed


@pytest.mark.parametrize(("profile", "field_id", "listed"), [("local", "#recipe-filter", "#recipe-tree"),
                                                             (None, "#profile-filter", "#profile-table")])  # fmt: skip
async def test_the_filter_field_is_made_at_the_first_slash(profile: str | None, field_id: str, listed: str) -> None:
    """A hidden field composed with the step cost the first frame its widget and styles: it is made by `/`, above
    the list, focused, and kept (hidden) when Esc closes it."""
    async with make_app(profile).run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert not screen.query(field_id) and not screen.query(Input)
        await pilot.press("slash", "x")
        await settle(pilot)
        field = screen.query_one(field_id, Input)
        assert field.has_focus and field.value == "x" and field.display
        siblings = list(field.parent.children) if field.parent is not None else []
        assert siblings.index(field) + 1 == siblings.index(screen.query_one(listed))
        await pilot.press("escape")
        await settle(pilot)
        assert screen.query_one(field_id, Input) is field and not field.display
        await pilot.press("slash")
        await settle(pilot)
        assert screen.query_one(field_id, Input) is field and field.has_focus and field.value == ""


async def test_the_footer_is_composed_anew_only_when_its_keys_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual recomposed every footer key at each change of the screen's bindings, most of which leave the keys as
    they were (a start changes them two or three times, before the first frame). The recipe list's rows come after
    the first frame here (a cold library): its keys reach the footer with them (Textual leaves a loading list's keys
    out of the screen's and said nothing when it had loaded, so they came only at the next change of bindings)."""
    composed: list[int] = []
    recompose = FitFooter.recompose

    async def counting(footer: FitFooter) -> None:
        composed.append(1)
        await recompose(footer)

    monkeypatch.setattr(FitFooter, "recompose", counting)
    rows_may_come = threading.Event()
    scan = recipe_catalog.scan_library

    def slow_scan(*args: Any, **kwargs: Any) -> Any:
        rows_may_come.wait(timeout=60)
        return scan(*args, **kwargs)

    monkeypatch.setattr(recipe_catalog, "scan_library", slow_scan)
    try:
        async with make_app("local").run_test(size=(120, 36)) as pilot:
            footer = pilot.app.screen.query_one(FitFooter)
            tree = pilot.app.screen.query_one("#recipe-tree", Tree)
            for _ in range(500):  # the first frame, its footer composed while the tree waits for its rows
                if footer.query(FooterKey) and tree.loading and tree.has_focus:
                    break
                await pilot.pause(0.01)
            assert footer.query(FooterKey) and tree.loading and tree.has_focus
            assert "open_file" not in {key.action for key in footer.query(FooterKey)}  # a loading list's keys are not
            rows_may_come.set()
            await settle(pilot)
            assert not tree.loading
            assert "open_file" in {key.action for key in footer.query(FooterKey)}  # the list's keys, with its rows
            before = len(composed)
            pilot.app.screen.refresh_bindings()  # nothing changed
            await settle(pilot)
            assert len(composed) == before
            await pilot.press("slash")  # the filter field has the focus: the step's keys leave the footer
            await settle(pilot)
            assert len(composed) == before + 1
            assert "open_file" not in {key.action for key in footer.query(FooterKey)}
    finally:
        rows_may_come.set()


async def test_the_footer_follows_a_reload_of_the_focused_list(monkeypatch: pytest.MonkeyPatch) -> None:
    """`r` on the profile list: while it reloads, its step's keys do nothing (Textual leaves a loading focused
    widget's keys out of the screen's) and leave the footer; they come back with the rows. Textual said neither."""
    from srt_tui.core.spec import profile as profile_module

    listed = threading.Event()
    listed.set()
    list_files = profile_module.list_profile_files

    def slow_list(*args: Any, **kwargs: Any) -> Any:
        listed.wait(timeout=60)
        return list_files(*args, **kwargs)

    monkeypatch.setattr(profile_module, "list_profile_files", slow_list)
    try:
        async with make_app(None).run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            footer = pilot.app.screen.query_one(FitFooter)
            table = pilot.app.screen.query_one("#profile-table", DataTable)
            assert table.has_focus and "reload" in {key.action for key in footer.query(FooterKey)}
            listed.clear()
            await pilot.press("r")
            for _ in range(500):  # the footer recomposed without the step's keys while the list is read again
                if "reload" not in {key.action for key in footer.query(FooterKey)}:
                    break
                await pilot.pause(0.01)
            assert table.loading and "reload" not in {key.action for key in footer.query(FooterKey)}
            listed.set()
            await settle(pilot)
            assert not table.loading and "reload" in {key.action for key in footer.query(FooterKey)}
    finally:
        listed.set()


async def test_a_footer_key_is_styled_once_as_it_mounts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual's footer keys started compact and their binding to the footer's `compact` then undid it: two restyles
    of every key at every compose (most of the first frame's style updates)."""
    toggled: list[str] = []
    watch = FooterKey._watch_compact

    def watching(key: FooterKey, compact: bool) -> None:
        if key.has_class("-compact") != compact and key.action != "command_palette":  # compact, and not bound
            toggled.append(key.action)
        watch(key, compact)

    monkeypatch.setattr(FooterKey, "_watch_compact", watching)
    async with make_app("local").run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        keys = list(pilot.app.screen.query_one(FitFooter).query(FooterKey).results())
        assert len(keys) > 4 and not any(key.has_class("-compact") for key in keys if key.action != "command_palette")
    assert toggled == []


FIRST_FRAME = r"""
import json, sys
from textual import on
from textual.app import App
from textual.message import Message
from srt_tui.cli.main import _settle_interrupted
from srt_tui.tui.app import SrtTuiApp
from srt_tui.tui.launch.recipe_reader import start_early

display = App._display
seen = []

def drawn(app, screen, renderable):
    if renderable is not None and not app._batch_count and not seen:
        seen.append(sorted(sys.modules))
        app.call_later(app.exit)
    return display(app, screen, renderable)

App._display = drawn
start_early(profiles=not sys.argv[1])  # as `srt-tui` starts the app: the reader first, then the held-jobs check
from srt_tui.tui.launch import recipe_reader
recipe_reader._early.proc.wait(timeout=60)  # a reader ahead of the app: its rows are taken for the first frame
_settle_interrupted("auto")
SrtTuiApp(profile=sys.argv[1] or None, check_slurm=False, cursor_blink=False).run(headless=True, size=(120, 36))
print(json.dumps(seen[0]))
"""

#: what the first screen shows nothing of: the held-jobs check's Slurm layer (when nothing is held: a directory
#: listing), ctypes (one rename in `owned`), Rich's emoji table (a tree label read as markup), the models
NOT_AT_FIRST_FRAME = (
    "ctypes",
    "getpass",
    "rich._emoji_codes",
    "srt_tui.slurm.client",
    "srt_tui.core.owned",
    "pydantic",
)


@pytest.mark.parametrize("profile", ["local", ""], ids=["recipes", "profiles"])
def test_the_first_screen_imports_nothing_it_does_not_show(profile: str) -> None:
    env = {**os.environ, "TEXTUAL_ANIMATIONS": "none"}
    out = subprocess.run([sys.executable, "-c", FIRST_FRAME, profile], capture_output=True, text=True, env=env,
                         timeout=120, check=True).stdout  # fmt: skip
    modules = set(json.loads(out.splitlines()[-1]))
    assert "srt_tui.tui.launch.screen" in modules  # it was the first screen's frame
    # the profile table's facts and columns, which the recipe list does not show (the reader's batches imported them)
    unshown = NOT_AT_FIRST_FRAME + (
        ("srt_tui.tui.launch.profile_facts", "srt_tui.widgets.fit_columns") if profile else ()
    )
    assert sorted(m for m in unshown if m in modules) == []


async def test_the_slurm_check_starts_after_the_first_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check imports the Slurm layer in a thread that shared the interpreter with the first frame: it is started
    once that frame is drawn (and answers as ever)."""
    frames = _frames(monkeypatch)
    started: list[int] = []
    probe = SrtTuiApp.probe_slurm

    def starting(app: SrtTuiApp) -> Any:
        started.append(sum(1 for began, rendered in frames if began and rendered))
        return probe(app)

    monkeypatch.setattr(SrtTuiApp, "probe_slurm", starting)
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.context.slurm_state == "down"
    assert started and started[0] >= 1


async def test_a_later_steps_rules_are_read_when_it_is_first_shown() -> None:
    """The first frame parses the first steps' rules only (Textual parses the screen's stylesheet three times as the
    app starts); Topology's are added when it is reached, and apply (its form's grid is laid out by them)."""
    folder = Path(inspect.getfile(ProfileStep)).parent  # launch/steps/
    later = [str(folder / f"{name}_step.tcss") for name in ("topology", "preview", "submit")]
    app = make_app(NVIDIA.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert [path for path in later if app.stylesheet.has_source(path)] == []
        await reach(pilot, NVIDIA, "topology", typed=False)
        assert [path for path in later if app.stylesheet.has_source(path)] == later[:1]
        assert app.screen.query_one("#role-form").styles.grid_size_columns == 5  # topology_step.tcss: grid-size 5


@pytest.mark.parametrize("profile", ["local", None], ids=["recipes", "profiles"])
async def test_the_first_frame_parses_each_stylesheet_once(
    monkeypatch: pytest.MonkeyPatch, profile: str | None
) -> None:
    """Textual parsed every rule of the app three times before the first frame: as the first screen was registered,
    again when that screen brought its own stylesheet (launch.tcss), and again to style a screen it had not styled
    yet (the second and third from scratch, in a new stylesheet). Each stylesheet is parsed once."""
    from textual.css.stylesheet import Stylesheet

    parsed: list[tuple[Any, ...]] = []
    parse, reparse = Stylesheet._parse_rules, Stylesheet.reparse

    def counted(sheet: Stylesheet, css: str, read_from: Any, *args: Any, **kwargs: Any) -> Any:
        key = (css, read_from, *args, *kwargs.values())
        if key not in sheet._parse_cache:
            parsed.append((read_from, *args, *kwargs.values()))
        return parse(sheet, css, read_from, *args, **kwargs)

    def reparsed(sheet: Stylesheet) -> None:
        parsed.append(("reparse",))
        reparse(sheet)

    monkeypatch.setattr(Stylesheet, "_parse_rules", counted)
    monkeypatch.setattr(Stylesheet, "reparse", reparsed)
    first: list[int] = []
    _frames(monkeypatch, lambda app: first.append(len(parsed)))
    async with make_app(profile).run_test(size=(120, 36)) as pilot:
        await settle(pilot)
    before = parsed[: first[0]]
    assert ("reparse",) not in before
    assert [key for key in set(before) if before.count(key) > 1] == []
    assert any(str(key[0][0]).endswith("launch.tcss") for key in before)


STARTED_AS_SRT_TUI = r"""
import gc, json, os
from textual import on
from textual.app import App
from textual.message import Message
from srt_tui.cli import terminal
from srt_tui.cli.main import main
from srt_tui.tui.app import SrtTuiApp

passes, seen = [], {}
gc.callbacks.append(lambda phase, info: passes.append(info["generation"]) if phase == "start" else None)
display = App._display

def drawn(app, screen, renderable):
    if renderable is not None and not app._batch_count and "frame" not in seen:
        seen["frame"] = len(passes)
    return display(app, screen, renderable)

def after(app):
    plugins = os.environ.get("PYDANTIC_DISABLE_PLUGINS")
    seen.update(enabled=gc.isenabled(), frozen=gc.get_freeze_count(), plugins=plugins)
    app.exit()

run = SrtTuiApp.run
def headless(app, **kw):
    app.after_first_frame(lambda: after(app))
    return run(app, headless=True, size=(120, 36))

App._display, SrtTuiApp.run = drawn, headless
terminal.not_terminals = lambda: []  # as on a terminal (this process's streams are pipes)
main(["-p", "local"])
print(json.dumps(seen))
"""


def _started_as_srt_tui() -> dict[str, Any]:
    """What `STARTED_AS_SRT_TUI` saw of `srt-tui -p local` (headless) at its first frame."""
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"} | {"TEXTUAL_ANIMATIONS": "none"}
    out = subprocess.run([sys.executable, "-c", STARTED_AS_SRT_TUI], capture_output=True, text=True, env=env,
                         timeout=120, check=True).stdout  # fmt: skip
    seen: dict[str, Any] = json.loads(out.splitlines()[-1])
    return seen


def test_the_collector_waits_for_the_first_frame() -> None:
    """Started as `srt-tui` starts it, the app made its first frame with the collector's passes in it (one a full pass
    over everything imported, 25-30 ms): the collector is off until that frame is drawn, then back on with what the
    start made frozen (it lives as long as the process; no pass walks it again)."""
    seen = _started_as_srt_tui()
    assert seen["frame"] == 0  # passes before the first frame
    assert seen["enabled"] and seen["frozen"] > 10_000


def test_the_tui_and_its_reader_look_for_no_pydantic_plugins() -> None:
    """Pydantic looked for plugins (every installed distribution's entry points) as the recipe reader built its first
    model, on the way to the first rows: srt-tui uses none, and the TUI says so to its reader as core commands do."""
    assert _started_as_srt_tui()["plugins"] == "__all__"


@pytest.mark.parametrize("profile", ["local", None], ids=["recipes", "profiles"])
async def test_the_first_screens_widgets_are_styled_once_before_the_first_frame(
    monkeypatch: pytest.MonkeyPatch, profile: str | None
) -> None:
    """Textual styled each widget of the first screen three times before its first frame: as it mounted, again when
    the screen got its width class (`-narrow`/`-wide`) at the first resize, and again as the screen was first shown.
    The screen and the widgets that frame shows are styled once (the list itself may be again, as it takes the focus
    or its loading indicator)."""
    from textual.css.stylesheet import Stylesheet

    styled: dict[int, int] = {}
    apply = Stylesheet.apply
    drawn: list[bool] = []

    def counted(sheet: Stylesheet, node: Any, *args: Any, **kwargs: Any) -> Any:
        if not drawn:
            styled[id(node)] = styled.get(id(node), 0) + 1
        return apply(sheet, node, *args, **kwargs)

    monkeypatch.setattr(Stylesheet, "apply", counted)
    _frames(monkeypatch, lambda app: drawn.append(True))
    async with make_app(profile).run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = pilot.app.screen
        assert screen.has_class("-wide") and not screen.has_class("-narrow")
        shown = [screen, *screen.query("AppHeader, StepBar, ContentSwitcher, FitFooter, .step-hint, #steps > *")]
        assert len(shown) >= 6
        assert {type(node).__name__: styled.get(id(node)) for node in shown} == {
            type(node).__name__: 1 for node in shown
        }


def test_a_screen_made_at_start_gets_the_width_class_textual_would_give_it() -> None:
    """`breakpoint_classes` chooses as Textual's first resize does (its private `Screen._get_breakpoint_classes`): if
    Textual changed its choice, the first screen would be restyled by that resize (the test above counts it)."""
    from srt_tui.tui.mode_screen import breakpoint_classes
    from srt_tui.widgets.layout import BREAKPOINTS

    textual = Screen()._get_breakpoint_classes
    for breakpoints in (BREAKPOINTS, [(10, "-a"), (40, "-b")], []):
        assert [breakpoint_classes(n, breakpoints) for n in range(200)] == [textual(n, breakpoints) for n in range(200)]
