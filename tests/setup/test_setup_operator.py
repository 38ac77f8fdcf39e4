"""Setup as a new operator types into it (issue 21, operator pass of 2026-12-07): keys typed after the probes land
where the focus shows, a refused character says why, a long path wraps at its separators, the write names the file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Input, Static

from srt_tui.tui.help_screen import HelpScreen
from srt_tui.tui.setup.screen import SetupScreen
from tests.setup.recorded import setup_app
from tests.tui.scenarios import settle


@pytest.fixture(autouse=True)
def _no_animation(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    monkeypatch.chdir(tmp_path)


async def _probed(pilot: Any) -> SetupScreen:
    """Ctrl+R, as the operator ran the probes; the review step shows."""
    await pilot.press("ctrl+r")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SetupScreen)
    assert screen.query_one("#setup-switcher").current == "setup-review"  # type: ignore[attr-defined]
    return screen


def _toasts(app: Any) -> list[str]:
    return [str(toast.render()) for toast in app.screen.query("Toast")]


async def test_after_the_probes_tab_then_typing_fills_the_first_field() -> None:
    """Operator pass: `Tab op7-slurm Tab abc` after the probes gave Profile name `abc`: the first Tab went to the
    evidence pane (no cursor), which ate `op7-slurm`. The first Tab reaches Profile name, the next one Account; the
    evidence pane is the chain's last stop."""
    app = setup_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _probed(pilot)
        assert app.focused is screen.query_one("#proposal-table")
        await pilot.press("tab", *"op7-slurm", "tab", *"abc")
        await settle(pilot)
        assert screen.query_one("#choice-name", Input).value == "op7-slurm"
        assert screen.query_one("#choice-account", Input).value == "abc"
        assert app.focused is screen.query_one("#choice-account")
        chain = [w.id for w in screen.focus_chain]
        assert chain[:2] == ["proposal-table", "choice-name"] and chain[-1] == "evidence-box"


async def test_text_typed_where_no_text_goes_reaches_the_field_it_is_about() -> None:
    """Letters typed on the proposal, the evidence or a button were dropped without a word. They go to the highlighted
    row's field (the account row: Account), else to Profile name, which takes the focus; the keys bound there (`?`
    Help, `j`/`k`) keep their meaning."""
    app = setup_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _probed(pilot)
        table = screen.query_one("#proposal-table", DataTable)
        rows = [str(table.get_row_at(n)[0]) for n in range(table.row_count)]
        table.move_cursor(row=rows.index("default_time_limit"))
        await settle(pilot)
        await pilot.press(*"02:00:00")
        await settle(pilot)
        field = screen.query_one("#choice-time_limit", Input)
        assert app.focused is field and field.value == "02:00:00"
        assert screen.proposal is not None and screen.proposal.key("default_time_limit").value == "02:00:00"  # type: ignore[union-attr]

        table.focus()
        table.move_cursor(row=rows.index("gpus_per_node"))  # no field of its own: the first field
        await settle(pilot)
        await pilot.press(*"op7")
        await settle(pilot)
        assert (
            app.focused is screen.query_one("#choice-name") and screen.query_one("#choice-name", Input).value == "op7"
        )

        screen.query_one("#evidence-box").focus()
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)  # a bound key stays a key


async def test_a_refused_character_says_what_the_field_takes() -> None:
    """`abc` typed into Time limit vanished with a bell only. The field keeps its value and a toast says what it
    takes, once for the burst."""
    app = setup_app()
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        screen = await _probed(pilot)
        field = screen.query_one("#choice-time_limit", Input)
        field.focus()
        await pilot.press(*"abc")
        await settle(pilot)
        assert field.value == ""
        assert _toasts(app) == [
            "Not typed\nTime limit: digits, : and - only (minutes, HH:MM:SS or D-HH:MM:SS)\n"
            "Esc leaves the field; F1 help"
        ]
        screen.query_one("#choice-max_nodes", Input).focus()
        await pilot.press("x")
        await settle(pilot)
        assert "Not typed\nMax nodes: digits only (a node count)\nEsc leaves the field; F1 help" in _toasts(app)


def test_a_value_breaks_after_its_separators() -> None:
    from srt_tui.setup.proposal import ProposedKey
    from srt_tui.tui.setup.view import value_lines, wrap_value

    # an omitted default in brackets, on one line or around a map's entries
    assert value_lines(ProposedKey("visible_devices_env", "CUDA_VISIBLE_DEVICES", "", written=False)) == [
        "(CUDA_VISIBLE_DEVICES)"
    ]
    assert value_lines(ProposedKey("default_mounts", {"/a": "/a", "/b": "/b"}, "", written=False)) == [
        "(/a=/a",
        "/b=/b)",
    ]

    lines = ["mock-model=/tmp/op7/models/mock", "qwen=/shared/models/qwen3"]
    assert wrap_value(lines, 24).split("\n") == [
        "mock-model=/tmp/op7/",
        "models/mock",
        "qwen=/shared/models/",
        "qwen3",
    ]
    assert wrap_value(["04:00:00"], 24) == "04:00:00"
    assert wrap_value(["averyveryverylongword"], 8) == "averyveryverylongword"  # one word: the table folds it


async def test_model_paths_wrap_at_path_separators_never_mid_word() -> None:
    """Operator pass: the model_paths row read `mock-model=/tmp/op7/model` / `s/mock`. Each alias shows on its own
    line, a path broken only after a `/`; what the table shows is what is written."""
    app = setup_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _probed(pilot)
        aliases = "mock-model=/tmp/op7/models/mock,qwen=/shared/models/qwen3-32b-instruct-fp8"
        screen.query_one("#choice-models", Input).value = aliases
        await settle(pilot)
        table = screen.query_one("#proposal-table", DataTable)
        column = table.ordered_columns[1]
        row = next(n for n in range(table.row_count) if str(table.get_row_at(n)[0]) == "model_paths")
        region = table.region
        # the table as drawn: its value column, from the model_paths row down
        shown = [strip.crop(region.x, region.right).text for strip in screen._compositor.render_strips()]
        shown = shown[region.y : region.bottom]
        start = next(n for n, line in enumerate(shown) if line.lstrip().startswith("model_paths"))
        left = table.ordered_columns[0].get_render_width(table)
        value = [line[left : left + column.get_render_width(table)].strip() for line in shown]
        cell = str(table.get_row_at(row)[1]).split("\n")
        assert value[start : start + len(cell)] == cell, shown
        assert "".join(cell) == "mock-model=/tmp/op7/models/mockqwen=/shared/models/qwen3-32b-instruct-fp8"
        assert len(cell) > 2  # at this width the paths do not fit on one line each
        entry_ends = ("mock", "fp8")
        for line in cell:
            assert line.endswith(("/", ",", "=", *entry_ends)), cell


async def test_the_write_says_the_full_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Operator pass: `wrote op7-slurm.yaml to the user profile directory` did not say where that is. The line names
    the file's full path, `~/…` under home."""
    from srt_tui.tui.display import home_path

    monkeypatch.setenv("HOME", str(tmp_path))
    folder = tmp_path / ".config" / "srt-tui" / "profiles"
    app = setup_app(profiles_dir=folder)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _probed(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert screen.written == folder / "my-cluster.yaml" and screen.written.is_file()
        said = " ".join(str(screen.query_one("#write-status", Static).render()).split())
        assert said == "✓ wrote ~/.config/srt-tui/profiles/my-cluster.yaml; choose it in Launch (1)"
    assert home_path(Path("/srv/profiles/x.yaml")) == "/srv/profiles/x.yaml"
