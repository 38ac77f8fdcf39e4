"""The wizard opens where the operator is (issue 21: the first screenful of recipes in <= 0.5 s): with the profile
already chosen (`srt-tui -p PROFILE`, or srtctl's srtslurm.yaml found the srtctl way) it opens on the recipe
list, as srtctl's interactive mode does, with rows on screen while the library is still read; the Profile step
stays one key back. With nothing chosen it opens on the Profile step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import ContentSwitcher, DataTable, Static, Tree

from srt_tui.tui.launch.screen import LaunchScreen
from srt_tui.widgets.step_bar import StepBar
from tests.conftest import REPO, require
from tests.tui.scenarios import settle
from tests.tui.tui_helpers import hold_scan_at, make_app, settle_but

#: srtctl's whole library (555 files), the library the issue measures
SRTCTL_LIBRARY = REPO.parent / "shared" / "reference" / "srtctl-recipes-all" / "recipes"


def _step(app: Any) -> str:
    return str(app.screen.query_one("#steps", ContentSwitcher).current)


def _leaves(tree: Tree[Any]) -> list[Any]:
    return [leaf.data for folder in tree.root.children for leaf in folder.children if leaf.data is not None]


async def test_a_profile_given_opens_on_the_recipe_list_while_srtctls_library_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    require(SRTCTL_LIBRARY.is_dir(), f"srtctl's library is not at {SRTCTL_LIBRARY}")
    (Path.cwd() / "recipes").symlink_to(SRTCTL_LIBRARY)  # the TUI tests run in a scratch directory
    last = (
        "./recipes/"
        + sorted({p.parent for p in SRTCTL_LIBRARY.rglob("*.y*ml")})[-1].relative_to(SRTCTL_LIBRARY).as_posix()
    )
    gate = hold_scan_at(monkeypatch, lambda folder: folder == last)  # srtctl's last folder, until looked at
    app = make_app("local")
    async with app.run_test(size=(120, 36)) as pilot:
        try:
            await settle_but(pilot, "scan-recipes")
            screen = app.screen
            assert isinstance(screen, LaunchScreen) and _step(app) == "step-recipe"
            tree: Tree[Any] = screen.query_one("#recipe-tree", Tree)
            for _ in range(400):  # the scan reads in its thread: srtctl's first folders come in while it reads
                if sum(1 for e in _leaves(tree) if e.folder.startswith("./recipes/")) >= 25:
                    break
                await pilot.pause(0.05)
            assert not screen.query("#step-profile")  # the Profile step is not even built until it is wanted
            assert screen.state.library.loading and not tree.loading
            rows = _leaves(tree)
            assert sum(1 for e in rows if e.folder.startswith("./recipes/")) >= 25  # srtctl's, while it is read
            read, total = screen.state.library.counts
            assert read < total and f"Reading recipes… {read}/{total} files" in str(
                screen.query_one("#recipe-hint", Static).content
            )
            assert screen.focused is tree  # keys move in the tree at once
            bar = screen.query_one(StepBar)
            assert bar.current == 1 and "local" in bar.note  # the step bar shows the profile given
            assert app.context.profile_label == "local (shipped)"
            assert any("✓" in str(leaf.label) for folder in tree.root.children for leaf in folder.children)
            await pilot.press("escape")  # the Profile step is one key back, the given profile highlighted
            await settle_but(pilot, "scan-recipes")
            assert _step(app) == "step-profile"
            table: DataTable[Any] = screen.query_one("#profile-table", DataTable)
            assert str(table.get_row_at(table.cursor_row)[1]) == "local"
            await pilot.press("enter")
            await settle_but(pilot, "scan-recipes")
            assert _step(app) == "step-recipe" and len(_leaves(tree)) >= len(rows)  # the same tree, still filling
        finally:
            gate.set()
        await settle(pilot)
        assert not screen.state.library.loading


async def test_nothing_chosen_opens_on_the_profile_list() -> None:
    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert _step(app) == "step-profile" and app.screen.query_one("#profile-table", DataTable).row_count


async def test_srtslurm_yaml_found_the_srtctl_way_opens_on_the_recipe_list(monkeypatch: pytest.MonkeyPatch) -> None:
    checkout = Path.cwd() / "srt-slurm"
    checkout.mkdir()
    (checkout / "srtslurm.yaml").write_text((REPO / "profiles" / "local.yaml").read_text(encoding="utf-8"))
    monkeypatch.chdir(checkout)
    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert _step(app) == "step-recipe"
        assert app.context.profile_label == "srt-slurm (srtslurm.yaml)"
        assert "srt-slurm" in app.screen.query_one(StepBar).note


async def test_a_profile_given_that_cannot_be_read_opens_the_profile_step() -> None:
    app = make_app("no-such-profile")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert _step(app) == "step-profile"
        shown = [str(n.message) for n in app._notifications]
        assert any("no profile named `no-such-profile`" in m and "known profiles" in m for m in shown), shown
