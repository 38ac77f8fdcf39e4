"""A worker's health history (issue 11, worker detail): only changes, stamped with the refresh's wall time,
bounded per worker, forgotten with the worker; seen through the Monitor against a real mock worker."""

from __future__ import annotations

from pathlib import Path

from srt_tui.monitor.collect import Monitor
from srt_tui.monitor.health_log import HealthLog
from srt_tui.monitor.model import iso_utc
from tests.mock.mockprocs import Launcher
from tests.monitor.jobdirs import describe, write_agg_job

T0 = 1_772_366_400.0  # 2026-03-01T12:00:00Z


def test_only_changes_are_kept_bounded_and_stamped() -> None:
    log = HealthLog(keep=3)
    key = ("81234", "decode_0")
    log.note(key, T0, "unknown", "waiting")
    log.note(key, T0 + 2, "healthy", "HTTP 200")
    log.note(key, T0 + 4, "healthy", "HTTP 200")  # no change: no entry
    log.note(key, T0 + 6, "down", "connection refused")
    assert [(c.at, c.health) for c in log.changes(key)] == [
        (iso_utc(T0), "unknown"),
        (iso_utc(T0 + 2), "healthy"),
        (iso_utc(T0 + 6), "down"),
    ]
    assert log.changes(key)[-1].detail == "connection refused"
    log.note(key, T0 + 8, "healthy", "HTTP 200")
    assert [c.health for c in log.changes(key)] == ["healthy", "down", "healthy"]  # the oldest went
    log.prune(T0 + 9)  # not seen since: forgotten
    assert log.changes(key) == ()


async def test_monitor_records_a_worker_going_down_at_the_refresh_wall_time(tmp_path: Path) -> None:
    launcher = Launcher(tmp_path)
    wall = [T0]  # the injected wall clock: each refresh 10 s after the previous one
    monitor = Monitor(None, connect_timeout=0.5, budget_s=1.0, backoff_base=0.1, backoff_cap=0.2,
                      wall=lambda: wall[0])  # fmt: skip
    try:
        (worker,) = launcher.workers(("regular", "agg_0"))
        jobs = {"local-hh": write_agg_job(tmp_path / "job", "local-hh", [(worker, 0)], nodes=1)}
        snap = (await monitor.refresh(jobs))[0]
        assert snap.workers[0].health == "healthy", describe(snap)
        wall[0] += 10
        snap = (await monitor.refresh(jobs))[0]  # still healthy: no new entry
        worker.proc.stop()
        for _ in range(5):
            wall[0] += 10
            snap = (await monitor.refresh(jobs))[0]
            if snap.workers[0].health == "down":
                break
        history = snap.workers[0].health_history
        assert [c.health for c in history] == ["healthy", "down"], describe(snap)
        assert history[0].at == iso_utc(T0)  # the first refresh's wall time, not the second's
        assert history[1].at == iso_utc(wall[0]) and "refused" in history[1].detail
    finally:
        await monitor.aclose()
        launcher.close()
