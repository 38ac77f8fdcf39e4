"""The log pane: ANSI colour codes never reach the screen, and it keeps following a log that grows at
over 1,000 lines/s (long lines, so a horizontal scrollbar appears) with a bounded number of lines."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import Log

from srt_tui.widgets.log_pane import MAX_LINES, LogPane

#: the acceptance of issue 11: ≥ 1,000 lines/s for 30 s
RATE_LINES_S = 1500
DURATION_S = 30.0
#: how far behind the writer the pane's last line may be (one poll plus a read, at this rate)
MAX_LAG_LINES = 3 * RATE_LINES_S


class PaneApp(App[None]):
    """One log pane, full screen."""

    def compose(self) -> ComposeResult:
        yield LogPane(id="pane")


def _bottom_row(log: Log) -> str:
    """The text of the last row the pane shows above its horizontal scrollbar (what the operator reads)."""
    return "".join(seg.text for seg in log.render_line(log.scrollable_content_region.height - 1)).strip()


async def test_ansi_colours_and_control_bytes_are_stripped(tmp_path: Path) -> None:
    path = tmp_path / "router.log"
    path.write_bytes(
        b"\x1b[2m2026-12-01T10:00:00Z\x1b[0m \x1b[32m INFO\x1b[0m \x1b[1mrouter\x1b[0m: ready\r\n"
        b"\x1b]0;a title\x07tab\there\x1b(B\n"
    )
    app = PaneApp()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(LogPane)
        pane.follow(path, "router")
        log = pane.query_one(Log)
        for _ in range(50):
            await pilot.pause(0.05)
            if log.line_count >= 2:
                break
        assert list(log.lines) == ["2026-12-01T10:00:00Z  INFO router: ready", "tab     here"]
        screen_text = "".join(seg.text for y in range(log.size.height) for seg in log.render_line(y))
        assert "\x1b" not in screen_text and "�" not in screen_text and "[32m" not in screen_text


async def test_follows_a_log_growing_fast_with_bounded_lines(tmp_path: Path) -> None:
    path = tmp_path / "worker.log"
    path.write_text("")
    written = 0
    stop = threading.Event()

    def writer() -> None:
        nonlocal written
        start = time.monotonic()
        with open(path, "a", encoding="utf-8") as fh:
            while not stop.is_set():
                due = int((time.monotonic() - start) * RATE_LINES_S)
                fh.write("".join(f"line {n:08d} \x1b[32m{'x' * 90}\x1b[0m\n" for n in range(written, due)))
                fh.flush()
                written = due
                time.sleep(0.01)

    app = PaneApp()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(LogPane)
        log = pane.query_one(Log)
        pane.follow(path, "worker")
        thread = threading.Thread(target=writer, daemon=True)
        thread.start()
        lags: list[int] = []
        try:
            start = time.monotonic()
            while time.monotonic() - start < DURATION_S:
                await pilot.pause(0.5)
                if time.monotonic() - start < 2:
                    continue  # the first reads
                shown = _bottom_row(log)
                assert shown.startswith("line "), f"bottom row {shown!r}"
                lags.append(written - int(shown.split()[1]))
                assert log.line_count <= MAX_LINES
        finally:
            stop.set()
            thread.join()
    assert written >= RATE_LINES_S * DURATION_S * 0.9
    assert lags and max(lags) <= MAX_LAG_LINES, f"fell behind: {max(lags)} lines (samples {lags[-5:]})"
