"""Setup read at common sizes (new-operator pass, issue 21): at 80x24 the review table showed 4 of its 12 keys with
nothing saying there were more, its description was cut mid-word (`…setup from p`) or, after a resize, wrapped to
five lines, and a finding's `fix:` line wrapped to column 0 on the probe step."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from textual.widget import Widget

from srt_tui.setup.findings import Finding
from srt_tui.setup.probes import ProbeOptions, ProbeRun
from srt_tui.tui.setup.screen import ProposalTable, SetupScreen
from srt_tui.tui.setup.view import value_lines
from tests.setup.recorded import recorded_run, setup_app
from tests.tui.scenarios import settle

#: an output directory one line long at 109 columns, two in the wide layout's table
LONG_DIR = "/shared/outputs/srt-tui/jobs-of-the-inference-team/cluster-a"
#: a vertical scrollbar's thumb, drawn over a pane's last columns
SCROLLBAR = re.compile("[▁▂▃▄▅▆▇█]+")
#: the fix the operator saw wrap to column 0 (`the cluster needs none)`)
ACCOUNT_FIX = "enter the account your jobs should charge (or leave it empty if the cluster needs none)"


@pytest.fixture(autouse=True)
def _no_animation(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")
    monkeypatch.chdir(tmp_path)


def _drawn(widget: Widget, *, inside: bool = False) -> list[str]:
    """What the screen shows in the widget's region (``inside``: within its border and padding), line by line."""
    region = widget.content_region if inside else widget.region
    strips = widget.screen._compositor.render_strips()
    lines = [strip.crop(region.x, region.right).text for strip in strips[region.y : region.bottom]]
    return [SCROLLBAR.sub(" ", line).rstrip() for line in lines]


def _keys_shown(screen: SetupScreen) -> list[str]:
    """The proposal keys whose row shows whole in the table."""
    keys = [key.key for key in screen.proposal.keys] if screen.proposal is not None else []
    return [
        line.split()[0] for line in _drawn(screen.query_one(ProposalTable)) if line.split()[:1] in ([k] for k in keys)
    ]


def _rows(screen: SetupScreen) -> dict[str, list[str]]:
    """The value lines of each proposal row the table shows whole (a row is whole when the next one starts below)."""
    table = screen.query_one(ProposalTable)
    keys = {key.key for key in screen.proposal.keys} if screen.proposal is not None else set()
    key_width = next(iter(table.columns.values())).get_render_width(table)
    rows: list[tuple[str, list[str]]] = []
    for line in _drawn(table):
        if line[:key_width].strip() in keys:
            rows.append((line[:key_width].strip(), []))
        if rows:
            rows[-1][1].append(line[key_width:].strip())
    last = rows[-1][0] if rows and screen.proposal is not None and rows[-1][0] != screen.proposal.keys[-1].key else ""
    return {key: [line for line in lines if line] for key, lines in rows if key != last}


def _table_fits(screen: SetupScreen) -> None:
    """Every value shows whole and wraps only when it must: the columns fit the table, each row's lines make its
    value, and a value on more than one line is wider than the room the table has for it. The description, short,
    is one line."""
    table = screen.query_one(ProposalTable)
    assert screen.proposal is not None
    width = sum(c.get_render_width(table) for c in table.columns.values())
    assert width <= table.scrollable_content_region.width, (width, table.scrollable_content_region.width)
    key_width = next(iter(table.columns.values())).get_render_width(table)
    room = table.scrollable_content_region.width - key_width - 2 * table.cell_padding
    rows = _rows(screen)
    assert len(rows) >= 5, rows
    for key in screen.proposal.keys:
        if key.key not in rows:
            continue
        value = " ".join(value_lines(key))
        assert "".join(rows[key.key]).replace(" ", "") == value.replace(" ", ""), (key.key, rows[key.key])
        assert len(rows[key.key]) == len(value_lines(key)) or len(max(value_lines(key), key=len)) > room, (
            key.key,
            rows[key.key],
            room,
        )
    assert rows["description"] == ["probed by srt-tui setup"]


