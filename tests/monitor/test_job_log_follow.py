"""The job view's `l` opens the log viewer on the worker's log, and it keeps following a log written at
over 1,000 lines/s with its lines bounded (issue 11, item 1: the old pane froze while the file grew from
4,713 to 18,659 lines). The 30-second run and the memory bound are in tests/tui/test_log_viewer.py; how far
the view trails the writer is a machine figure, printed by benchmarks/log_follow.py, not asserted here."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path

from srt_tui.monitor.model import LogRef
from srt_tui.tui.logs.log_view import MAX_LINES, LogView
from srt_tui.tui.logs.screen import LogViewerScreen
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app

RATE_LINES_S = 1500
DURATION_S = 3.0  # the 30 s acceptance run is tests/tui/test_log_viewer.py
CATCH_UP_S = 60.0  # after the writer stops, the last line must arrive (a deadline, not a speed)


def _bottom_row(view: LogView) -> list[str]:
    row = view.scrollable_content_region.height - 1
    return "".join(seg.text for seg in view.render_line(row)).split()


async def test_the_job_log_viewer_keeps_up_with_a_fast_writer(tmp_path: Path) -> None:
    path = tmp_path / "decode_0.log"
    path.write_text("".join(f"line {n:08d} start\n" for n in range(4713)))
    written = 4713
    stop = threading.Event()

    def writer() -> None:
        nonlocal written
        start, base = time.monotonic(), written
        with open(path, "a", encoding="utf-8") as fh:
            while not stop.is_set():
                due = base + int((time.monotonic() - start) * RATE_LINES_S)
                fh.write("".join(f"line {n:08d} \x1b[32mINFO\x1b[0m {'r' * 120}\n" for n in range(written, due)))
                fh.flush()
                written = due
                time.sleep(0.01)

    snap = frozen.nvidia("healthy")
    snap = replace(snap, logs=(LogRef(name="decode_0", kind="worker", path=str(path)),))
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("l")
        await pilot.pause(0.2)
        assert isinstance(app.screen, LogViewerScreen) and app.screen.ref.path == str(path)
        view = app.screen.query_one(LogView)
        thread = threading.Thread(target=writer, daemon=True)
        thread.start()
        seen: list[int] = []
        try:
            start = time.monotonic()
            while time.monotonic() - start < DURATION_S:
                await pilot.pause(0.5)
                shown = _bottom_row(view)
                assert shown and shown[0] == "line", f"bottom row {shown}"
                seen.append(int(shown[1]))
                assert view.line_count <= MAX_LINES
        finally:
            stop.set()
            thread.join()
        assert seen == sorted(seen) and seen[-1] > seen[0], f"the bottom row did not move on: {seen}"
        deadline = time.monotonic() + CATCH_UP_S
        while int(_bottom_row(view)[1]) != written - 1 and time.monotonic() < deadline:
            await pilot.pause(0.2)
        assert int(_bottom_row(view)[1]) == written - 1, "the log's last line never reached the view"
        assert view.line_count <= MAX_LINES
