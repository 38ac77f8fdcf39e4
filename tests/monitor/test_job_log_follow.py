"""The job view's log pane (`l`) keeps following a worker log written at over 1,000 lines/s, with its
lines bounded (issue 11, item 1: the pane froze while the file grew from 4,713 to 18,659 lines)."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path

from textual.widgets import Log

from srt_tui.monitor.model import LogRef
from srt_tui.widgets.log_pane import MAX_LINES, LogPane
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app

RATE_LINES_S = 1500
DURATION_S = 10.0
MAX_LAG_LINES = 3 * RATE_LINES_S


async def test_the_job_log_pane_keeps_up_with_a_fast_writer(tmp_path: Path) -> None:
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
        log = app.screen.query_one(LogPane).query_one(Log)
        thread = threading.Thread(target=writer, daemon=True)
        thread.start()
        lags: list[int] = []
        try:
            start = time.monotonic()
            while time.monotonic() - start < DURATION_S:
                await pilot.pause(0.5)
                if time.monotonic() - start < 2:
                    continue
                row = log.scrollable_content_region.height - 1
                shown = "".join(seg.text for seg in log.render_line(row)).split()
                assert shown and shown[0] == "line", f"bottom row {shown}"
                lags.append(written - int(shown[1]))
                assert log.line_count <= MAX_LINES
        finally:
            stop.set()
            thread.join()
    assert max(lags) <= MAX_LAG_LINES, f"fell behind by {max(lags)} lines ({lags[-5:]})"
