"""The recipe library at the scale operators keep (issue 22, issue 21 item 11): rows appear while the scan still
reads, files are read once and cached across runs (a damaged cache is rebuilt, never trusted), rows are labelled
by file, `./recipes` and the profile's `srtctl_root` are listed, and the tree answers j/k with a summary that
follows the cursor. The library is generated here (no dependency on ../shared)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from rich.style import Style
from textual.geometry import Size
from textual.widgets import Static, Tree

from srt_tui.state.recipe_cache import RecipeCache
from srt_tui.tui.launch.recipe_catalog import LibraryRoot, RecipeEntry, library_roots, scan_library
from srt_tui.tui.launch.screen import LaunchScreen
from tests.conftest import REPO, require
from tests.tui.scenarios import settle
from tests.tui.tui_helpers import hold_scan_at, launch_and_tree, make_app, settle_but

RECIPE = """\
# {about}
name: {name}
profiles: [local]
model: {{path: mock-model}}
frontend: {{type: sglang, enable_multiple_frontends: false}}
engine: mocker
roles:
  agg: {{nodes: 1, workers: {workers}, args: {{tp-size: 8}}}}
"""


def override_file(name: str, overrides: str) -> str:
    """An srtctl override file: a one-worker mocker `base` named ``name``, then ``overrides`` (YAML)."""
    return (
        f"base:\n  name: {name}\n  model: {{path: mock-model}}\n"
        "  frontend: {type: sglang, enable_multiple_frontends: false}\n  engine: mocker\n"
        "  roles: {agg: {nodes: 1, workers: 1, args: {tp-size: 8}}}\n" + overrides
    )


OVERRIDE = override_file(
    "ovr",
    """\
override_two:
  roles: {agg: {workers: 2}}
zip_override_many:
  roles: {agg: {workers: [3, 4]}}
""",
)


def make_library(root: Path, folders: int = 12, per_folder: int = 8) -> int:
    """A library of `folders` × `per_folder` recipes (the last folder `zz-last/`), two files of one folder sharing
    a `name:` as srtctl's `bs256-1p6d-dep.yaml`/`-tp.yaml` do, an override file and a broken file: its job count."""
    names = [f"f{i:02d}" for i in range(folders - 1)] + ["zz-last"]
    for folder in names:
        (root / folder).mkdir(parents=True, exist_ok=True)
        for j in range(per_folder):
            text = RECIPE.format(about=f"{folder} recipe {j}", name=f"{folder}-r{j}", workers=1 + j % 2)
            (root / folder / f"r{j}.yaml").write_text(text, encoding="utf-8")
    twin = RECIPE.format(about="a twin", name="same-name", workers=1)
    (root / "f00" / "same-dep.yaml").write_text(twin, encoding="utf-8")
    (root / "f00" / "same-tp.yaml").write_text(twin, encoding="utf-8")
    (root / "f01" / "variants.yaml").write_text(OVERRIDE, encoding="utf-8")
    (root / "f01" / "broken.yaml").write_text("name: [unclosed\n", encoding="utf-8")
    return folders * per_folder + 2 + 4 + 1  # + twins + base/two/many[0]/many[1] + broken


def _user_library() -> Path:
    return Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "recipes"


def _rows(entries: list[Any]) -> list[tuple[str, str, str | None, str]]:
    return [(e.folder, e.label, e.error, e.description) for e in entries]


# -- scanning and the cache ------------------------------------------------------------------------------


def test_each_file_is_read_once_and_rows_are_labelled_by_file(tmp_path: Path) -> None:
    jobs = make_library(tmp_path / "lib")
    batches: list[tuple[int, int, int]] = []
    entries = scan_library([LibraryRoot("user", tmp_path / "lib")], lambda b, r, t: batches.append((len(b), r, t)))
    assert len(entries) == jobs
    labels = [(e.folder, e.label) for e in entries]
    assert len(set(labels)) == len(labels)  # no two identical rows, whatever the files' `name:`
    assert ("user/f00", "same-dep") in labels and ("user/f00", "same-tp") in labels
    assert [e.label for e in entries if e.folder == "user/f01"][:4] == [
        "broken", "r0", "r1", "r2"]  # fmt: skip
    selectors = {"base", "override_two", "zip_override_many[0]", "zip_override_many[1]"}
    assert {e.label for e in entries if e.label.startswith("variants")} == {f"variants:{s}" for s in selectors}
    broken = next(e for e in entries if e.label == "broken")
    assert broken.recipe is None and broken.error and "invalid YAML" in broken.error
    assert batches[-1][1] == batches[-1][2] == 12 * 8 + 4  # the last batch says: every file read
    assert [r for _, r, _ in batches] == sorted(r for _, r, _ in batches)
    assert sum(n for n, _, _ in batches) == jobs