async def _more_says_what_is_hidden(pilot: Any, screen: SetupScreen) -> str:
    """The line under the table counts the keys out of its view; returns what it says."""
    assert screen.proposal is not None
    total = len(screen.proposal.keys)
    more = screen.query_one("#proposal-more")
    shown = _keys_shown(screen)
    said = " ".join(_drawn(more)).strip() if more.display else ""
    hidden = total - len(shown)
    assert said == (f"↓ {hidden} more keys below" if hidden else ""), (said, shown)
    return said


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_the_review_table_shows_every_key_or_says_how_many_more(size: tuple[int, int]) -> None:
    """At 80x24 most keys show and the line under the table says how many more are below, with the table focused
    (its arrows scroll it); at 100x30 every key shows and nothing is said."""
    app = setup_app()
    async with app.run_test(size=size) as pilot:
        await pilot.click("#run-probes")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SetupScreen) and screen.proposal is not None
        table = screen.query_one(ProposalTable)
        assert app.focused is table
        said = await _more_says_what_is_hidden(pilot, screen)
        _table_fits(screen)
        if size == (100, 30):
            assert said == "" and len(_keys_shown(screen)) == len(screen.proposal.keys)
            return
        assert said and len(_keys_shown(screen)) >= 9  # 4 showed before
        await pilot.press("end")
        await settle(pilot)
        last = screen.proposal.keys[-1].key
        assert _keys_shown(screen)[-1] == last
        more = " ".join(_drawn(screen.query_one("#proposal-more"))).strip()
        above = len(screen.proposal.keys) - len(_keys_shown(screen))
        assert more == f"↑ {above} keys above", more


@pytest.mark.parametrize("sizes", [((120, 36), (80, 24)), ((80, 24), (120, 36)), ((80, 24), (100, 30), (80, 24))])
async def test_the_review_table_is_fitted_again_after_a_resize(sizes: tuple[tuple[int, int], ...]) -> None:
    app = setup_app()
    async with app.run_test(size=sizes[0]) as pilot:
        await pilot.click("#run-probes")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        for size in sizes[1:]:
            await pilot.resize_terminal(*size)
            await settle(pilot)
            _table_fits(screen)
            await _more_says_what_is_hidden(pilot, screen)


@pytest.mark.parametrize("narrow", [True, False])
async def test_the_values_follow_the_tables_own_width(narrow: bool) -> None:
    """The screen's -narrow/-wide class (which lays the panes out) can change after the screen's resize was handled:
    the fit made then was for the old layout, and the values were cut at the table's edge (`…setup from p`) or
    wrapped to five lines. The values are fitted whenever the table's own width changes."""
    app = setup_app()
    async with app.run_test(size=(109, 30) if narrow else (110, 30)) as pilot:  # either side of the breakpoint
        await pilot.click("#run-probes")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        screen.query_one("#choice-output_dir").value = LONG_DIR  # type: ignore[attr-defined]
        await settle(pilot)
        before = screen.query_one(ProposalTable).size.width
        screen.set_class(not narrow, "-narrow")  # the other layout, the terminal as it is
        screen.set_class(narrow, "-wide")
        await settle(pilot)
        assert screen.query_one(ProposalTable).size.width != before
        _table_fits(screen)


async def test_a_findings_fix_wraps_in_its_own_column() -> None:
    """A long finding and its `fix:` wrap under their own start at 80 and 60 columns, never at column 0 (the
    Problems panel's lines wrap the same way)."""

    def runner(options: ProbeOptions, progress: object) -> ProbeRun:
        run = recorded_run()
        run.findings[2] = Finding.note(
            "account", "sacctmgr shows no default account for user op9 on cluster op9-slurm", "", fix=ACCOUNT_FIX
        )
        return run

    app = setup_app(runner=runner)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.click("#run-probes")
        await settle(pilot)
        await pilot.press("escape")  # back to the probe step and its findings
        await settle(pilot)
        for width in (80, 60):
            await pilot.resize_terminal(width, 24)
            await settle(pilot)
            box = app.screen.query_one("#probe-findings-box")
            lines = [line for line in _drawn(box, inside=True) if line.strip()]
            fix = next(i for i, line in enumerate(lines) if line.lstrip().startswith("fix: "))
            column = lines[fix].index("fix: ") + len("fix: ")
            assert fix >= 2 and lines[0].startswith(" · account: ")  # the finding wrapped too, under its start
            assert all(line[: len(" · account: ")].strip() == "" for line in lines[1:fix]), lines
            assert len(lines) > fix + 1 and all(line[:column].strip() == "" for line in lines[fix + 1 :]), lines
            said = " ".join(" ".join(lines[fix:]).split())
            assert said == f"fix: {ACCOUNT_FIX}"
