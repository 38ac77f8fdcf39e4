"""The monitor against real mock workers behind the real sglang-router and vllm-router (no Slurm): counters per worker,
and every fault (dead worker, dead router, failing health, dead Slurm controller) shows within two
refreshes and clears after recovery."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from srt_tui.monitor import cells
from srt_tui.monitor.model import JobSnapshot
from srt_tui.monitor.snapshot.collect import Monitor
from srt_tui.slurm.cli_transport import CliTransport
from tests.conftest import require
from tests.monitor.jobdirs import PdJob, describe, refresh_until, send, start_pd_job

pytestmark = pytest.mark.routers
JOB = "local-pd"  # a local id: no Slurm needed (state from the job dir)


@pytest.fixture(scope="module", params=["sglang", "vllm"])
def job(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[PdJob]:
    """The same 1P2D job of real processes behind each real router in turn."""
    kind = request.param
    module = f"{kind}_router"
    require(importlib.util.find_spec(module) is not None, f"{kind}-router is not installed (pip install -e .[test])")
    pd = start_pd_job(tmp_path_factory.mktemp("jobs") / JOB, JOB, kind)
    try:
        yield pd
    finally:
        pd.launcher.close()


def _w(snap: JobSnapshot, name: str):  # type: ignore[no-untyped-def]
    return next(w for w in snap.workers if w.name == name)


async def test_counters_match_requests_sent_per_worker(job: PdJob, monitor: Monitor) -> None:
    jobs = {JOB: job.dir}
    before = (await monitor.refresh(jobs))[0]
    assert before.stage == "serving" and before.router is not None and before.router.up, describe(before)
    base = {w.name: w.requests_total or 0.0 for w in before.workers}
    answered = send(job.router.url, 30)
    snap = (await monitor.refresh(jobs))[0]
    for name in ("decode_0", "decode_1"):
        sent = answered.count(name)
        assert sent > 0
        assert _w(snap, name).requests_total == base[name] + sent, describe(snap)
        assert _w(snap, name).requests_total == job.workers[name].served()  # the mock's own count
        assert _w(snap, name).requests_failed == 0
    assert _w(snap, "prefill_0").requests_total == base["prefill_0"] + 30  # every P/D request has a prefill leg
    assert snap.router is not None and snap.router.requests is not None and snap.router.requests >= 30
    assert snap.router.registered == {"prefill": 1, "decode": 2} and snap.router.healthy == snap.router.registered
    assert all(w.router_healthy for w in snap.workers)
    assert snap.requests == snap.router.requests  # job totals as the client sees them
    # a rate needs history: the monitor kept it across refreshes
    assert _w(snap, "decode_0").rate_per_s is not None and _w(snap, "decode_0").rate_per_s > 0
    assert max(v for v in _w(snap, "decode_0").spark if v is not None) > 0


async def test_worker_death_shows_within_two_refreshes_and_recovers(job: PdJob, monitor: Monitor) -> None:
    jobs = {JOB: job.dir}
    await monitor.refresh(jobs)
    job.kill_worker("decode_1")
    snap, used = await refresh_until(lambda: monitor.refresh(jobs), lambda s: _w(s, "decode_1").health == "down", 2)
    w = _w(snap, "decode_1")
    assert "refused" in w.detail and w.stale
    assert w.log_tail and any("decode_1" in line for line in w.log_tail)  # its last log lines show
    assert _w(snap, "decode_0").health == "healthy" and snap.router is not None and snap.router.up
    assert not snap.source("http").ok and "decode_1" in snap.source("http").error  # type: ignore[union-attr]
    assert snap.degraded
    job.restart_worker("decode_1")
    snap, _ = await refresh_until(lambda: monitor.refresh(jobs), lambda s: _w(s, "decode_1").health == "healthy", 8)
    assert snap.source("http").ok and not _w(snap, "decode_1").stale  # type: ignore[union-attr]


async def test_router_death_shows_down_while_workers_stay_visible(job: PdJob, monitor: Monitor) -> None:
    jobs = {JOB: job.dir}
    await monitor.refresh(jobs)
    job.kill_router()
    snap, _ = await refresh_until(
        lambda: monitor.refresh(jobs), lambda s: s.router is not None and s.router.up is False, 2
    )
    assert snap.router is not None and "refused" in snap.router.detail
    assert [w.health for w in snap.workers] == ["healthy"] * 3  # workers still probed directly
    assert all(w.requests_total is not None for w in snap.workers)
    job.restart_router()
    snap, _ = await refresh_until(
        lambda: monitor.refresh(jobs),
        lambda s: s.router is not None and s.router.up is True and s.router.registered.get("decode") == 2,
        10,
    )
    assert snap.source("http").ok  # type: ignore[union-attr]


async def test_a_stopped_router_reads_hung_keeps_its_registrations_and_the_job_degraded(
    job: PdJob, monitor: Monitor
) -> None:
    """s36 new-operator pass: `kill -STOP` of the router read `● down stale · registered P 0/1 D 0/2` and the stage
    `serving`. It takes connections and sends no reply: `hung`, its last registrations kept (stale), the job
    `degraded · router hung`; up again after CONT."""
    jobs = {JOB: job.dir}
    await refresh_until(
        lambda: monitor.refresh(jobs), lambda s: s.router is not None and s.router.registered.get("decode") == 2, 8
    )
    pid = job.router.proc.popen.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        snap, _ = await refresh_until(
            lambda: monitor.refresh(jobs), lambda s: s.router is not None and s.router.up is False, 8
        )
        r = snap.router
        assert r is not None and r.state == "hung" and r.stale, describe(snap)
        assert r.registered == {"prefill": 1, "decode": 2}, describe(snap)  # the last seen, not `P 0/1 D 0/2`
        assert cells.stage_cell(snap) == "degraded · router hung", describe(snap)
        assert any(p.startswith(f"router {r.type} hung: not answering") for p in cells.problems(snap))
    finally:
        os.kill(pid, signal.SIGCONT)
    snap, _ = await refresh_until(
        lambda: monitor.refresh(jobs), lambda s: s.router is not None and s.router.up is True, 8
    )
    assert cells.stage_cell(snap).startswith("serving"), describe(snap)


async def test_failing_health_shows_unhealthy_and_clears(job: PdJob, monitor: Monitor) -> None:
    jobs = {JOB: job.dir}
    await monitor.refresh(jobs)
    job.post("decode_0", "/mock/health", ok="0")
    try:
        snap, _ = await refresh_until(
            lambda: monitor.refresh(jobs), lambda s: _w(s, "decode_0").health == "unhealthy", 2
        )
        assert "503" in _w(snap, "decode_0").detail
        assert _w(snap, "decode_0").requests_total is not None  # /metrics still answers
    finally:
        job.post("decode_0", "/mock/health", ok="1")
    await refresh_until(lambda: monitor.refresh(jobs), lambda s: _w(s, "decode_0").health == "healthy", 2)


async def test_a_steady_routers_registrations_are_read_seldom_and_at_once_when_a_worker_falters(
    job: PdJob, monitor: Monitor
) -> None:
    """Noticed at stop 28: polled every refresh, the Monitor's `GET /workers` were 80 of a router's 182 log lines
    after a minute. Once the registrations are the plan's, all healthy, and every worker answers healthy, they
    are read every 15 s (and not shown as stale meanwhile); a worker that falters has them read at every
    refresh again, so the router's view of it still shows within a few refreshes."""
    from srt_tui.monitor.snapshot.collect import STEADY_REGISTRATIONS_S
    from srt_tui.monitor.statuses.context import router_key

    jobs = {JOB: job.dir}
    expected = {"prefill": 1, "decode": 2}
    await refresh_until(
        lambda: monitor.refresh(jobs), lambda s: s.router is not None and s.router.healthy == expected, 10
    )
    source = next(s for k, s in monitor.sources._sources.items() if k.startswith(router_key("")))
    before = source.attempts
    for _ in range(4):
        snap = (await monitor.refresh(jobs))[0]
        assert snap.router is not None and snap.router.registered == expected and not snap.router.stale
        assert all(w.router_healthy for w in snap.workers)
    assert source.attempts - before <= 1, source.attempts - before  # at most the one already due
    assert source.every == STEADY_REGISTRATIONS_S
    job.post("decode_0", "/mock/health", ok="0")
    try:
        await refresh_until(
            lambda: monitor.refresh(jobs),
            lambda s: _w(s, "decode_0").router_healthy is False and s.router is not None and not s.router.stale,
            12,
            pause=0.5,
        )
        # read at every refresh while the worker falters: each refresh starts a read, unless one still runs. (Not
        # a count of reads until the router saw it: that is how many refreshes fit in the router's own health
        # checks, fewer when a loaded machine slows the refreshes and not the router's timers.)
        assert source.every == 0.0
        for _ in range(3):
            running, attempts = source.task is not None, source.attempts
            await monitor.refresh(jobs)
            assert source.attempts == attempts + 1 or running, (attempts, source.attempts, running)
    finally:
        job.post("decode_0", "/mock/health", ok="1")
    await refresh_until(lambda: monitor.refresh(jobs), lambda s: _w(s, "decode_0").router_healthy is True, 12, 0.5)


