"""req/s follows the load: it falls to 0 within seconds once requests stop; a finished job keeps no stale wait
reason (issue 11, item 5)."""

from __future__ import annotations

import pytest

from srt_tui.monitor.statuses.history import RATE_WINDOW_S, CounterHistory


def test_rate_falls_to_zero_soon_after_load_stops() -> None:
    h = CounterHistory(window_s=60)
    key = ("j", "decode_0")
    for t in range(31):  # 35 req/s for 30 s, one refresh a second
        h.observe(key, float(t), 35.0 * t)
    assert h.rate(key) == pytest.approx(35.0)
    for t in range(31, 31 + int(RATE_WINDOW_S) + 1):  # then nothing
        h.observe(key, float(t), 35.0 * 30)
    assert h.rate(key) == 0.0


def test_rate_over_refreshes_further_apart_than_its_window() -> None:
    h = CounterHistory(window_s=60)
    key = ("j", "decode_0")
    h.observe(key, 0.0, 0.0)
    h.observe(key, 20.0, 100.0)
    assert h.rate(key) == pytest.approx(5.0)


def test_a_finished_job_drops_its_stale_wait_reason() -> None:
    """A pending job cancelled: Slurm still says `Resources`; neither the stage nor status --json repeat it."""
    from srt_tui.monitor.files.jobfiles import Event
    from srt_tui.monitor.statuses.stage import derive_stage
    from srt_tui.slurm.client import JobState

    submitted = [Event("submitted", "2026-03-01T11:00:00Z", "")]
    pending = JobState("7", "x", "PENDING", reason="Resources")
    cancelled = JobState("7", "x", "CANCELLED", reason="Resources")
    failed = JobState("7", "x", "FAILED", reason="NonZeroExitCode")
    assert derive_stage(submitted, pending)[2] == "Resources"
    assert derive_stage(submitted, cancelled) == ("cancelled", "2026-03-01T11:00:00Z", "Slurm: CANCELLED")
    assert derive_stage([], failed)[2] == "Slurm: FAILED (NonZeroExitCode)"  # why it failed is worth keeping
