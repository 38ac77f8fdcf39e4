"""Role fields on the Topology step are counts (issue 21, defect 7): letters typed there are refused as they
are typed (`82lq` in GPUs was kept, and `q` did not quit either), so the field keeps digits only."""

from __future__ import annotations

from tests.tui.scenarios import NVIDIA, SCENARIOS, reach, settle
from tests.tui.tui_helpers import make_app, prefill_gpus_field


async def test_numeric_fields_take_digits_only() -> None:
    """The refused letters are said (operator pass: a bell alone, and `abc` vanished): one toast names the field and
    what it takes, as Setup's Time limit and Max nodes do (one TypedInput)."""
    app = make_app(NVIDIA.profile)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        box = await prefill_gpus_field(pilot)
        await pilot.press("8", "2", "l", "q", "x")
        await pilot.pause()
        assert box.value == "82"
        assert app.is_running  # `q` in a field is text, refused here, never Quit
        toasts = [str(toast.render()) for toast in app.screen.query("Toast")]
        assert toasts == ["Not typed\nprefill GPUs: digits only (a count)\nEsc leaves the field; F1 help"]


async def test_a_burst_after_backspace_keeps_its_order() -> None:
    """Issue 21 defect 9: `BSpace 4` arriving at once (tmux, ssh) left the field empty — Textual ran the
    Backspace binding after the `4` it had already inserted. Both keys are queued before either is handled."""
    from textual import events

    app = make_app(NVIDIA.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        box = await prefill_gpus_field(pilot)
        box.cursor_position = len(box.value)  # `4`, the cursor after it
        await pilot.pause()
        for key, char in (("backspace", "\x7f"), ("7", "7")):
            app.post_message(events.Key(key, char))
        await pilot.pause()
        await pilot.pause()
        assert box.value == "7"


async def test_preview_tabs_switch_with_brackets_and_help_says_so() -> None:
    """Issue 21 item 12: the preview's tabs needed the mouse or the tab bar's focus; `]`/`[` switch them,
    and `?` lists the key; the tab shown takes the focus, so ↓ acts on it (the Processes tab's arrows needed
    Tab first); the Mounts & env tab says a profile's GPU exporter does not run without telemetry."""
    from textual.widgets import Static, TabbedContent

    from srt_tui.tui.help_screen import HelpScreen
    from srt_tui.tui.launch.steps.preview_step import PreviewStep

    scenario = SCENARIOS["nvidia"]
    app = make_app(scenario.profile)
    async with app.run_test(size=(120, 36)) as pilot:
        await reach(pilot, scenario, "preview", typed=False)
        tabs = app.screen.query_one("#preview-tabs", TabbedContent)
        assert tabs.active == "tab-script"
        await pilot.press("right_square_bracket", "right_square_bracket")
        await pilot.pause()
        assert tabs.active == "tab-env"
        from tests.tui.test_tui_wizard import _plain

        exporter = _plain(app.screen.query_one("#mounts-env", Static)).split("GPU exporter", 1)[1]
        planned = app.screen.query_one(PreviewStep).prepared.plan.gpu_exporter  # type: ignore[union-attr]
        assert planned is not None and not planned.launched  # the profile has one; the recipe no telemetry
        assert exporter.split()[:3] == ["not", "launched:", "telemetry"], exporter
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert tabs.active == "tab-processes"
        # the tab's own content has the focus: ↓ moves the process table's cursor at once (no Tab first)
        from srt_tui.widgets.row_table import RowTable

        table = app.screen.query_one("#process-table", RowTable)
        assert app.focused is table
        await pilot.press("down")
        assert table.cursor_row == 1
        await pilot.press("left_square_bracket", "left_square_bracket")
        await settle(pilot)  # the tab's content takes the focus after the next refresh
        assert tabs.active == "tab-sbatch"  # wraps around
        assert app.focused is not None and tabs.get_pane("tab-sbatch") in app.focused.ancestors, app.focused
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert any(r.description.startswith("Next preview tab") for r in app.screen.rows)
        assert ("everywhere", "^c", "Quit (works in text fields too)") in {
            (r.scope, r.key, r.description) for r in app.screen.rows
        }
        assert not any("super" in r.key for r in app.screen.rows)  # Textual's macOS keys: no terminal sends them
        # Textual's ten movement bindings of the focused view are one row, not `Scroll Up`, `Page Left`, …
        moves = [r for r in app.screen.rows if r.description.startswith(("Scroll ", "Page ", "Cursor "))]
        assert not moves, moves
        assert ("↑↓←→", "Move or scroll (PgUp/PgDn and Home/End too)") in {
            (r.key, r.description) for r in app.screen.rows
        }


async def test_the_mounts_and_env_tab_wraps_under_its_indent_at_80_columns() -> None:
    """Operator pass (issue 21): at 80 columns the GPU exporter's note wrapped its image to column 0, out of
    its section's indent. Indented lines wrap under their own start."""
    from textual.geometry import Region
    from textual.widgets import Static

    scenario = SCENARIOS["nvidia"]
    app = make_app(scenario.profile)
    async with app.run_test(size=(80, 24)) as pilot:
        await reach(pilot, scenario, "preview", typed=False)
        await pilot.press("right_square_bracket", "right_square_bracket")
        panel = app.screen.query_one("#mounts-env", Static)
        lines: list[str] = []
        for _ in range(50):  # the tab's content is laid out after the switch (and the focus that follows it)
            await pilot.pause(0.05)
            lines = [s.text.rstrip() for s in panel.render_lines(Region(0, 0, panel.size.width, panel.size.height))]
            if any(line.strip() == "GPU exporter" for line in lines):
                break
        exporter = lines[next(i for i, line in enumerate(lines) if line.strip() == "GPU exporter") + 1 :]
        shown = [line for line in exporter if line.strip()]
        assert len(shown) >= 2, exporter  # the note wraps at this width
        assert all(line.startswith("  ") for line in shown), shown