def test_the_cache_makes_a_second_scan_skip_reading_and_sees_a_changed_file(tmp_path: Path) -> None:
    make_library(tmp_path / "lib")
    root = [LibraryRoot("user", tmp_path / "lib")]
    cold = scan_library(root, cache=RecipeCache(tmp_path / "cache").load())
    cache_file = tmp_path / "cache" / "recipes.json"
    assert stat.S_IMODE(cache_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(cache_file.parent.stat().st_mode) == 0o700
    warm = scan_library(root, cache=RecipeCache(tmp_path / "cache").load())
    assert warm == cold  # every fact of every row: label, shape, profiles, summary, filter words
    assert all(e.recipe is None for e in warm) and all(e.recipe is not None for e in cold if not e.broken)
    from_cache = [e for e in warm if not e.broken]
    assert any(e.broken and "line 2: invalid YAML" in (e.error or "") for e in warm)  # with its line
    recipe, source = from_cache[0].chosen()  # chosen: read now, so later problems point at their line
    assert source.located is not None and recipe.name == from_cache[0].title
    moved = scan_library([LibraryRoot("elsewhere", tmp_path / "lib")], cache=RecipeCache(tmp_path / "cache").load())
    assert {e.folder.split("/")[0] for e in moved} == {"elsewhere"}  # where a row is listed is not cached
    changed = tmp_path / "lib" / "f03" / "r1.yaml"
    changed.write_text(RECIPE.format(about="changed", name="changed-now", workers=3), encoding="utf-8")
    again = scan_library(root, cache=RecipeCache(tmp_path / "cache").load())
    entry = next(e for e in again if e.spec == str(changed))
    assert entry.description == "changed" and entry.recipe is not None and entry.recipe.name == "changed-now"


@pytest.mark.parametrize(
    "damage",
    [b"\x00\x01garbage{", b'{"stamp": 1, "files": []}', b"[1, 2, 3]", b"{" * 100_000, b'{"files": {"x": 1}}'],
    ids=["binary", "wrong-types", "a-list", "deep", "no-stamp"],
)
def test_a_damaged_cache_is_ignored_and_rebuilt(tmp_path: Path, damage: bytes) -> None:
    jobs = make_library(tmp_path / "lib", folders=3, per_folder=3)
    root = [LibraryRoot("user", tmp_path / "lib")]
    (tmp_path / "cache").mkdir(mode=0o700)
    (tmp_path / "cache" / "recipes.json").write_bytes(damage)
    os.chmod(tmp_path / "cache" / "recipes.json", 0o600)
    cache = RecipeCache(tmp_path / "cache").load()
    assert cache.ignored
    assert len(scan_library(root, cache=cache)) == jobs
    rebuilt = RecipeCache(tmp_path / "cache").load()
    assert rebuilt.ignored is None
    assert len(json.loads((tmp_path / "cache" / "recipes.json").read_text())["files"]) == 3 * 3 + 4  # every file


def test_bad_entries_of_a_valid_cache_are_skipped(tmp_path: Path) -> None:
    make_library(tmp_path / "lib", folders=4, per_folder=2)
    root = [LibraryRoot("user", tmp_path / "lib")]
    cold = scan_library(root, cache=RecipeCache(tmp_path / "cache").load())
    path = tmp_path / "cache" / "recipes.json"
    doc = json.loads(path.read_text())
    for i, key in enumerate(sorted(doc["files"])):
        good = doc["files"][key]
        damaged_rows = {**good, "rows": [{**good["rows"][0], "summary": 5}]}  # its key still matches
        wrong_variant = {**good, "rows": [{**good["rows"][0], "selector": 7}]}
        doc["files"][key] = [{"mtime_ns": "x"}, {"jobs": [[1, 2, 3]]}, None, 7, damaged_rows, wrong_variant][i % 6]
    path.write_text(json.dumps(doc))
    assert _rows(scan_library(root, cache=RecipeCache(tmp_path / "cache").load())) == _rows(cold)


def test_a_cache_file_that_is_a_link_or_writable_by_others_is_not_read(tmp_path: Path) -> None:
    make_library(tmp_path / "lib", folders=3, per_folder=2)
    root = [LibraryRoot("user", tmp_path / "lib")]
    scan_library(root, cache=RecipeCache(tmp_path / "cache").load())
    path = tmp_path / "cache" / "recipes.json"
    os.chmod(path, 0o666)
    assert RecipeCache(tmp_path / "cache").load().ignored
    os.chmod(path, 0o600)
    path.rename(tmp_path / "elsewhere.json")
    path.symlink_to(tmp_path / "elsewhere.json")
    assert RecipeCache(tmp_path / "cache").load().ignored


def test_the_library_lists_dot_recipes_and_the_srtctl_checkout(tmp_path: Path) -> None:
    (tmp_path / "here" / "recipes").mkdir(parents=True)
    (tmp_path / "srt-slurm" / "recipes").mkdir(parents=True)
    roots = library_roots(str(tmp_path / "srt-slurm"), cwd=tmp_path / "here")
    assert [r.prefix for r in roots][-2] == "./recipes" and roots[-1].prefix.endswith("srt-slurm/recipes")
    assert roots[-1].path == tmp_path / "srt-slurm" / "recipes"
    same = library_roots(str(tmp_path / "here"), cwd=tmp_path / "here")  # started inside the checkout: once
    assert [r.prefix for r in same].count("./recipes") == 1 and len(same) == len(roots) - 1


def test_the_filter_wants_every_word_each_anywhere_in_a_rows_texts(tmp_path: Path) -> None:
    """Operator pass: `/gb300 2p1d` said "No recipe matches" beside `gb300-fp4/…/disagg-…-2p1d-…`. Words
    combine as in the jobs lists (fzf, k9s): each must be in the folder, name, file, description or facts."""
    make_library(tmp_path / "lib", folders=4, per_folder=3)
    entries = scan_library([LibraryRoot("user", tmp_path / "lib")])

    def found(query: str) -> list[tuple[str, str]]:
        return [(e.folder, e.label) for e in entries if e.matches(query)]

    assert found("f02 r1") == found("R1  f02") == [("user/f02", "r1")]  # folder and name, any order
    assert found("f02 agg2") == [("user/f02", "r1")]  # and the topology among the row's facts
    assert found("f02-r1") == [("user/f02", "r1")]  # a single word: as before (its `name:`)
    assert found("f02 r1 qqq") == []  # every word must match
    assert {label for _, label in found("f02 !r1")} == {"r0", "r2"}  # `!word` excludes, as in the jobs list
    assert len(found("")) == len(entries)


def test_the_filter_matches_what_the_recipe_says_not_its_comments(tmp_path: Path) -> None:
    """Operator report: `/mocker` listed the AMD recipes whose YAML comments say `Mocker twin: …`. A word must be in
    the folder, name, file, engine, frontend, topology or the recipe's own `description:`; a file's comment is
    still the summary's `about` for a recipe without a description, and matches nothing."""
    lib = tmp_path / "lib" / "amd"
    lib.mkdir(parents=True)
    twin = RECIPE.replace("engine: mocker", "engine: sglang").format(
        about="S2 · MI355X 1P1D.\n# Mocker twin: recipes/mocker/mocker-1p1d.yaml", name="mi355x-1p1d", workers=1
    )
    (lib / "mi355x-1p1d.yaml").write_text(twin, encoding="utf-8")
    described = RECIPE.format(about="ignored", name="told", workers=1).replace(
        "name: told", "name: told\ndescription: the KV-transfer stress case"
    )
    (lib / "told.yaml").write_text(described, encoding="utf-8")
    entries = {e.label: e for e in scan_library([LibraryRoot("user", tmp_path / "lib")])}
    assert not entries["mi355x-1p1d"].broken and not entries["told"].broken, entries
    twin_entry = entries["mi355x-1p1d"]
    assert "Mocker twin" in twin_entry.description  # shown as its `about`
    assert not twin_entry.matches("mocker") and not twin_entry.matches("twin")
    assert twin_entry.matches("mi355x 1p1d") and twin_entry.matches("amd sglang")  # name, folder, engine
    assert entries["told"].matches("kv-transfer stress")  # the recipe's own description
    assert entries["told"].description == "the KV-transfer stress case"


async def test_slash_mocker_lists_the_mocker_recipes_not_their_amd_twins() -> None:
    """The shipped library: `/mocker` lists the mocker/ folder's recipes and none of amd/, whose comments name
    their mocker twins."""
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        tree = await _filtered(app, pilot, "mocker")
        folders = [str(node.label) for node in tree.root.children]
        assert folders == ["mocker/"], folders
        assert "mocker-1p1d" in _leaves(tree)


def test_a_rows_name_ranks_how_well_it_answers_the_filter() -> None:
    """Where the cursor goes after a filter: the row named as typed, then names starting with it, then names
    holding it (every word), then rows that matched through their folder, file or description only."""
    from srt_tui.core.text.words import name_rank

    assert [name_rank(n, "mocker-1p1d") for n in ("mocker-1p1d", "MOCKER-1p1d-smg", "x-mocker-1p1d", "mi355x")] == [
        0, 1, 2, 5]  # fmt: skip
    assert [name_rank(n, "1p1d smg !dp") for n in ("1p1d smg", "1p1d-smg", "mocker-1p1d-smg", "mocker-1p1d")] == [
        0, 1, 2, 4]  # fmt: skip
    # second operator pass: `/gb300 2p1d` (gb300 in the folder) put the cursor on `disagg-12p1d-…`: a word that
    # starts a word of the name ranks above one inside another (`12p1d`), with every word held or not
    assert [name_rank(n, "gb300 2p1d") for n in ("disagg-mid-curve-2p1d-dep4", "disagg-12p1d-dep4", "x")] == [
        4, 5, 5]  # fmt: skip
    assert name_rank("dep8-2p1d", "2p1d dep") < name_rank("dep8-12p1d", "2p1d dep") == 3
    assert name_rank("anything", "") == name_rank("anything", "!x") == 0  # nothing asked of the name: all equal


# -- the wizard --------------------------------------------------------------------------------------------


def _summary(app: Any) -> str:
    from rich.console import Console

    console = Console(width=200, record=True, color_system=None)
    console.print(app.screen.query_one("#recipe-summary", Static).content)
    return console.export_text()


def _leaves(tree: Tree[Any]) -> list[str]:
    return [leaf.data.label for folder in tree.root.children for leaf in folder.children if leaf.data is not None]


def _cursor(tree: Tree[Any]) -> str | None:
    """The label of the recipe row under the cursor (None: a folder, or no row)."""
    node = tree.cursor_node
    return node.data.label if node is not None and node.data is not None else None


async def test_first_rows_show_while_the_scan_still_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    jobs = make_library(_user_library(), folders=30, per_folder=10)
    gate = hold_scan_at(monkeypatch, lambda folder: folder.startswith("user/zz-last"))  # until looked at
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        try:
            await settle_but(pilot, "scan-recipes")
            screen = app.screen
            assert isinstance(screen, LaunchScreen)
            tree: Tree[Any] = screen.query_one("#recipe-tree", Tree)
            assert screen.state.library.loading
            assert not tree.loading and len(_leaves(tree)) > 30  # a screenful and more, while reading
            read, total = screen.state.library.counts
            assert f"Reading recipes… {read}/{total} files" in str(screen.query_one("#recipe-hint", Static).content)
            assert read < total
        finally:
            gate.set()
        await settle(pilot)
        assert not screen.state.library.loading
        labels = [x for x in _leaves(tree) if x.startswith(("r", "same", "variants", "broken"))]
        assert len(labels) == jobs
        assert "Reading" not in str(screen.query_one("#recipe-hint", Static).content)


async def test_j_k_move_in_the_tree_and_the_summary_follows_the_cursor() -> None:
    make_library(_user_library(), folders=3, per_folder=3)
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        _, tree = await launch_and_tree(pilot)
        start = tree.cursor_line
        assert tree.cursor_node is not None and tree.cursor_node.data is not None
        await pilot.press("j")
        assert tree.cursor_line == start + 1
        await pilot.press("k", "k")
        assert tree.cursor_line == start - 1
        await pilot.press("G")  # the last row, then `g` the first, as in every list (operator pass, stop 29)
        assert tree.cursor_line == tree.last_line > start
        await pilot.press("g")
        assert tree.cursor_line == 0
        await pilot.press(*["j"] * start)
        assert tree.cursor_line == start
        for _ in range(start + 1):  # up to the first folder
            await pilot.press("k")
        await pilot.pause()
        assert tree.cursor_node is not None and tree.cursor_node.data is None
        summary = _summary(app)
        assert "folder" in summary and "recipes" in summary and "No recipe matches" not in summary
        await pilot.press("slash", *"f01-r2")
        await settle(pilot)
        assert "f01-r2" in _summary(app) and tree.cursor_node is not None and tree.cursor_node.data is not None
        assert tree.cursor_node.data.label == "r2"
        await pilot.press("backspace", "1")  # `f01-r1`: the summary follows the new single match
        await settle(pilot)
        assert "f01-r1" in _summary(app) and "f01-r2" not in _summary(app)
        await pilot.press(*"zzz")
        await settle(pilot)
        assert "No recipe matches 'f01-r1zzz' · Esc clears" in _summary(app), _summary(app)


async def test_a_profiles_srtctl_checkout_and_dot_recipes_are_listed(tmp_path: Path) -> None:
    here = Path.cwd() / "recipes" / "h200"  # the TUI tests run in a scratch directory
    here.mkdir(parents=True)
    (here / "mine.yaml").write_text(RECIPE.format(about="here", name="here-one", workers=1), encoding="utf-8")
    checkout = tmp_path / "srt-slurm"
    (checkout / "recipes" / "gb200").mkdir(parents=True)
    (checkout / "recipes" / "gb200" / "theirs.yaml").write_text(
        RECIPE.format(about="there", name="there-one", workers=1), encoding="utf-8"
    )
    profiles = Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "profiles"
    local = (Path(__file__).resolve().parents[2] / "profiles" / "local.yaml").read_text(encoding="utf-8")
    (profiles / "withroot.yaml").write_text(local + f"\nsrtctl_root: {checkout}\n", encoding="utf-8")
    app = make_app("withroot")
    async with app.run_test(size=(120, 36)) as pilot:
        _, tree = await launch_and_tree(pilot)
        folders = [str(node.label) for node in tree.root.children]
        assert "./recipes/h200/" in folders
        assert any(f.endswith("srt-slurm/recipes/gb200/") for f in folders)
        assert {"mine", "theirs"} <= set(_leaves(tree))


async def test_long_folders_keep_their_last_part_at_80_columns() -> None:
    """Operator pass (issue 21): srtctl's `…/b200-fp4/1k1k/` and `…/b200-fp4/8k1k/` were cut at their end and read
    the same; a folder too long for the tree loses middle folders instead."""
    deep = Path.cwd() / "recipes" / "trtllm" / "nemotron-super-120b-long-model-name" / "b200-fp4"
    for leaf in ("1k1k", "8k1k"):
        (deep / leaf).mkdir(parents=True)
        (deep / leaf / "agg.yaml").write_text(RECIPE.format(about=leaf, name=leaf, workers=1), encoding="utf-8")
    app = make_app("local")
    async with app.run_test(size=(80, 24)) as pilot:
        _, tree = await launch_and_tree(pilot)
        await pilot.resize_terminal(80, 24)  # as drawn at today's width, after a resize too
        await settle(pilot)
        room = tree.scrollable_content_region.width - 4
        folders = [node for node in tree.root.children if "k1k" in str(node.label)]
        labels = [tree.render_label(node, Style(), Style()).plain.split(" ", 1)[1] for node in folders]
        assert len(labels) == 2 and labels[0] != labels[1], labels
        assert all(x.startswith("./recipes/") and len(x) <= room and "…" in x for x in labels), (labels, room)
        assert labels[0].endswith("/1k1k/") and labels[1].endswith("/8k1k/")


#: srtctl's folders that read alike once cut at 80 columns (`./recipes/…/1k1k/mtp/` six times, `…/b200-fp4/1k1k/`
#: three), and one beside them that does not
ALIKE_FOLDERS = (
    "gb300-fp8/1k1k/mtp", "gb300-fp8/8k1k/mtp", "trtllm/gb300-fp8/1k1k/mtp", "trtllm/b200-fp4/1k1k/mtp",
    "trtllm/b200-fp8/1k1k/mtp", "trtllm/b200-fp4/8k1k/mtp", "sglang/nemotron-super-120b/b200-fp4/1k1k",
    "trtllm/nemotron-super-120b/b200-fp4/1k1k", "trtllm/gpt-oss-120b/b200-fp4/1k1k", "qwen3.5/fp8/agg/profile",
    "qwen3.5/nvfp4/agg/profile", "qwen3.5/fp8/disagg/mooncake/profile", "vllm/deepseek-r1",
)  # fmt: skip


def test_folders_that_would_read_alike_keep_what_tells_them_apart() -> None:
    from srt_tui.tui.display import shorten_path, shorten_paths

    paths = [f"./recipes/{folder}" for folder in ALIKE_FOLDERS]
    shown = shorten_paths(paths, 25)
    assert [shorten_path(p, 25) for p in paths[:6]] == ["./recipes/…/1k1k/mtp", "./recipes/…/8k1k/mtp"] + [
        "./recipes/…/1k1k/mtp", "./recipes/…/1k1k/mtp", "./recipes/…/1k1k/mtp", "./recipes/…/8k1k/mtp"
    ]  # fmt: skip
    assert [shown[p] for p in paths] == [
        "./recipes/…/1k1k/mtp",  # no cut in 25 columns reads as it alone: as it was (the others say what they are)
        "…/gb300-fp8/8k1k/mtp",  # the head gives way to what differs
        "…/trtllm/gb300-fp8/…/mtp",
        "…/b200-fp4/1k1k/mtp",
        "…/b200-fp8/1k1k/mtp",
        "…/b200-fp4/8k1k/mtp",
        "./recipes/sglang/…/1k1k",  # what differs, then the end
        "./recipes/…/b200-fp4/1k1k",  # as it was: trtllm's two fit no other way
        "…/gpt-oss-120b/…/1k1k",
        "…/qwen3.5/fp8/agg/profile",
        "…/nvfp4/agg/profile",
        "./recipes/…/profile",  # it did not read alike: as it was
        "./recipes/…/deepseek-r1",
    ], shown
    assert shorten_paths(paths, 80) == {p: p for p in paths}  # room for all: nothing cut


async def test_folders_alike_once_cut_read_apart_at_80_columns() -> None:
    """Operator pass: with srtctl's library in ./recipes, folder rows read `./recipes/…/1k1k/` several times
    (`recipes/b200-fp4/1k1k/` of three models, `…/1k1k/mtp/` of six GPUs). Each keeps its end and what tells it
    from the others, within the tree's width, at 80 columns and after a resize."""
    for folder in ALIKE_FOLDERS:
        (Path.cwd() / "recipes" / folder).mkdir(parents=True)
        text = RECIPE.format(about=folder, name=folder.replace("/", "-"), workers=1)
        (Path.cwd() / "recipes" / folder / "agg.yaml").write_text(text, encoding="utf-8")
    app = make_app("local")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        tree: Tree[Any] = app.screen.query_one("#recipe-tree", Tree)
        room = tree.scrollable_content_region.width - 4
        folders = [node for node in tree.root.children if str(node.label).startswith("./recipes/")]
        labels = [tree.render_label(node, Style(), Style()).plain.split(" ", 1)[1] for node in folders]
        assert len(labels) == len(ALIKE_FOLDERS) and len(set(labels)) == len(labels), labels
        assert all(len(label) <= room for label in labels), (labels, room)
        for node, label in zip(folders, labels, strict=True):
            assert label.endswith("/" + str(node.label).rstrip("/").rsplit("/", 1)[-1] + "/"), (label, node.label)
        assert "./recipes/sglang/…/1k1k/" in labels and "…/b200-fp4/1k1k/mtp/" in labels, labels


@pytest.mark.parametrize("width", [80, 120])
async def test_recipe_rows_fit_the_tree_shape_first_then_the_names_middle(width: int) -> None:
    """Operator pass (issue 21): at 80 columns rows were cut at the pane's edge (`1P1D · m`), and
    `mocker-dp-attention-1p1d-s` read like its neighbour `mocker-dp-attention-1p1d`. The `· sglang` gives way
    first, then the `1P1D`, then the name loses its middle, never its end."""
    from textual.geometry import Region

    app = make_app("local")
    async with app.run_test(size=(width, 40)) as pilot:
        _, tree = await launch_and_tree(pilot)
        drawn = [s.text.rstrip().rstrip("│").rstrip() for s in tree.render_lines(Region(0, 0, *tree.size))]
        smg = [line for line in drawn if line.endswith("-1p1d-smg") or "-1p1d-smg  " in line]
        assert len(smg) == 1, drawn  # the smg variant's end is on screen, whatever its middle
        rows = {node.data.label: node for node in tree.root.children[1].children if node.data is not None}
        assert "mocker-dp-attention-1p1d-smg" in rows
        for label, node in rows.items():
            shown = tree.render_label(node, Style(), Style()).plain
            room = tree.scrollable_content_region.width - tree.guide_depth * 2 - 1
            assert len(shown) <= max(room, len(label) + 2), (shown, room)
            assert shown[2:] == label or "…" in shown or shown[2:].startswith(f"{label}  "), shown
        if width >= 120:  # room for the shape
            assert any("  1P1D · " in tree.render_label(n, Style(), Style()).plain for n in rows.values())


@pytest.mark.parametrize("width", [80, 120])
async def test_a_growing_tree_draws_only_the_rows_on_screen(monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    """Issue 22: Tree measures every line each time rows are added, and measured them by drawing them, so
    srtctl's 700 rows in a dozen batches drew ~4,500 labels (0.4 s of the interpreter while the first screenful
    was due). Rows are measured from their text: labels are drawn for the lines painted, and the measure never
    makes the tree wider than its pane (no horizontal scrollbar)."""
    from srt_tui.tui.launch.steps.recipe_step import RecipeTree

    make_library(_user_library(), folders=40, per_folder=10)
    drawn = [0]
    draw = RecipeTree.render_label

    def counted(self: RecipeTree, *args: Any) -> Any:
        drawn[0] += 1
        return draw(self, *args)

    monkeypatch.setattr(RecipeTree, "render_label", counted)
    app = make_app("local")
    async with app.run_test(size=(width, 36)) as pilot:
        _, tree = await launch_and_tree(pilot)
        rows = len(_leaves(tree))
        assert rows > 400
        assert drawn[0] < rows, (drawn[0], rows)  # each repaint draws a screenful, never the whole library
        assert tree.virtual_size.width <= tree.scrollable_content_region.width
        assert not tree.show_horizontal_scrollbar


def _line_shape(tree: Tree[Any]) -> list[tuple[tuple[int, ...], bool, int]]:
    """Each built line of ``tree``: its nodes' ids, whether it ends its folder, the line its node thinks it is on."""
    return [(tuple(n.id for n in line.path), line.last, line.node.line) for line in tree._tree_lines]


async def test_a_batch_of_rows_builds_and_measures_only_its_own_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 22: every batch a cold scan sends made Tree rebuild and measure all its lines, the rows already there
    included, so a library streaming in B batches of its N rows measured ~N*B/2 lines (srtctl's 706 rows, read cold
    in 17-36 batches: 6,900-15,300; now 836). A batch now adds its rows' lines, and a new folder's, beside those
    built (above the opened recipes, which stay last), lays the tree out once, and the lines are those a rebuild from
    scratch makes."""
    from srt_tui.tui.launch.steps.recipe_step import RecipeStep, RecipeTree

    measured = [0]
    measure = RecipeTree.get_label_width

    def counted(tree: RecipeTree, node: Any) -> int:
        measured[0] += 1
        return measure(tree, node)

    monkeypatch.setattr(RecipeTree, "get_label_width", counted)
    laid_out = [0]
    grown = RecipeTree._lines_grown

    def laying_out(tree: RecipeTree) -> None:
        laid_out[0] += 1
        grown(tree)

    monkeypatch.setattr(RecipeTree, "_lines_grown", laying_out)
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        screen, tree = await launch_and_tree(pilot)
        assert isinstance(tree, RecipeTree)
        step = screen.query_one(RecipeStep)
        step.show_opened(RecipeEntry("opened", "mine", "/elsewhere/mine.yaml", "mine.yaml", shape="1P1D · mocker"))
        await settle(pilot)
        opened_line = _line_shape(tree)[-1]
        per_batch = []
        for b in range(24):  # six folders of four batches of ten rows
            folder, rows = f"streamed/f{b // 4}", 10
            batch = [RecipeEntry(folder, f"s{b}-{i}", f"/lib/{folder}/s{b}-{i}.yaml", f"s{b}-{i}.yaml",
                                 shape="1P1D · mocker") for i in range(rows)]  # fmt: skip
            before, lines_before, layouts = measured[0], {id(line) for line in tree._tree_lines}, laid_out[0]
            step.library_grew(batch)
            made = [line for line in tree._tree_lines if id(line) not in lines_before]  # as the step's cursor reads
            per_batch.append((len(made), measured[0] - before, rows + (b % 4 == 0), laid_out[0] - layouts))
            if b % 5 == 0:
                await pilot.pause()  # a frame now and then, as the batches of a scan come
        # its own lines made and measured, and the tree laid out once (a new folder's batch too)
        assert all(made == own == measures and layouts == 1 for made, measures, own, layouts in per_batch), per_batch
        shape = _line_shape(tree)
        assert shape[-1][0][0] == opened_line[0][0] and len(shape) > 240  # the opened folder's rows stay last
        tree._invalidate()  # a rebuild from scratch
        assert _line_shape(tree) == shape
        assert tree.virtual_size == Size(tree._widest, len(shape))


async def _filtered(app: Any, pilot: Any, query: str) -> Tree[Any]:
    """The recipe tree once the library is read and ``query`` is typed after `/`, settled."""
    await settle(pilot)
    tree: Tree[Any] = app.screen.query_one("#recipe-tree", Tree)
    await pilot.press("slash", *query)
    await settle(pilot)
    return tree


async def test_enter_after_a_filter_picks_the_row_named_as_typed_at_80_columns() -> None:
    """Operator pass: with amd-mi355x chosen, `/mocker-1p1d` Enter put the cursor on `mi355x-1p1d-sglang-mori`
    (written for the profile; its comment names mocker-1p1d) and a second Enter planned DeepSeek. The row
    named exactly as typed comes first; a row whose comment alone names it is not listed."""
    from srt_tui.widgets.step_bar import StepBar

    app = make_app("amd-mi355x")
    async with app.run_test(size=(80, 24)) as pilot:
        tree = await _filtered(app, pilot, "mocker-1p1d")
        shown = _leaves(tree)
        assert "mocker-1p1d" in shown and "mi355x-1p1d-sglang-mori" not in shown, shown
        assert _cursor(tree) == "mocker-1p1d" and "mocker-1p1d" in _summary(app)
        # the filter names it exactly: one Enter chooses it (second operator pass: it took two)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.query_one(StepBar).note.split(" · ")[:2] == ["amd-mi355x", "mocker-1p1d"]  # the one chosen


async def test_enter_on_a_filter_takes_the_highlighted_recipe_and_tab_hands_the_keys_to_the_tree() -> None:
    """Enter in the filter takes the highlighted row, named exactly or not, as Enter in the profile list's filter
    does (op9 defect 5: here it took the row only when named exactly, there never); ↑/↓ move that row while typing,
    Tab gives the keys to the filtered tree without choosing."""
    from srt_tui.tui.launch.screen import LaunchScreen as Launch

    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        tree = await _filtered(app, pilot, "mocker 2p1d")
        first = _cursor(tree) or ""
        assert first.startswith("mocker-2p1d")
        await pilot.press("tab")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, Launch) and screen.index == 1 and app.focused is tree  # nothing chosen yet
        await pilot.press("escape", "slash", *"mocker 2p1d", "down")
        await settle(pilot)
        second = _cursor(tree) or ""
        assert second.startswith("mocker-2p1d") and second != first and app.focused is not tree
        await pilot.press("enter")
        await settle(pilot)
        assert screen.index == 2 and screen.state.recipe_label == second


async def test_a_better_named_row_read_later_takes_the_cursor_the_step_placed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The scan may still read when the filter is typed: the row named as typed, read later, takes the cursor
    from one that matched through its folder, while the cursor is where the step put it."""
    lib = _user_library()
    for folder, name, about in (("a-zebra-cousin", "okapi", "striped legs"), ("zz-last", "zebra", "striped")):
        (lib / folder).mkdir(parents=True)
        (lib / folder / f"{name}.yaml").write_text(RECIPE.format(about=about, name=name, workers=1), encoding="utf-8")
    gate = hold_scan_at(monkeypatch, lambda folder: folder.startswith("user/zz-last"))
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        try:
            await settle_but(pilot, "scan-recipes")
            tree: Tree[Any] = app.screen.query_one("#recipe-tree", Tree)
            await pilot.press("slash", *"zebra")
            await settle_but(pilot, "scan-recipes")
            assert _leaves(tree) == ["okapi"]
            assert _cursor(tree) == "okapi"
        finally:
            gate.set()
        await settle(pilot)
        assert _leaves(tree) == ["okapi", "zebra"]
        assert _cursor(tree) == "zebra"


ZIPS = override_file(
    "zips",
    """\
zip_override_stp_lowlat:
  roles: {agg: {workers: [1, 2, 3, 4, 5]}}
""",
)


async def _drawn_rows(folder: str, file: str, text: str, width: int) -> tuple[dict[str, str], int]:
    """One user-library file's rows as the tree draws them at ``width`` columns (label → drawn row, in order), and
    the cells a row has."""
    lib = _user_library() / folder
    lib.mkdir(parents=True)
    (lib / file).write_text(text, encoding="utf-8")
    app = make_app("local")
    async with app.run_test(size=(width, 40)) as pilot:
        _, tree = await launch_and_tree(pilot)
        node = next(n for n in tree.root.children if str(n.label) == f"user/{folder}/")
        rows = [n for n in node.children if n.data is not None]
        shown = {n.data.label: tree.render_label(n, Style(), Style()).plain for n in rows if n.data is not None}
        return shown, tree.scrollable_content_region.width - tree.guide_depth * 2 - 1


@pytest.mark.parametrize("width", [80, 120])
async def test_rows_that_differ_only_in_their_topology_keep_it(width: int) -> None:
    """Operator pass: srtctl's `8k1k:zip_override_stp_lowlat[0]`…`[4]` differ only in their topology, which long
    rows dropped first: five rows read alike but for the index. Such rows keep the topology and shorten the
    name's middle instead (never its end); a row unlike its neighbours lets its topology go before its name."""
    shown, room = await _drawn_rows("zips", "disagg-long-experiment-stem.yaml", ZIPS, width)
    assert all(len(row) <= room for row in shown.values()), (shown, room)
    for i in range(5):
        row = shown[f"disagg-long-experiment-stem:zip_override_stp_lowlat[{i}]"]
        assert row.endswith(f"lowlat[{i}]  agg{i + 1}") and "…" in row, row  # the name's end, then what differs
    base = shown["disagg-long-experiment-stem:base"]  # unlike its neighbours: its engine, then topology give way
    assert base.endswith(":base  agg1") if width >= 120 else base.endswith("-stem:base"), base


APART = override_file(
    "apart",
    """\
zip_override_8k1k_hightpt:
  roles: {agg: {workers: [1, 2]}}
zip_override_mtp_8k1k_hightpt:
  roles: {agg: {workers: [1, 2]}}
""",
)


@pytest.mark.parametrize("width", [80, 100])
async def test_rows_alike_but_for_their_middle_keep_where_they_differ(width: int) -> None:
    """Operator pass (stop 28): at 80 columns srtctl's `glm5:zip_override_8k1k_hightpt[1]` and
    `glm5:zip_override_mtp_8k1k_hightpt[1]` both read `glm5:zi…8k1k_hightpt[1]`, rows apart (same topology, so
    it could not tell them apart). A cut keeps in sight where a name first differs from one that would read
    the same; the others keep the plain middle cut."""
    from rich.text import Text

    from srt_tui.tui.launch.steps.recipe_rows import cut_middle, differs_at

    drawn, room = await _drawn_rows("apart", "a-long-experiment-stem-glm5.yaml", APART, width)
    shown = list(drawn.values())
    assert len(shown) == 5 and all(len(row) <= room for row in shown), (shown, room)
    assert len(set(shown)) == len(shown), shown  # five rows, five readings
    assert all("…" in row for row in shown[1:]), shown
    # the ends kept (after the row's mark: these fit the profile as written, •)
    assert [row.lstrip("✓•✗ ").split()[0][-3:] for row in shown[1:]] == ["[0]", "[1]", "[0]", "[1]"], shown
    names = [f"x:zip_override_{v}_8k1k_hightpt[{i}]" for v in ("a", "mtp") for i in (0, 1)] + ["x:base"]
    assert differs_at(names, 22) == {names[0]: 15, names[1]: 15, names[2]: 15, names[3]: 15}
    assert cut_middle(Text("  x:base"), 22).plain == "  x:base"  # short rows are left alone


async def test_keys_typed_right_after_slash_are_the_filters_text_not_the_trees_keys(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Operator pass (stop 29): `/deep` typed fast on the Recipe step: the filter opened, but its focus came after
    the keys already queued, so `e` ran Edit (twice: $EDITOR on a copy of the highlighted recipe) and the rest
    were lost. Keys between `/` and the filter's focus are its text; once the operator leaves the filter for the
    tree, its keys are the tree's again."""
    from textual import events
    from textual.widgets import Input

    from srt_tui.tui.launch.steps.recipe_step import RecipeStep

    edits: list[str] = []
    monkeypatch.setattr(RecipeStep, "action_edit_recipe", lambda self: edits.append("e"))
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        for key, char in (("slash", "/"), ("d", "d"), ("e", "e"), ("e", "e"), ("p", "p")):
            app.post_message(events.Key(key, char))  # one burst: all queued before any is handled
        await settle(pilot)
        field = app.screen.query_one("#recipe-filter", Input)
        assert field.value == "deep" and not edits, (field.value, edits)
        await pilot.press("c")  # typed after the focus came: continues the text, does not replace it
        assert field.value == "deepc"
        await pilot.press("backspace", "tab")  # into the tree (Tab: nothing chosen): `e` is Edit again
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert edits == ["e"] and field.value == "deep"


async def test_keys_typed_in_the_burst_of_the_profiles_enter_reach_the_recipe_step() -> None:
    """Operator pass (stop 29): `Enter /mocker` sent at once on the Profile step: the profile is read in a worker,
    so `/mocker` reached the app while the profile list still had the focus, found no key of its own there and
    was dropped. Keys nothing took after that Enter are typed again once the Recipe step has the focus; keys a
    screen did take are not."""
    from textual import events
    from textual.widgets import Input

    app = make_app(None)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LaunchScreen) and app.screen.index == 0
        for key, char in (("enter", "\r"), ("slash", "/"), *((c, c) for c in "mocker")):
            app.post_message(events.Key(key, char))
        await settle(pilot)
        field = app.screen.query_one("#recipe-filter", Input)
        assert app.screen.index == 1 and field.value == "mocker" and app.focused is field, (field.value, app.focused)
        await pilot.press("escape", "escape")  # the filter closes, then back to the profile list
        await settle(pilot)
        assert app.screen.index == 0
        await pilot.press("j", "k")  # taken by the profile list: nothing to type again on the next step
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.index == 1 and not app.screen.query_one("#recipe-filter", Input).value


#: srtctl's `examples/enable-profiling.yaml` in short: three keys its `profiling:` block does not take
THREE_WRONG = RECIPE.format(about="profiling", name="prof", workers=1) + (
    "profiling:\n  type: torch\n  isl: 1024\n  osl: 128\n  concurrency: 1\n"
)


async def test_a_recipe_refused_for_several_reasons_lists_them_all_in_its_summary() -> None:
    """Operator pass: srtctl's `enable-profiling` example showed its first error and `(+2 more)`, with no way to
    the others. Its summary lists every one (the pane scrolls), from the cache too; a toast says where they are."""
    lib = _user_library() / "examples"
    lib.mkdir(parents=True)
    (lib / "enable-profiling.yaml").write_text(THREE_WRONG, encoding="utf-8")
    app = make_app("local")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"enable-profiling", "enter")
        await settle(pilot)
        tree: Tree[Any] = app.screen.query_one("#recipe-tree", Tree)
        entry = tree.cursor_node.data if tree.cursor_node is not None else None
        assert entry is not None and entry.label == "enable-profiling" and entry.broken, entry
        summary = " ".join(_summary(app).split())
        for key in ("isl", "osl", "concurrency"):
            assert f"profiling.{key}: unknown key `{key}`" in summary, summary
        assert "more" not in summary, summary
        await pilot.press("enter")
        await settle(pilot)
        said = [str(n.message) for n in app._notifications]
        assert any("unknown key `isl`" in m and m.endswith("(+2 more in the summary)") for m in said), said
    again = RecipeEntry.from_facts(entry.facts())  # a row from the cache or the reader process
    assert again.problems == entry.problems and len(again.problems) == 3


def test_rows_alike_among_three_or_beside_a_wide_topology_still_read_apart() -> None:
    """Operator pass, srtctl's library at 80 columns: of `disagg-high-conc-6p1d-…`, `…-8p1d-…` and
    `disagg-mid-curve-…` the first two kept where they differ from the third (`h`, which both show) and read
    alike; glm5's `zip_override_8k1k_hightpt[1]` and `zip_override_mtp_8k1k_hightpt[1]` beside a `12P1D` had no
    room left to show where they differ. A cut keeps where a row differs from the one most like it, and a
    topology gives way when beside it the name could not keep that."""
    from rich.text import Text

    from srt_tui.tui.launch.steps.recipe_rows import cut_middle, differs_at, fit_row

    three = ["disagg-high-conc-6p1d-dep4-dep8-mtp", "disagg-high-conc-8p1d-dep4-dep8-mtp"]
    three.append("disagg-mid-curve-1p1d-dep4-dep8-mtp")
    show = differs_at(three, 25)
    assert len({cut_middle(Text("  " + n), 25, show.get(n)).plain for n in three}) == 3, show
    glm5 = ["glm5:zip_override_8k1k_hightpt[1]", "glm5:zip_override_mtp_8k1k_hightpt[1]"]
    show = differs_at(glm5, 25)
    shape = "  12P1D · sglang"
    rows = [fit_row(Text(f"  {n}{shape}"), shape, 25, True, show.get(n)).plain for n in glm5]
    assert len(set(rows)) == 2 and all(len(row) <= 25 and row.endswith("tpt[1]") for row in rows), rows


#: srtctl's `b200-fp4/1k1k.yaml` in short: two variant lists alike but for `stp`/`mtp`, of the same topologies
STP_MTP = override_file(
    "stp-mtp",
    """\
zip_override_stp_lowlat:
  roles: {agg: {workers: [1, 2]}}
zip_override_mtp_lowlat:
  roles: {agg: {workers: [1, 2]}}
""",
)
#: srtctl's `trtllm/h100-fp8/1k1k/stp/` file names: alike at both ends, apart in two places of their middle
CTX_GEN = [f"ctx1_gen3_{p}16_batch{b}_eplb0_mtp0" for p in ("dep", "tep") for b in (16, 8)] + [
    "ctx1_gen3_dep16_batch32_eplb0_mtp0", "ctx1_gen3_tep16_batch1_eplb0_mtp0", "ctx2_gen1_dep16_batch256_eplb0_mtp0"
]  # fmt: skip


async def test_rows_alike_at_both_ends_read_apart_at_80_columns() -> None:
    """Operator pass, srtctl's library at 80x24: twenty groups of rows still read alike. `1k1k:…p_lowlat[0]  1P5D`
    twice (`stp` and `mtp`, beside the same topology), and `ctx1_gen3_dep…plb0_mtp0` for both `dep16_batch16` and
    `dep16_batch8` (keeping where `dep` and `tep` differ lost where `16` and `8` do). Rows that still read alike give
    up their topology and keep every place where they differ; every row stays within the tree."""
    lib = _user_library()
    (lib / "b200").mkdir(parents=True)
    (lib / "b200" / "1k1k.yaml").write_text(STP_MTP, encoding="utf-8")
    (lib / "stp").mkdir(parents=True)
    for name in CTX_GEN:
        (lib / "stp" / f"{name}.yaml").write_text(RECIPE.format(about=name, name=name, workers=1), encoding="utf-8")
    app = make_app("local")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        tree: Tree[Any] = app.screen.query_one("#recipe-tree", Tree)
        room = tree.scrollable_content_region.width - tree.guide_depth * 2 - 1
        for folder in ("user/b200/", "user/stp/"):
            node = next(n for n in tree.root.children if str(n.label) == folder)
            shown = {n.data.label: tree.render_label(n, Style(), Style()).plain for n in node.children if n.data}
            assert len(set(shown.values())) == len(shown) and all(len(row) <= room for row in shown.values()), shown
        assert "stp_lowlat[0]" in shown_row(tree, "user/b200/", "1k1k:zip_override_stp_lowlat[0]")
        row = shown_row(tree, "user/stp/", "ctx1_gen3_dep16_batch16_eplb0_mtp0")
        assert "dep16_batch16" in row and row.endswith("mtp0"), row


def shown_row(tree: Tree[Any], folder: str, label: str) -> str:
    """How the tree draws one row of one folder."""
    node = next(n for n in tree.root.children if str(n.label) == folder)
    return next(tree.render_label(n, Style(), Style()).plain for n in node.children if n.data and n.data.label == label)


async def test_srtctls_library_rows_read_apart_at_each_size() -> None:
    """With srtctl's library in ./recipes, no two rows of a folder read the same at 80x24, 100x30 or 120x36, and
    none is wider than the tree."""
    from tests.tui.test_recipe_first import SRTCTL_LIBRARY

    require(SRTCTL_LIBRARY.is_dir(), f"srtctl's library is not at {SRTCTL_LIBRARY}")
    (Path.cwd() / "recipes").symlink_to(SRTCTL_LIBRARY)
    app = make_app("local")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for size in ((80, 24), (100, 30), (120, 36)):
            await pilot.resize_terminal(*size)
            await settle(pilot)
            tree: Tree[Any] = app.screen.query_one("#recipe-tree", Tree)
            room = tree.scrollable_content_region.width - tree.guide_depth * 2 - 1
            folders = [n for n in tree.root.children if str(n.label).startswith("./recipes/")]
            assert sum(len(f.children) for f in folders) > 500, size
            for folder in folders:
                rows = [tree.render_label(n, Style(), Style()).plain for n in folder.children if n.data is not None]
                alike = {row for row in rows if rows.count(row) > 1}
                assert not alike and all(len(row) <= room for row in rows), (size, folder.label, alike, room)


async def test_a_filter_answered_alike_puts_the_cursor_on_the_row_written_for_the_profile() -> None:
    """Operator pass (stop 29): with srtctl's library in ./recipes, the README's `/1p2d` Enter Enter chose srtctl's
    `1p2d-mtp` (GB200, labelled by its file) over the ✓ `mocker-1p2d`: a name starting with the query ranked
    above one holding it at a word's start. Both answer the word `1p2d`; the profile's row goes first."""
    lib = _user_library() / "gb200-fp4" / "1k1k"
    lib.mkdir(parents=True)
    other = (REPO / "recipes" / "mocker" / "mocker-1p2d.yaml").read_text(encoding="utf-8")
    other = other.replace("name: mocker-1p2d", "name: gb200-fp4-1p2d-mtp").replace(
        "profiles: [local, local-rocr]", "profiles: [nvidia-gb200]"
    )
    (lib / "1p2d-mtp.yaml").write_text(other, encoding="utf-8")
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        tree = await _filtered(app, pilot, "1p2d")
        assert "1p2d-mtp" in _leaves(tree) and _cursor(tree) == "mocker-1p2d", (_leaves(tree), _cursor(tree))


async def test_with_a_user_profile_the_filter_highlights_the_row_enter_takes() -> None:
    """Operator pass (issue 21, 2026-12-07): with a profile of the operator's own (no row written for it), `/1p2d`
    Enter Enter opened Topology on srtctl's `1p2d-mtp` (GB200, "do not use"), 20 rows down, drawn in the list's dim
    blurred cursor: a name starting with the query outranked the rows above it. Rows answering alike go in the
    tree's order, the first that fits the profile as written (•: the mocker's, not the MI355X one above it) first
    (op11), the cursor row is drawn highlighted while the filter has the keys, and Enter takes that row."""
    from srt_tui.tui.launch.screen import LaunchScreen as Launch

    lib = _user_library() / "gb200-fp4" / "1k1k"
    lib.mkdir(parents=True)
    other = (REPO / "recipes" / "mocker" / "mocker-1p2d.yaml").read_text(encoding="utf-8")
    other = other.replace("name: mocker-1p2d", "name: gb200-fp4-1p2d-mtp").replace(
        "profiles: [local, local-rocr]", "profiles: [nvidia-gb200]"
    )
    (lib / "1p2d-mtp.yaml").write_text(other, encoding="utf-8")
    profiles = Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "profiles"
    profiles.mkdir(parents=True, exist_ok=True)
    (profiles / "mine.yaml").write_text((REPO / "profiles" / "local.yaml").read_text(), encoding="utf-8")
    app = make_app("mine")
    async with app.run_test(size=(120, 36)) as pilot:
        tree = await _filtered(app, pilot, "1p2d")
        rows = _leaves(tree)
        assert rows[:2] == ["mi355x-1p2d-sglang-mori", "mocker-1p2d"] and "1p2d-mtp" in rows, rows
        assert _cursor(tree) == "mocker-1p2d", (rows, _cursor(tree))
        # drawn as the highlighted row although the filter field has the focus
        assert not tree.has_focus and tree.cursor_node is not None
        top = tree.region.y + 1 - round(tree.scroll_y)
        strip = app.screen._compositor.render_strips()[top + tree.cursor_line]
        shown = [seg for seg in strip.crop(tree.region.x, tree.region.right) if seg.text.strip()]
        cursor_bg = app.theme_variables["block-cursor-background"].lower()
        assert "mocker-1p2d" in "".join(seg.text for seg in shown), [seg.text for seg in shown]
        assert any(seg.style and seg.style.bgcolor and seg.style.bgcolor.name == cursor_bg for seg in shown), shown
        await pilot.press("enter", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, Launch) and screen.index == 2, app.screen
        assert screen.state.recipe_label == "mocker-1p2d"


async def test_enter_enter_in_one_burst_after_a_filter_chooses_the_rows_recipe() -> None:
    """Second operator pass (stop 29): `/1p2d` then Enter Enter sent at once stayed on the Recipe step: the first
    Enter handed the keys to the tree, the second reached the filter before the tree had the focus and was lost.
    That second Enter is the tree's: it chooses the row under the cursor."""
    from textual import events

    from srt_tui.tui.launch.screen import LaunchScreen as Launch

    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        tree = await _filtered(app, pilot, "mocker 2p1d")
        expected = _cursor(tree)
        assert expected is not None and expected.startswith("mocker-2p1d")
        for _ in range(2):
            app.post_message(events.Key("enter", "\r"))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, Launch) and screen.index == 2, app.screen
        assert screen.state.recipe is not None and screen.state.recipe_label == expected