async def test_dead_slurm_controller_shows_and_the_rest_keeps_updating(job: PdJob, tmp_path: Path) -> None:
    from tests.cluster import ensure_local_slurm

    require(shutil.which("squeue") is not None, "Slurm client commands (squeue) are not installed")
    cluster = ensure_local_slurm(nodes=3)
    dead_conf = tmp_path / "slurm.conf"
    dead_conf.write_text(
        "\n".join(
            "SlurmctldPort=1" if line.startswith("SlurmctldPort=") else line
            for line in cluster.conf.read_text().splitlines()
        )
        + "\n"
    )
    env = {**os.environ, "SLURM_CONF": str(dead_conf)}
    transport = CliTransport(timeout=2.0, env=env)
    m = Monitor(transport, budget_s=1.0, backoff_base=0.2, backoff_cap=0.5)
    jobs = {"4242424": job.dir}  # a Slurm id: its state comes from squeue
    try:
        snap, _ = await refresh_until(lambda: m.refresh(jobs), lambda s: not s.source("slurm").ok, 2, pause=0)  # type: ignore[union-attr]
        slurm = snap.source("slurm")
        assert slurm is not None and ("no answer" in slurm.error or "not reachable" in slurm.error), slurm
        assert [w.health for w in snap.workers] == ["healthy"] * 3  # the rest still updates
        assert snap.router is not None and snap.router.up
        transport.env = {**os.environ, "SLURM_CONF": str(cluster.conf)}  # the controller is back
        snap, _ = await refresh_until(lambda: m.refresh(jobs), lambda s: s.source("slurm").ok, 12, pause=0.5)  # type: ignore[union-attr]
        assert snap.slurm_state == "UNKNOWN"  # Slurm answered (it does not know this made-up id)
        assert m.slurm_queries <= m.refreshes  # never more than one query per refresh
    finally:
        await m.aclose()


def test_repeated_one_shot_status_reports_rates(job: PdJob) -> None:
    """`watch srt-tui status`: each run continues the counter samples the previous run saved."""
    import json
    import subprocess
    import sys

    def status() -> dict[str, float | None]:
        proc = subprocess.run(
            [sys.executable, "-m", "srt_tui.cli", "status", str(job.dir), "--json"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        snap = json.loads(proc.stdout)[0]
        return {w["name"]: w["rate_per_s"] for w in snap["workers"]} | {"job": snap["rate_per_s"]}

    first = status()
    assert first["decode_0"] is None  # nothing saved yet: one sample is not a rate
    answered = send(job.router.url, 20)
    second = status()
    for name in ("decode_0", "decode_1"):
        assert answered.count(name) > 0
        rate = second[name]
        assert rate is not None and rate > 0, second
    assert second["job"] is not None and second["job"] > 0
    cache = Path(os.environ["SRT_TUI_STATE_DIR"]) / "counters.json"
    cache.write_text("{not json")  # a damaged cache is ignored, never an error
    assert status()["decode_0"] is None
