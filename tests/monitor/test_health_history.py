"""A worker's health history (issue 11, worker detail): only changes, stamped with the refresh's wall time,
bounded per worker, forgotten with the worker; seen through the Monitor against a real mock worker."""

from __future__ import annotations

from pathlib import Path

from srt_tui.monitor.model import iso_utc
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.monitor.statuses.health_log import HealthLog
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


async def test_req_per_s_falls_to_zero_once_a_real_worker_stops_serving(tmp_path: Path) -> None:
    """Issue 11, item 5: req/s showed 35/s for 15 s after load stopped. Refreshes 1 s apart (injected clock)."""
    from tests.monitor.jobdirs import send

    launcher = Launcher(tmp_path)
    mono = [1000.0]
    monitor = Monitor(None, connect_timeout=0.5, budget_s=1.0, clock=lambda: mono[0])
    try:
        (worker,) = launcher.workers(("regular", "agg_0"))
        jobs = {"local-rate": write_agg_job(tmp_path / "job", "local-rate", [(worker, 0)], nodes=1)}
        rates = []
        for _ in range(4):  # 5 requests a second
            send(worker.url, 5)
            snap = (await monitor.refresh(jobs))[0]
            rates.append(snap.rate_per_s)
            mono[0] += 1.0
        assert rates[-1] is not None and rates[-1] > 4, (rates, describe(snap))
        for _ in range(6):  # the load stops; the worker still answers
            snap = (await monitor.refresh(jobs))[0]
            mono[0] += 1.0
        assert snap.workers[0].rate_per_s == 0.0 and snap.rate_per_s == 0.0, describe(snap)
    finally:
        await monitor.aclose()
        launcher.close()


async def test_a_job_id_slurm_reuses_starts_its_history_over(tmp_path: Path) -> None:
    """Operator pass (issue 21): after a controller restart Slurm gave a new job an old one's id, and its worker
    detail showed the old job's health changes. History follows the submission (id and submission time)."""
    import json

    launcher = Launcher(tmp_path)
    wall = [T0]
    monitor = Monitor(None, connect_timeout=0.5, budget_s=1.0, backoff_base=0.1, backoff_cap=0.2,
                      wall=lambda: wall[0])  # fmt: skip
    try:
        (worker,) = launcher.workers(("regular", "agg_0"))
        job_dir = write_agg_job(tmp_path / "job", "7", [(worker, 0)], nodes=1)
        meta = json.loads((job_dir / "job.json").read_text())
        (job_dir / "job.json").write_text(json.dumps({**meta, "submitted_at": "2026-03-01T11:00:00Z"}))
        jobs = {"7": job_dir}
        snap = (await monitor.refresh(jobs))[0]
        assert [c.at for c in snap.workers[0].health_history] == [iso_utc(T0)], describe(snap)
        # the same id, submitted again (the old directory moved aside, the new one where it was)
        (job_dir / "job.json").write_text(json.dumps({**meta, "submitted_at": "2026-03-01T12:30:00Z"}))
        wall[0] += 10
        snap = (await monitor.refresh(jobs))[0]
        assert [c.at for c in snap.workers[0].health_history] == [iso_utc(wall[0])], describe(snap)
    finally:
        await monitor.aclose()
        launcher.close()


async def test_a_worker_with_nothing_to_probe_says_why_its_health_is_unknown(tmp_path: Path) -> None:
    """Operator pass: a Slurm job's events listed `prefill_0 unknown` with an empty DETAIL until the job wrote its
    addresses (on its node, as it starts), where a local job's said `not listening yet (loading?)`."""
    import json

    from srt_tui.core.jobdir.events import read_events
    from srt_tui.monitor.timeline import timeline

    proc = {"name": "prefill_0", "role": "prefill", "node_index": 0, "gpus": [0], "port": 30000}
    (tmp_path / "plan.json").write_text(json.dumps({"topology": "1P0D", "nodes": 1, "gpus_per_node": 8,
                                                    "processes": [proc], "router": None}))  # fmt: skip
    (tmp_path / "job.json").write_text(json.dumps({"job_id": "81234", "name": "pd", "launcher": "slurm"}))
    (tmp_path / "status.jsonl").write_text(
        "".join(json.dumps({"stage": s, "time": t, "detail": ""}) + "\n" for s, t in
                (("submitted", "2026-03-01T12:00:00Z"), ("starting", "2026-03-01T12:00:01.500Z")))
    )  # fmt: skip
    monitor = Monitor(None, wall=lambda: T0 + 1)  # the first refresh: in the second the job started
    try:
        snap = (await monitor.refresh({"81234": tmp_path}))[0]
        no_address = snap.workers[0].detail
        assert snap.workers[0].health == "unknown" and "no address yet" in no_address, describe(snap)
        rows = [(e.who, e.what, e.detail) for e in timeline(read_events(tmp_path), snap.workers)]
        assert rows[1:] == [("job", "starting", ""), ("prefill_0", "unknown", no_address)], rows
        workers = [{"name": "prefill_0", "url": "http://127.0.0.1:9"}]  # named, with no health URL
        (tmp_path / "endpoints.json").write_text(json.dumps({"job_id": "81234", "workers": workers}))
        snap = (await monitor.refresh({"81234": tmp_path}))[0]
        assert snap.workers[0].health == "unknown" and "no health URL" in snap.workers[0].detail, describe(snap)
    finally:
        await monitor.aclose()