# -- reloading (operator pass: a file added while the TUI ran was not found until a restart) ----------------------


async def test_r_reloads_the_library_keeping_the_cursor_and_the_filter_finds_a_new_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A new file in the user library is found by the filter after `r`, a removed one goes, the cursor stays on
    its recipe; the scan runs in a worker (keys move the cursor while it reads) and the hint counts its files."""
    make_library(_user_library(), folders=3, per_folder=3)
    held = [False]
    gate = hold_scan_at(monkeypatch, lambda folder: held[0] and folder == "user/zz-last")
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        screen, tree = await launch_and_tree(pilot)
        assert screen.active_bindings["r"].binding.description == "Reload"
        await pilot.press("slash", *"f01-r1", "tab")  # the keys to the tree, the filter kept
        await settle(pilot)
        assert _cursor(tree) == "r1" and tree.cursor_node is not None and tree.cursor_node.data is not None
        chosen = tree.cursor_node.data.spec
        (_user_library() / "f01" / "fresh.yaml").write_text(
            RECIPE.format(about="added meanwhile", name="fresh-one", workers=1), encoding="utf-8"
        )
        (_user_library() / "f00" / "r0.yaml").unlink()
        await pilot.press("escape")  # the filter closed: every row, the cursor still on f01's r1
        await settle(pilot)
        held[0] = True
        try:
            await pilot.press("r")
            await settle_but(pilot, "reload-recipes")
            assert "Reading recipes…" in str(screen.query_one("#recipe-hint", Static).content)
            line = tree.cursor_line
            await pilot.press("j")  # the UI answers while the library is read again
            assert tree.cursor_line == line + 1
            await pilot.press("k")
        finally:
            gate.set()
        await settle(pilot)
        assert "Reading" not in str(screen.query_one("#recipe-hint", Static).content)
        assert (
            tree.cursor_node is not None and tree.cursor_node.data is not None and tree.cursor_node.data.spec == chosen
        )
        specs = {leaf.data.spec for f in tree.root.children for leaf in f.children if leaf.data is not None}
        assert str(_user_library() / "f01" / "fresh.yaml") in specs
        assert str(_user_library() / "f00" / "r0.yaml") not in specs
        await pilot.press("slash", *"fresh-one")
        await settle(pilot)
        assert _cursor(tree) == "fresh" and "added meanwhile" in _summary(app)


async def test_r_finds_library_folders_made_after_the_start() -> None:
    """`$SRT_TUI_CONFIG_DIR/recipes` and `./recipes` made while the TUI runs are listed after `r`."""
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        _, tree = await launch_and_tree(pilot)
        assert not _user_library().exists()
        (_user_library() / "mine").mkdir(parents=True)
        (_user_library() / "mine" / "late.yaml").write_text(
            RECIPE.format(about="late", name="late-one", workers=1), encoding="utf-8"
        )
        (Path.cwd() / "recipes").mkdir()
        (Path.cwd() / "recipes" / "here.yaml").write_text(
            RECIPE.format(about="here", name="here-one", workers=1), encoding="utf-8"
        )
        await pilot.press("r")
        await settle(pilot)
        folders = [str(node.label) for node in tree.root.children]
        assert "user/mine/" in folders and "./recipes/" in folders, folders
        assert {"late", "here"} <= set(_leaves(tree))


@pytest.mark.parametrize(("profile", "first"), [("amd-mi300x", "amd/"), ("local", "amd/")])
async def test_the_tree_opens_at_its_top_when_the_placed_row_fits_below_it(profile: str, first: str) -> None:
    """At 80x24 the wizard opened scrolled to the placed row (operator pass 5: `-p` an AMD profile hid `▼ amd/`, the
    local profile the nine rows above `mocker-1p1d`): the cursor was placed before the tree had its height."""
    app = make_app(profile)
    async with app.run_test(size=(80, 24)) as pilot:
        _, tree = await launch_and_tree(pilot)
        await pilot.pause()
        height = tree.scrollable_content_region.height
        assert 0 < tree.cursor_line < height and tree.cursor_node is not None and tree.cursor_node.data is not None
        assert tree.scroll_y == 0
        assert str(tree.get_node_at_line(0).label).startswith(first)  # type: ignore[union-attr]


async def test_a_recipe_with_a_tp_that_is_not_a_number_is_refused_in_the_list_as_dry_run_refuses_it(
    tmp_path: Path,
) -> None:
    """Operator: `tp-size: eight` in a role's args listed as `badtp  1P1D · mocker` with no ✗, while `srt-tui
    dry-run -f` refused it (the core's `size_problems`, which the library scan did not apply). The row is refused
    with dry-run's reasons and lines, also when it comes back from the cache."""
    lib = _user_library() / "mine"
    lib.mkdir(parents=True)
    text = (REPO / "recipes/mocker/mocker-1p1d.yaml").read_text(encoding="utf-8")
    (lib / "badtp.yaml").write_text(text.replace("args: {tp-size: 8,", "args: {tp-size: eight,", 1))
    app = make_app("local")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"badtp", "enter")
        await settle(pilot)
        tree: Tree[Any] = app.screen.query_one("#recipe-tree", Tree)
        node = tree.cursor_node
        assert node is not None and "✗" in str(node.label), node
        entry = node.data
        assert entry is not None and entry.label == "badtp" and entry.broken, entry
        summary = " ".join(_summary(app).split())
        assert "line 28: roles.prefill.args.tp-size: `eight` is not a whole number" in summary, summary
    for _ in ("cold", "warm"):
        again = scan_library([LibraryRoot("user", lib)], cache=RecipeCache(tmp_path / "cache").load())
        assert [e.problems for e in again] == [entry.problems]
    assert (tmp_path / "cache" / "recipes.json").is_file()


async def test_a_row_placed_while_the_tree_has_no_height_is_shown_once_it_has_one() -> None:
    """In a terminal too short for any of the tree the step places `mocker-1p1d` (line 9); once the terminal is 14
    lines (an 8-line tree) that row is scrolled into view, with the rows above it that fit (it stayed below the fold:
    the step had placed it before the tree had its height)."""
    app = make_app("local")
    async with app.run_test(size=(80, 6)) as pilot:
        _, tree = await launch_and_tree(pilot)
        assert tree.scrollable_content_region.height == 0 and tree.cursor_line == 9
        await pilot.resize_terminal(80, 14)
        await settle(pilot)
        height = tree.scrollable_content_region.height
        assert tree.cursor_node is not None and tree.cursor_node.data is not None
        assert tree.cursor_line >= height and 0 < tree.cursor_line - tree.scroll_y < height


async def test_a_resize_leaves_the_view_where_the_operator_scrolled_it() -> None:
    """The placed row is shown once: a resize later does not scroll the tree back to it (it re-showed it at every
    resize of the tree, whatever the operator had scrolled to since)."""
    app = make_app("local")
    async with app.run_test(size=(80, 14)) as pilot:
        _, tree = await launch_and_tree(pilot)
        await pilot.pause()
        assert tree.scroll_y > 0
        tree.scroll_to(y=0, animate=False)
        await pilot.pause()
        await pilot.resize_terminal(80, 13)
        await settle(pilot)
        assert tree.scroll_y == 0 and tree.cursor_line >= tree.scrollable_content_region.height
