"""The recipe library read in a process of its own (issue 21/22: the first screenful of recipes while the app is
still painting): it sends what the in-process scan reads, a warm start imports no recipe model, a reader that
dies or talks nonsense is reported, and the app takes its rows (reading the rest itself when it stops early)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import DataTable

from srt_tui.state.recipe_cache import RecipeCache
from srt_tui.tui.launch import recipe_reader
from srt_tui.tui.launch.recipe_catalog import LibraryRoot, library_roots, scan_library
from srt_tui.tui.launch.recipe_reader import ReaderFailed, RecipeReader
from srt_tui.tui.launch.screen import LaunchScreen
from srt_tui.tui.launch.steps.profile_step import ProfileStep
from srt_tui.tui.launch.steps.recipe_step import RecipeTree
from tests.tui.scenarios import settle
from tests.tui.test_recipe_library import _leaves, _user_library, make_library
from tests.tui.tui_helpers import launch_and_tree, make_app


def _read_all(reader: RecipeReader) -> tuple[list[Any], list[tuple[int, int]]]:
    entries: list[Any] = []
    progress: list[tuple[int, int]] = []
    try:
        for batch, read, total in reader.batches():
            entries += batch
            progress.append((read, total))
    finally:
        reader.close()
    return entries, progress


def test_the_reader_sends_every_row_the_scan_reads(tmp_path: Path) -> None:
    jobs = make_library(tmp_path / "lib", folders=4, per_folder=3)
    roots = [LibraryRoot("user", tmp_path / "lib")]
    reader = RecipeReader.start(roots)
    assert reader is not None
    got, progress = _read_all(reader)
    assert len(got) == jobs and got == scan_library(roots)  # every fact of every row, the broken one's error too
    assert progress[-1][0] == progress[-1][1] == 4 * 3 + 4
    assert all(e.recipe is None for e in got)  # facts only: the app loads a model when one is chosen
    entry = next(e for e in got if e.label == "r1" and e.folder == "user/f01")
    recipe, source = entry.chosen()
    assert recipe.name == entry.title == "f01-r1" and source.located is not None


def test_the_cache_is_written_before_the_last_batch_is_handed_over(tmp_path: Path) -> None:
    """The app lets the reader process go (kills it) once its last batch is in: the cache must be on disk by then,
    or no start is ever warm (it was written after that batch, and the reader killed while it wrote)."""
    make_library(tmp_path / "lib", folders=4, per_folder=3)
    cache = RecipeCache().load()
    on_disk: list[bool] = []

    def batch(entries: list[Any], read: int, total: int) -> None:
        if read == total:
            on_disk.append(cache.path.is_file())

    scan_library([LibraryRoot("user", tmp_path / "lib")], batch, cache=cache)
    assert on_disk == [True]
    assert RecipeCache().load().ignored is None


def test_a_warm_reader_imports_no_recipe_model(tmp_path: Path) -> None:
    make_library(tmp_path / "lib", folders=3, per_folder=2)
    roots = json.dumps([["user", str(tmp_path / "lib")]])
    command = [sys.executable, "-X", "importtime", "-m", "srt_tui.tui.launch.recipe_reader", roots]
    cold = subprocess.run(command, capture_output=True, text=True, check=True, timeout=120)
    warm = subprocess.run(command, capture_output=True, text=True, check=True, timeout=120)
    assert "pydantic" in cold.stderr  # the cold one validated the files
    assert "pydantic" not in warm.stderr and "textual" not in warm.stderr
    assert _labels(warm.stdout) == _labels(cold.stdout)


READ_COUNTING_PASSES = r"""
import gc, sys
from srt_tui.tui.launch import recipe_reader
passes = []
gc.callbacks.append(lambda phase, info: passes.append(info["generation"]) if phase == "start" else None)
recipe_reader.main(sys.argv[1:])
sys.stderr.write(f"passes {len(passes)}\n")
"""


def test_the_reader_reads_without_the_collectors_passes(tmp_path: Path) -> None:
    """A cold read (the files parsed and validated) made hundreds of collector passes, ~15 % of its CPU, for garbage
    that the reference counts free (srtctl's 555 files: the same peak memory without them): the process that reads
    and exits turns the collector off."""
    jobs = make_library(tmp_path / "lib", folders=4, per_folder=5)
    roots = json.dumps([["user", str(tmp_path / "lib")]])
    done = subprocess.run([sys.executable, "-c", READ_COUNTING_PASSES, roots], capture_output=True, text=True,
                          check=True, timeout=120)  # fmt: skip
    assert len(_labels(done.stdout)) == jobs  # it read them all, cold
    assert done.stderr.strip().splitlines()[-1] == "passes 0"


def _labels(out: str) -> list[str]:
    return [e["label"] for line in out.splitlines() for e in json.loads(line)["entries"]]


@pytest.mark.parametrize(
    ("script", "said"),
    [
        ("print(json.dumps({'read': 1, 'total': 9, 'entries': []}), flush=True); "
         "sys.stderr.write('Traceback...\\nMemoryError: out\\n'); sys.exit(3)", "exit 3): MemoryError: out"),
        ("print('not a batch')", "something else than a batch"),
        ("print(json.dumps({'read': 1, 'total': 2, 'entries': [{'label': 7}]}))", "something else than a batch"),
    ],
    ids=["dies", "garbage", "bad-entry"],
)  # fmt: skip
def test_a_reader_that_stops_early_or_talks_nonsense_is_reported(script: str, said: str) -> None:
    with tempfile.TemporaryFile() as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-c", f"import json, sys; {script}"], stdout=subprocess.PIPE, stderr=stderr
        )
        with pytest.raises(ReaderFailed, match=re.escape(said)):
            _read_all(RecipeReader([], proc, stderr))
        assert proc.poll() is not None


def test_the_early_reader_is_claimed_once_and_only_for_its_roots(tmp_path: Path) -> None:
    make_library(tmp_path / "lib", folders=3, per_folder=1)
    recipe_reader.start_early()
    roots = library_roots()
    assert recipe_reader.claim([LibraryRoot("other", tmp_path / "lib")]) is None  # not its roots: stopped
    recipe_reader.start_early()
    reader = recipe_reader.claim(roots)
    assert reader is not None and recipe_reader.claim(roots) is None
    reader.close()
    assert reader.proc.poll() is not None


@pytest.mark.parametrize("reader_dies", [False, True], ids=["reader", "reader-killed"])
async def test_the_app_lists_the_readers_rows_and_reads_the_rest_itself_when_it_dies(reader_dies: bool) -> None:
    jobs = make_library(_user_library(), folders=3, per_folder=4)
    recipe_reader.start_early()
    early = recipe_reader._early
    assert early is not None
    if reader_dies:
        early.proc.kill()
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        screen, tree = await launch_and_tree(pilot)
        mine = [x for x in _leaves(tree) if x.startswith(("r", "same", "variants", "broken"))]
        assert len(mine) == jobs and len(set(mine)) == len(set(mine))
        specs = [e.spec for e in screen.state.library.entries]
        assert len(specs) == len(set(specs))  # nothing listed twice after a hand-over
        from_reader = [e for e in screen.state.library.entries if e.recipe is None and not e.broken]
        assert bool(from_reader) != reader_dies
        assert screen.state.profile is not None and not screen.state.library.loading  # the profile came after
        tree.focus()
        await pilot.press("slash", *"f01-r2", "enter", "enter")  # filter, then choose the one row left
        await settle(pilot)
        assert screen.state.recipe is not None and screen.state.recipe.name == "f01-r2"
        assert screen.state.source is not None and screen.state.source.located is not None
    assert early.proc.poll() is not None  # the app let go of it


async def test_the_given_profile_loads_once_the_first_rows_are_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    """`-p PROFILE` with the reader: the profile's models (pydantic, ~0.3 s of the one interpreter lock) load after a
    frame with the first rows is drawn, not while it is."""
    make_library(_user_library(), folders=3, per_folder=4)
    drawn: list[bool] = []
    at_load: list[bool] = []
    render_lines = RecipeTree.render_lines

    def render(tree: RecipeTree, crop: Region) -> list[Strip]:
        if tree.root.children and not tree.loading:
            drawn.append(True)
        return render_lines(tree, crop)

    load = LaunchScreen.load_given_profile

    def loading(screen: LaunchScreen, spec: str | None) -> Any:
        at_load.append(bool(drawn))
        return load(screen, spec)

    monkeypatch.setattr(RecipeTree, "render_lines", render)
    monkeypatch.setattr(LaunchScreen, "load_given_profile", loading)
    recipe_reader.start_early()
    async with make_app("local").run_test(size=(120, 36)) as pilot:
        screen, _ = await launch_and_tree(pilot)
        assert at_load == [True] and screen.state.profile is not None


@pytest.fixture(autouse=True)
def _no_reader_left() -> Any:
    yield
    reader, recipe_reader._early = recipe_reader._early, None
    if reader is not None:
        reader.close()


def test_the_reader_lives_in_its_own_session(tmp_path: Path) -> None:
    """The terminal's Ctrl-C is the app's: the reader is not in the app's process group."""
    make_library(tmp_path / "lib", folders=3, per_folder=1)
    reader = RecipeReader.start([LibraryRoot("user", tmp_path / "lib")])
    assert reader is not None
    try:
        assert os.getpgid(reader.proc.pid) != os.getpgid(0)
    finally:
        _read_all(reader)


# -- the profile list, when the wizard opens on it ----------------------------------------------------------


def _broken_profile() -> Path:
    """A user profile that does not validate, beside the shipped ones."""
    path = Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "profiles" / "broken-site.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("name: broken-site\ngpus_per_node: many\n", encoding="utf-8")
    return path


def test_asked_for_profiles_the_reader_sends_their_rows_first(tmp_path: Path) -> None:
    """Issue 22 (first screen): the profile rows come from the reader, so the app's first screen does not wait
    for the profile models; they are the rows the app would list itself, a broken file's errors included."""
    from srt_tui.core.spec.profile import list_profile_files
    from srt_tui.tui.launch.profile_facts import ProfileRow

    _broken_profile()
    make_library(tmp_path / "lib", folders=3, per_folder=1)
    reader = RecipeReader.start([LibraryRoot("user", tmp_path / "lib")], profiles=True)
    assert reader is not None
    seen: list[Any] = []
    entries: list[Any] = []

    def listed(rows: list[Any]) -> None:
        seen.append((rows, len(entries)))

    try:
        for batch, _, _ in reader.batches(on_profiles=listed):
            entries.extend(batch)
    finally:
        reader.close()
    assert len(seen) == 1 and seen[0][1] == 0  # once, before any recipe
    rows = seen[0][0]
    assert rows == [ProfileRow.of(pf) for pf in list_profile_files()]
    broken = next(r for r in rows if r.name == "broken-site")
    assert not broken.valid and any("gpus_per_node" in line for line in broken.errors)
    assert all(r.file is None for r in rows) and entries  # facts only, and the recipes after them


@pytest.mark.parametrize("reader_dies", [False, True], ids=["reader", "reader-killed"])
async def test_the_profile_step_shows_the_readers_rows_and_chooses_from_them(
    monkeypatch: pytest.MonkeyPatch, reader_dies: bool
) -> None:
    """The Profile step lists the reader's rows without reading a profile here; Enter parses the one chosen.
    A reader that dies first leaves the step to read them itself."""
    from srt_tui.core.spec import profile as profile_module
    from srt_tui.tui.launch.messages import ProfileChosen

    listed_here: list[int] = []
    real_list = profile_module.list_profile_files

    def counted() -> list[Any]:
        listed_here.append(1)
        return real_list()

    monkeypatch.setattr(profile_module, "list_profile_files", counted)
    recipe_reader.start_early(profiles=True)
    early = recipe_reader._early
    assert early is not None and early.profiles
    if reader_dies:
        early.proc.kill()
    chosen: list[ProfileChosen] = []

    def hook(message: Any) -> None:
        if isinstance(message, ProfileChosen):
            chosen.append(message)

    app = make_app(None)
    async with app.run_test(size=(120, 36), message_hook=hook) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#profile-table")
        step = app.screen.query_one("#step-profile", ProfileStep)
        assert not table.loading and "local" in [row.name for row in step.rows]
        assert bool(listed_here) == reader_dies
        await pilot.press("enter")  # the cursor starts on `local`
        await settle(pilot)
        assert len({id(m) for m in chosen}) == 1 and chosen[0].loaded.name == "local"  # (seen at each level)
        assert chosen[0].loaded.path == Path(__file__).parents[2] / "profiles" / "local.yaml"
        assert isinstance(app.screen, LaunchScreen) and app.screen.index == 1


async def test_a_profile_file_changed_after_it_was_listed_is_said_when_chosen(tmp_path: Path) -> None:
    """A reader row is parsed when chosen: a file broken since it was listed is named, and the list read again
    (the step stays where it is)."""
    path = Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "profiles" / "mine.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text((Path(__file__).parents[2] / "profiles" / "local.yaml").read_text(), encoding="utf-8")
    recipe_reader.start_early(profiles=True)
    app = make_app(None)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        step = app.screen.query_one("#step-profile", ProfileStep)
        names = [row.name for row in step.rows]
        assert "mine" in names and step.rows[names.index("mine")].valid
        path.write_text("name: mine\ngpus_per_node: many\n", encoding="utf-8")
        app.screen.query_one("#profile-table", DataTable).move_cursor(row=names.index("mine"))
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, LaunchScreen) and app.screen.index == 0
        assert any("mine cannot be read now" in str(n.message) for n in app._notifications)
        assert not step.rows[names.index("mine")].valid  # read again: now listed with its errors
