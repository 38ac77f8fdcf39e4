"""A probe job waiting for nodes your own running job holds: `doctor` (and `setup --probe`) say whose job, at once,
and stop waiting when its time limit outlasts `--node-timeout` (operator pass: doctor waited its 120 s in silence)."""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from srt_tui.cli import setup as cli_setup
from srt_tui.cli.main import main
from srt_tui.setup.holders import SLACK_S, holders_of
from srt_tui.slurm.client import JobState, NodeInfo
from tests.cluster import ClusterInfo


def _state(job_id: str) -> str:
    out = subprocess.run(["scontrol", "show", "job", "-o", job_id], capture_output=True, text=True).stdout
    found = re.search(r"JobState=(\S+)", out)
    return found.group(1) if found else "GONE"


@pytest.fixture
def holder(cluster: ClusterInfo, tmp_path: Path) -> Iterator[str]:
    """Your own job `mocker-1p1d` running on every node of the partition for up to an hour."""
    nodes = str(len(cluster.node_names))
    job = subprocess.run(
        ["sbatch", "--parsable", "-N", nodes, "--exclusive", "-t", "60", "-J", "mocker-1p1d"]
        + ["-o", str(tmp_path / "holder.out"), "--wrap", "sleep 3600"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    try:
        deadline = time.monotonic() + 60  # a bound, not a measurement
        while _state(job) != "RUNNING":
            assert time.monotonic() < deadline, f"job {job} did not start"
            time.sleep(0.2)
        yield job
    finally:
        subprocess.run(["scancel", job], capture_output=True)


@pytest.mark.slurm
def test_doctor_names_your_job_holding_the_nodes_and_stops_waiting(
    holder: str, cluster: ClusterInfo, shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Your job holds all 3 nodes for up to an hour: the wait says so, and doctor stops before its --node-timeout
    with a finding that names the job and the ways on (without the fix: 30 s of `PENDING (Resources)`, then
    `the partition may be busy`)."""
    argv = ["doctor", "-p", "local", "--workdir", str(shared / "work"), "--node-timeout", "30"]
    rc = main(argv)
    said = capsys.readouterr()
    held = f"your job {holder} (mocker-1p1d) holds all {len(cluster.nodes)} nodes of partition gpu; its time limit "
    waiting = [line for line in said.err.splitlines() if "[waiting]" in line]
    assert any(held in line for line in waiting), said.err  # said while it waited, not only at the end
    node = next(line for line in said.out.splitlines() if "node: probe job" in line)
    probe = node.split("probe job ", 1)[1].split()[0]
    assert f"would wait past --node-timeout 30 s for nodes: {held}ends in " in node, said.out
    assert "(cancelled): no node facts" in node
    fix = said.out.split(node, 1)[1].splitlines()[1]
    assert f"`srt-tui cancel {holder}`" in fix and "--no-node" in fix and "--node-timeout " in fix, fix
    assert rc == 1
    assert _state(probe) == "CANCELLED" and _state(holder) == "RUNNING"


def _node(name: str, state: str = "IDLE") -> NodeInfo:
    return NodeInfo(name=name, state=state, gpus=8, partitions=("gpu",))


def _job(job_id: str, nodes: tuple[str, ...], start: int, limit: int | None, name: str = "serve") -> JobState:
    return JobState(job_id, name, "RUNNING", nodes=nodes, start_time=start, time_limit=limit, partition="gpu")


NODES = [_node("node1"), _node("node2"), _node("node3")]


def test_a_node_frees_when_the_last_of_your_jobs_on_it_ends() -> None:
    """node1 runs jobs 1 (ends at 600 s) and 2 (3600 s); node2 and node3 job 3 (1200 s): the first node frees at
    1200 s; waiting until then (and Slurm's slack) is in time, a shorter wait is not."""
    mine = [_job("1", ("node1",), 0, 10), _job("2", ("node1",), 0, 60), _job("3", ("node2", "node3"), 0, 20)]
    held = holders_of("gpu", NODES, [*mine, JobState("9", "srt-tui-probe", "PENDING")], "9")
    assert held is not None and held.all_held and held.frees_at == 1200
    assert held.in_time(1200 + SLACK_S) and not held.in_time(1200 + SLACK_S - 1)
    assert held.says(0).startswith("your jobs 1 (serve), 2 (serve), 3 (serve) hold all 3 nodes of partition gpu; ")
    assert "by their time limits the first node frees in 20m00s" in held.says(0)
    assert "`srt-tui cancel 1 2 3`" in held.fix(0) and "--node-timeout 1260" in held.fix(0)


def test_a_free_or_unknown_node_never_stops_the_wait() -> None:
    """Your job on 2 of 3 nodes: the third may be held by others, who could end sooner: said, never given up on."""
    held = holders_of("gpu", NODES, [_job("4", ("node1", "node2"), 0, 600)], "9")
    assert held is not None and not held.all_held and held.in_time(0)
    assert held.says(0) == "your job 4 (serve) holds 2 of the 3 nodes of partition gpu"
    assert holders_of("gpu", NODES, [_job("5", ("elsewhere",), 0, 1)], "9") is None


def test_down_nodes_and_jobs_without_a_time_limit() -> None:
    """A drained node takes no job: your job on the two others holds every node that does; without a time limit
    nothing frees one, so no wait is long enough and no --node-timeout is offered."""
    nodes = [_node("node1", "ALLOCATED"), _node("node2", "MIXED"), _node("node3", "IDLE+DRAIN")]
    held = holders_of("gpu", nodes, [_job("6", ("node1", "node2"), 0, None, "mocker-1p2d")], "9")
    assert held is not None and held.all_held and held.frees_at is None and not held.in_time(10**9)
    assert held.says(0) == (
        "your job 6 (mocker-1p2d) holds the 2 nodes of partition gpu that take jobs (1 of 3 is down or drained), "
        "and no time limit frees a node"
    )
    assert "--node-timeout" not in held.fix(0)


def test_the_wait_is_said_again_as_soon_as_its_words_change(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Slurm's reason and the holders come a second after the first line: said then, not 10 s later; the seconds
    that tick alone wait for the next 10 s."""
    clock = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    progress = cli_setup._Progress()
    for now, detail in (
        (100.0, "job 7 PENDING, waited 0 s"),
        (101.0, "job 7 PENDING (Resources), waited 1 s: your job 3 (a) holds all 3 nodes; its time limit ends in 59s"),
        (102.0, "job 7 PENDING (Resources), waited 2 s: your job 3 (a) holds all 3 nodes; its time limit ends in 58s"),
    ):
        clock[0] = now
        progress("node", "running", detail)
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(": ", 1)[1] for line in lines] == [
        "job 7 PENDING, waited 0 s; Ctrl-C cancels it",
        "job 7 PENDING (Resources), waited 1 s: your job 3 (a) holds all 3 nodes; its time limit ends in 59s; "
        "Ctrl-C cancels it",
    ]
