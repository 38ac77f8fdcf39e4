"""The Monitor's job list, loading the job index, also finds what an `apply` killed mid-submission
left behind: the held job is adopted into the index (so it is polled and cancellable) and the
operator is told what to do with it."""

from __future__ import annotations

import getpass
import json
import os
import socket
from collections.abc import Mapping
from pathlib import Path

from srt_tui.core.paths import default_output_dir
from srt_tui.monitor.model import JobSnapshot
from srt_tui.tui.monitor.screen import MonitorScreen
from tests.monitor.tui_apps import MonitorTestApp


class RecordingFeed:
    """No snapshots; remembers which jobs the screen asked about."""

    def __init__(self) -> None:
        self.asked: list[set[str]] = []

    async def refresh(self, jobs: Mapping[str, Path]) -> list[JobSnapshot]:
        self.asked.append(set(jobs))
        return []

    async def aclose(self) -> None:
        pass


async def test_the_job_list_adopts_a_held_job_left_by_a_killed_apply() -> None:
    base = default_output_dir()
    staged = base / f".staged-20260101-000000-{2**22 + 7}"  # a pid no process has
    staged.mkdir(parents=True)
    meta = {"job_id": "9191", "user": getpass.getuser(), "host": socket.gethostname()}
    (staged / "job.json").write_text(json.dumps(meta))
    feed = RecordingFeed()
    app = MonitorTestApp(lambda hub: MonitorScreen(hub, feed, discover=True, poll_interval=30))
    async with app.run_test() as pilot:
        for _ in range(50):
            await pilot.pause(0.05)
            if feed.asked:
                break
        await pilot.pause(0.1)
        messages = [n.message for n in app._notifications]
    assert feed.asked and "9191" in feed.asked[0]
    assert any(m.startswith("job 9191: its `apply` was killed before release") for m in messages), messages
    assert (base / "9191" / "job.json").is_file() and not staged.exists()
    assert os.environ["SRT_TUI_OUTPUT_DIR"] == str(base)  # the test's own isolated output directory
