"""A stopped worker beside answering ones reads `hung`, never `healthy*` from the job's relay (issue 21, op11's pass):
on a local 1P2D job, `kill -STOP` of decode_1's mock worker showed `decode_1 … healthy*` for 10-15 s with `✗ http`
and `* health relayed by the job: its nodes do not answer from here`, and only then `hung`. The job's relay had
read it healthy just before it stopped, after the Monitor's last answer from it: that reading counted as newer
than our silence. It counts only when the job read it after our last ask went unanswered.

Real mock workers on loopback, each on its own node as the local launcher places decode_1, a real SIGSTOP, the
Monitor the TUI's feed uses, on an injected clock (monotonic and wall together) so the relay's times are exact;
the relay file is written as the job's runtime writes it (`time`: when its round began; mtime: when it wrote)."""

from __future__ import annotations

import json
import os
import signal
import socket
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest

from srt_tui.monitor.model import JobSnapshot, WorkerStatus
from srt_tui.monitor.snapshot.collect import Monitor
from tests.mock.mockprocs import Launcher, Worker
from tests.monitor.jobdirs import describe, write_agg_job

MONO0 = 1000.0
WALL0 = 1_900_000_000.0  # the wall clock at MONO0 (the relay's times are on it)


def _w(snap: JobSnapshot, name: str) -> WorkerStatus:
    return next(w for w in snap.workers if w.name == name)


class _Clock:
    """One injected time, read as the Monitor's monotonic clock and as its wall clock."""

    def __init__(self) -> None:
        self.mono = MONO0

    def wall(self) -> float:
        return WALL0 + self.mono - MONO0

    def wall_at(self, mono: float) -> float:
        return WALL0 + mono - MONO0


def _relay(job_dir: Path, clock: _Clock, began: float, wrote: float, codes: dict[str, int]) -> None:
    """relay/health.json as `srt_relay` writes it: its round began at ``began``, the file was moved in at ``wrote``
    (monotonic times of the injected clock)."""
    (job_dir / "relay").mkdir(exist_ok=True)
    stamp = datetime.fromtimestamp(clock.wall_at(began), timezone.utc).isoformat(timespec="milliseconds")
    path = job_dir / "relay" / "health.json"
    path.write_text(json.dumps({"time": stamp.replace("+00:00", "Z"), "workers": codes}) + "\n")
    os.utime(path, (clock.wall_at(wrote), clock.wall_at(wrote)))


@pytest.fixture
def two_nodes(tmp_path: Path) -> Iterator[tuple[Launcher, Worker, Worker, Path]]:
    """agg_0 on node 0, agg_1 alone on node 1 (real mock workers), and their job directory."""
    launcher = Launcher(tmp_path)
    ok, stopped = launcher.workers(("regular", "agg_0"), ("regular", "agg_1"))
    job_dir = write_agg_job(tmp_path / "job", "local-rl", [(ok, 0), (stopped, 1)], nodes=2)
    try:
        yield launcher, ok, stopped, job_dir
    finally:
        launcher.close()


def _monitor(clock: _Clock) -> Monitor:
    """The Monitor on the injected clock, with short timeouts and the production back-off (a probe that timed out
    is not asked again for 0.5 s)."""
    return Monitor(None, http_timeout=0.3, connect_timeout=0.3, budget_s=0.5, clock=lambda: clock.mono,
                   wall=clock.wall)  # fmt: skip


def _hung_not_relayed(snap: JobSnapshot) -> None:
    """agg_1 reads hung on its own row; agg_0 answers directly; nothing of the job is relayed or a network problem."""
    stopped, answering = _w(snap, "agg_1"), _w(snap, "agg_0")
    assert stopped.health == "hung" and stopped.source != "relay", describe(snap)
    assert stopped.detail.startswith("not answering (stopped or overloaded?): "), stopped.detail
    assert "agg_0 (local0) answers from here" in stopped.detail, stopped.detail
    assert answering.health == "healthy" and answering.source == "direct", describe(snap)
    http = snap.source("http")
    assert not snap.relayed and http is not None and http.ok and snap.source("relay") is None, describe(snap)


