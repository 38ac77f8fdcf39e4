"""ctrl+d / ctrl+u page half a screen wherever there is something to scroll (issue 21, new-operator pass: the job
view and the worker detail paged with them, Help moved only with PgDn and the log viewer not at all)."""

from __future__ import annotations

import time
from pathlib import Path

from textual.containers import VerticalScroll
from textual.widgets import DataTable

from srt_tui.monitor.model import LogRef
from srt_tui.tui.help_screen import HelpScreen
from srt_tui.tui.logs.log_view import LogView
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app
from tests.tui.log_follow import ViewerApp


async def test_ctrl_d_and_ctrl_u_scroll_help_at_80x24() -> None:
    snap = frozen.nvidia("degraded")
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.screen.query_one("#job-workers", DataTable).focus()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        box = app.screen.query_one("#help-box", VerticalScroll)
        assert box.max_scroll_y > 0, "the job view's keys fit one 24-row screen: nothing to scroll"
        await pilot.press("ctrl+d")
        await pilot.pause()
        down = box.scroll_y
        assert down > 0
        await pilot.press("ctrl+d")
        await pilot.pause()
        low = box.scroll_y
        assert low > down or low == box.max_scroll_y
        await pilot.press("ctrl+u")
        await pilot.pause()
        assert box.scroll_y < low
        await pilot.press("ctrl+u", "ctrl+u")
        await pilot.pause()
        assert box.scroll_y == 0
        assert isinstance(app.screen, HelpScreen)  # the keys scrolled, and Help stayed open


async def test_ctrl_u_and_ctrl_d_page_the_log_viewer(tmp_path: Path) -> None:
    path = tmp_path / "decode_0.log"
    path.write_text("".join(f"line {i:04d}\n" for i in range(300)))
    app = ViewerApp([LogRef(name="decode_0", kind="worker", path=str(path))])
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.viewer.query_one(LogView)
        deadline = time.monotonic() + 10
        while view.line_count < 300:
            assert time.monotonic() < deadline, "the log was not read"
            await pilot.pause(0.05)
        await pilot.pause()
        view.focus()
        end = view.scroll_y
        assert end == view.max_scroll_y > 0 and view.follow
        await pilot.press("ctrl+u")
        await pilot.pause()
        half = view.scrollable_content_region.height // 2
        assert view.scroll_y == end - half and not view.follow  # up: the reader left the end, following stops
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert view.scroll_y == end and view.follow  # back at the end: following again
