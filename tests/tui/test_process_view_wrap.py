"""Issue 21 polish: the Preview's Processes tab wrapped a long command back to column 1, where its tail read as
the next section; continuation lines stay indented under the command."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult
from textual.geometry import Region

from srt_tui.core.api import prepare
from srt_tui.tui.launch.process_view import ProcessView

REPO = Path(__file__).resolve().parents[2]


class ProcessApp(App[None]):
    """Only the process view, showing one plan."""

    def compose(self) -> ComposeResult:
        yield ProcessView(id="processes")


async def test_a_long_command_wraps_under_itself_at_80_columns() -> None:
    plan = prepare(REPO / "recipes/mocker/mocker-1p1d.yaml", "local").plan
    app = ProcessApp()
    async with app.run_test(size=(80, 40)) as pilot:
        app.query_one(ProcessView).show(plan)
        await pilot.pause()
        detail = app.query_one("#process-detail")
        lines = [s.text.rstrip() for s in detail.render_lines(Region(0, 0, detail.size.width, detail.size.height))]
        command = lines.index("command")
        body = lines[command + 1 : lines.index("environment")]
        assert len(body) > 1, lines  # the command is long enough to wrap at 80 columns
        assert all(line.startswith("  ") and line.strip() for line in body), body
        env = lines[lines.index("environment") + 1 :]
        assert all(line.startswith("  ") for line in env if line), env