@pytest.mark.parametrize(
    "began, wrote",
    [
        # the job read it healthy and wrote the file after our last answer from it, before the stop
        (1002.2, 1002.5),
        # the job's round began before the stop (it read agg_1 healthy then) and wrote the file after our ask
        (1002.8, 1003.2),
    ],
    ids=["relay-written-before-the-stop", "relay-read-before-the-stop-written-after-our-ask"],
)
async def test_a_stopped_worker_beside_answering_ones_is_hung_not_relayed_healthy(
    two_nodes: tuple[Launcher, Worker, Worker, Path], began: float, wrote: float
) -> None:
    _, _, stopped, job_dir = two_nodes
    clock = _Clock()
    monitor = _monitor(clock)
    jobs = {"local-rl": job_dir}
    pid = stopped.proc.popen.pid
    try:
        for _ in range(2):  # both answer on kept-alive connections; the last answer at 1002
            snap = (await monitor.refresh(jobs))[0]
            assert all(w.health == "healthy" and w.source == "direct" for w in snap.workers), describe(snap)
            clock.mono += 2.0
        clock.mono = 1003.0
        os.kill(pid, signal.SIGSTOP)  # at 1003, after the job's reading: our ask at 1003 goes unanswered
        if wrote <= clock.mono:
            _relay(job_dir, clock, began, wrote, {"agg_0": 200, "agg_1": 200})
        snap = (await monitor.refresh(jobs))[0]
        if wrote > clock.mono:  # written while our ask waited: seen at the next refresh, before we ask again
            clock.mono = wrote + 0.1
            _relay(job_dir, clock, began, wrote, {"agg_0": 200, "agg_1": 200})
            snap = (await monitor.refresh(jobs))[0]
        # before the fix: agg_1 healthy, source relay, `agg_1: no answer from here …; shown from the job's relay`
        _hung_not_relayed(snap)
        # the job's next round got no answer from it either: still hung, and the relay says so
        clock.mono += 2.0
        _relay(job_dir, clock, clock.mono - 2.0, clock.mono - 0.1, {"agg_0": 200, "agg_1": 0})
        snap = (await monitor.refresh(jobs))[0]
        _hung_not_relayed(snap)
        assert "the job's own probe got no answer either" in _w(snap, "agg_1").detail, describe(snap)
    finally:
        os.kill(pid, signal.SIGCONT)
        await monitor.aclose()
    clock.mono += 2.0
    snap = (await monitor.refresh(jobs))[0]
    assert all(w.health == "healthy" and w.source == "direct" for w in snap.workers), describe(snap)
    await monitor.aclose()


@pytest.fixture
def cut_off_port() -> Iterator[int]:
    """A port that takes no connection (its backlog full: SYNs are dropped), as a node cut off from the login node
    looks from here: every connect times out."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = int(listener.getsockname()[1])
        fill = [socket.socket() for _ in range(3)]
        for sock in fill:
            sock.setblocking(False)
            sock.connect_ex(("127.0.0.1", port))  # in progress: the first fills the backlog, the others wait
        try:
            yield port
        finally:
            for sock in fill:
                sock.close()


async def test_a_worker_whose_node_alone_is_cut_off_reads_the_relay_steadily(
    two_nodes: tuple[Launcher, Worker, Worker, Path], cut_off_port: int
) -> None:
    """The relay still speaks for a worker whose node alone takes no connection from here: our asks never reach it,
    so they say nothing about the process, and a relay read before them stands (healthy, `relay`, that row alone);
    at every refresh, whatever the order of our asks and the job's rounds (no flicker to `hung`)."""
    _, _, _, job_dir = two_nodes
    ep = json.loads((job_dir / "endpoints.json").read_text())
    cut = f"http://127.0.0.1:{cut_off_port}"
    ep["workers"][1].update(url=cut, health_url=cut + "/health", metrics_url=cut + "/metrics")
    (job_dir / "endpoints.json").write_text(json.dumps(ep))
    clock = _Clock()
    monitor = _monitor(clock)
    jobs = {"local-rl": job_dir}
    try:
        for _ in range(4):  # the job's round just before each of our asks: every relay is older than our ask
            _relay(job_dir, clock, clock.mono - 0.4, clock.mono - 0.1, {"agg_0": 200, "agg_1": 200})
            snap = (await monitor.refresh(jobs))[0]
            src = monitor.sources.get(f"worker {cut}/health")
            assert src.error == "connect timed out", src.error  # (the set-up: our asks never reach it)
            cut_off = _w(snap, "agg_1")
            assert cut_off.health == "healthy" and cut_off.source == "relay", describe(snap)
            assert not snap.relayed and _w(snap, "agg_0").source == "direct", describe(snap)
            clock.mono += 2.0
    finally:
        await monitor.aclose()
