"""Launch highlights the profile this user last chose or submitted with (new-operator pass, s36): it always
highlighted the demo `local`, even after Setup wrote the operator's own profile and they had used it. `-p` still
wins; a remembered profile that is gone, or a state file that is damaged or not the user's own, falls back quietly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from textual.widgets import DataTable

from srt_tui.state.last_profile import last_profile_path, remember_profile, remembered_profile
from srt_tui.tui.launch.profile_facts import ProfileRow
from tests.conftest import REPO
from tests.tui.scenarios import settle
from tests.tui.tui_helpers import make_app


def _mine(name: str = "a-mine") -> None:
    path = Path(os.environ["SRT_TUI_CONFIG_DIR"]) / "profiles" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text((REPO / "profiles" / "local.yaml").read_text(), encoding="utf-8")


def _highlighted(app: Any) -> str:
    table: DataTable[Any] = app.screen.query_one("#profile-table", DataTable)
    return str(table.get_row_at(table.cursor_row)[1])


def test_a_name_is_remembered_and_read_back() -> None:
    assert remembered_profile() is None
    assert remember_profile("a-mine", "user")
    assert remembered_profile() == "a-mine"
    assert oct(last_profile_path().stat().st_mode & 0o777) == "0o600"


def test_a_profile_given_as_a_file_is_not_remembered() -> None:
    assert not remember_profile("srtslurm", "srtslurm.yaml")
    assert not remember_profile("x", "file")
    assert remembered_profile() is None


def test_a_damaged_or_foreign_file_falls_back_quietly() -> None:
    remember_profile("a-mine", "user")
    path = last_profile_path()
    for text in ("{not json", '{"profile": "../etc/passwd"}', '["a-mine"]', '{"profile": 3}'):
        path.write_text(text, encoding="utf-8")
        assert remembered_profile() is None, text
    path.write_text('{"profile": "a-mine"}', encoding="utf-8")
    path.chmod(0o666)  # others could write it: not trusted
    assert remembered_profile() is None


async def test_launch_opens_on_the_profile_chosen_last_time() -> None:
    _mine()
    app = make_app(None)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert _highlighted(app) == "local"  # nothing remembered yet
        await pilot.press("down", "enter")  # `a-mine`, listed right after the demo
        await settle(pilot)
    assert remembered_profile() == "a-mine"
    again = make_app(None)
    async with again.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert _highlighted(again) == "a-mine"


async def test_p_wins_and_a_profile_that_is_gone_falls_back_to_the_demo() -> None:
    remember_profile("gone", "user")  # remembered, then its file was removed
    app = make_app(None)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert _highlighted(app) == "local"
    _mine()
    remember_profile("a-mine", "user")
    given = make_app("nvidia-h100")  # opens on the recipe list; back to the profiles, `-p`'s is highlighted
    async with given.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert _highlighted(given) == "nvidia-h100"


def test_the_reader_process_marks_the_remembered_row() -> None:
    """The rows come from the recipe reader process when the wizard opens on them: it reads the remembered name
    there (the app read it on the UI thread, and imported the state file's checks before the first frame)."""
    _mine()
    assert remember_profile("a-mine", "user")
    out = subprocess.run(
        [sys.executable, "-m", "srt_tui.tui.launch.recipe_reader", "[]", "--profiles"],
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    rows = [ProfileRow.from_facts(d) for d in json.loads(out.splitlines()[0])["profiles"]]
    assert [r.name for r in rows if r.remembered] == ["a-mine"]
    assert not ProfileRow.from_facts({**rows[0].facts(), "remembered": False}).remembered
