"""The CLI transport against the real local Slurm 22.05 cluster (3 nodes, one network namespace each)."""

from __future__ import annotations

import contextlib
import ipaddress
import os
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from srt_tui.slurm.cli_transport import CliTransport
from srt_tui.slurm.client import JobState
from srt_tui.slurm.errors import SlurmError, SlurmUnavailable
from srt_tui.slurm.parse import SQUEUE_TEXT_FORMAT
from srt_tui.slurm.select import get_client
from tests.cluster import ClusterInfo
from tests.conftest import require

pytestmark = pytest.mark.slurm


@pytest.fixture
def cli(local_slurm: ClusterInfo) -> CliTransport:
    """A CLI transport on the running test cluster."""
    return CliTransport(timeout=30)


@pytest.fixture
def cancel_later(cli: CliTransport) -> Iterator[list[str]]:
    """Job ids to scancel at the end of the test, whatever happens."""
    ids: list[str] = []
    yield ids
    for job_id in ids:
        with contextlib.suppress(SlurmError):
            cli.cancel(job_id)


def script(directory: Path, body: str, name: str = "job.sh") -> Path:
    """A batch script in ``directory`` (the nodes share the file system)."""
    path = directory / name
    path.write_text("#!/bin/bash\n" + body)
    return path


def wait_state(client: CliTransport, job_id: str, want: Callable[[JobState], bool], timeout: float = 30.0) -> JobState:
    """Poll until ``want(job)``; fail with the last state seen."""
    deadline = time.monotonic() + timeout
    job = JobState.unknown(job_id)
    while time.monotonic() < deadline:
        job = client.query([job_id])[job_id]
        if want(job):
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not reach the wanted state in {timeout} s: {job}")


def test_nodes_and_partitions(cli: CliTransport, local_slurm: ClusterInfo) -> None:
    nodes = cli.nodes()
    assert [n.name for n in nodes] == local_slurm.node_names == ["node1", "node2", "node3"]
    for node in nodes:
        assert (node.gpus, node.gpu_type, node.gres, node.cpus, node.partitions) == (8, None, "gpu:8", 16, ("gpu",))
        # 23.11+ `sinfo --json` groups nodes and lists no addresses (nothing in srt-tui reads them)
        assert node.address in (local_slurm.address_of(node.name), "")
        assert node.state.split("+")[0] in {"IDLE", "MIXED", "ALLOCATED", "COMPLETING"}
    # the text command gives the same records (states may move on between the calls: other tests run jobs)
    text = CliTransport(use_json=False).nodes()
    assert [n.address for n in text] == [local_slurm.address_of(n.name) for n in text]
    assert [replace(n, state="", address="") for n in text] == [replace(n, state="", address="") for n in nodes]
    (part,) = cli.partitions()
    assert (part.name, part.nodes, part.is_default, part.state, part.max_time) == (
        "gpu",
        ("node1", "node2", "node3"),
        True,
        "UP",
        None,
    )
    assert cli.ping() is True and cli.last_error is None


def test_submit_query_cancel(cli: CliTransport, tmp_path: Path, cancel_later: list[str]) -> None:
    job_script = script(
        tmp_path,
        '#SBATCH --job-name=srt-test-cancel\n#SBATCH --output=out.txt\necho "$SRT_TEST_VALUE" > env.txt\nsleep 300\n',
    )
    job_id = cli.submit(job_script, tmp_path, {"SRT_TEST_VALUE": "hello world"})
    cancel_later.append(job_id)
    assert job_id.isdigit()
    running = wait_state(cli, job_id, lambda j: j.state == "RUNNING")
    assert (running.name, running.node_count, running.partition, running.work_dir) == (
        "srt-test-cancel",
        1,
        "gpu",
        str(tmp_path),
    )
    assert len(running.nodes) == 1 and running.start_time and running.end_time is None
    assert running.exit_code is None and running.is_active and not running.is_terminal
    deadline = time.monotonic() + 10
    while not (tmp_path / "env.txt").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert (tmp_path / "env.txt").read_text() == "hello world\n"  # extra_env reached the job
    cli.cancel(job_id)
    done = wait_state(cli, job_id, lambda j: j.is_terminal)
    assert (done.state, done.exit_code, done.exit_signal) == ("CANCELLED", 0, 15)
    assert done.end_time is not None and done.end_time >= (done.start_time or 0)
    cli.cancel(job_id)  # cancelling a finished job is not an error


def test_failing_job_is_failed_with_exit_code_3(cli: CliTransport, tmp_path: Path) -> None:
    job_id = cli.submit(script(tmp_path, "#SBATCH --output=out.txt\nexit 3\n"), tmp_path, None)
    done = wait_state(cli, job_id, lambda j: j.is_terminal)
    assert (done.state, done.reason, done.exit_code, done.exit_signal) == ("FAILED", "NonZeroExitCode", 3, None)
    # the text fallback (no --json) gets the exit code from scontrol, in the same kind of single batch
    assert CliTransport(use_json=False).query([job_id])[job_id] == done


def test_held_submission_waits_for_release(cli: CliTransport, tmp_path: Path, cancel_later: list[str]) -> None:
    job_id = cli.submit(
        script(tmp_path, "echo released\n"), tmp_path, None, hold=True, output=str(tmp_path / "%j" / "slurm.log")
    )
    cancel_later.append(job_id)
    held = wait_state(cli, job_id, lambda j: j.reason.startswith("JobHeld"))
    assert held.state == "PENDING" and held.nodes == ()
    (tmp_path / job_id).mkdir()  # what a job directory needs before the job may start
    cli.release(job_id)
    done = wait_state(cli, job_id, lambda j: j.is_terminal)
    assert (done.state, done.exit_code) == ("COMPLETED", 0)
    assert (tmp_path / job_id / "slurm.log").read_text() == "released\n"


def test_query_many_jobs_in_one_call(
    cli: CliTransport, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cancel_later: list[str]
) -> None:
    ids = [
        cli.submit(script(tmp_path, f"#SBATCH --output=o{i}.txt\nsleep 60\n", f"j{i}.sh"), tmp_path) for i in range(3)
    ]
    multi = script(
        tmp_path,
        "#SBATCH --nodes=3 --output=multi.txt\n"
        "for n in $(scontrol show hostnames $SLURM_JOB_NODELIST); do\n"
        "  srun --overlap --nodes=1 --ntasks=1 --nodelist=$n sleep 60 &\ndone\nwait\n",
        "multi.sh",
    )
    ids.append(cli.submit(multi, tmp_path))
    cancel_later.extend(ids)
    calls: list[Sequence[str]] = []
    real_run = cli._run

    def counting_run(args: Sequence[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        calls.append(list(args))
        return real_run(args, **kwargs)

    monkeypatch.setattr(cli, "_run", counting_run)
    jobs = cli.query([*ids, "999999"])
    # one command, scoped to these jobs (22.05's --json would return the whole cluster), and one sacct
    # or nothing for the id squeue does not know (no accounting on the test cluster: nothing to ask)
    assert calls[0] == ["squeue", "-h", "--states=all", "-j", ",".join([*ids, "999999"]), "-o", SQUEUE_TEXT_FORMAT]
    assert [c[0] for c in calls[1:]] in ([], ["sacct"])
    assert set(jobs) == {*ids, "999999"}
    assert jobs["999999"] == JobState.unknown("999999") and not jobs["999999"].is_known
    assert all(jobs[i].is_known and jobs[i].state in {"PENDING", "RUNNING"} for i in ids)
    multi_job = wait_state(cli, ids[-1], lambda j: j.state == "RUNNING")
    assert multi_job.nodes == ("node1", "node2", "node3") and multi_job.node_count == 3


def test_json_and_text_agree_on_every_job(cli: CliTransport, local_slurm: ClusterInfo) -> None:
    from_json = cli._squeue_all()
    ids = sorted(from_json, key=lambda i: int(i.split("_")[0]))
    from_text = CliTransport(use_json=False).query(ids)
    for job_id in ids:  # a job may have moved on between the two calls; compare what cannot change
        a, b = from_json[job_id], from_text[job_id]
        assert (a.name, a.partition, a.work_dir, a.submit_time, a.time_limit) == (
            b.name,
            b.partition,
            b.work_dir,
            b.submit_time,
            b.time_limit,
        )
        if a.is_terminal and b.is_terminal:
            assert a == b


def test_rejected_submission_raises_slurms_message(cli: CliTransport, tmp_path: Path) -> None:
    with pytest.raises(SlurmError) as err:
        cli.submit(script(tmp_path, "#SBATCH --gpus-per-node=9\ntrue\n"), tmp_path, None)
    assert not isinstance(err.value, SlurmUnavailable)
    assert str(err.value) == (
        "sbatch: error: Batch job submission failed: Requested node configuration is not available"
    )
    assert err.value.returncode == 1 and err.value.command[0] == "sbatch"


def _unreachable_conf(local_slurm: ClusterInfo, tmp_path: Path) -> Path:
    """A copy of the cluster's config pointing at a port nobody listens on, with MessageTimeout=2."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    etc = tmp_path / "etc"
    etc.mkdir()
    lines = []
    for line in local_slurm.conf.read_text().splitlines():
        lines.append(f"SlurmctldPort={port}" if line.startswith("SlurmctldPort=") else line)
    (etc / "slurm.conf").write_text("\n".join(lines) + "\nMessageTimeout=2\n")
    for name in ("gres.conf", "plugstack.conf"):
        (etc / name).write_text((local_slurm.conf.parent / name).read_text())
    return etc / "slurm.conf"


def test_unreachable_controller_is_reported_quickly(local_slurm: ClusterInfo, tmp_path: Path) -> None:
    conf = _unreachable_conf(local_slurm, tmp_path)
    client = CliTransport(env={**os.environ, "SLURM_CONF": str(conf)}, timeout=10)
    started = time.monotonic()
    assert client.ping() is False
    assert client.last_error is not None and "is DOWN" in client.last_error and str(conf) in client.last_error
    with pytest.raises(SlurmUnavailable) as err:
        client.query(["1"])
    message = str(err.value)
    assert "slurmctld not reachable" in message and "Unable to contact slurm controller" in message
    assert f"SLURM_CONF={conf}" in message
    with pytest.raises(SlurmUnavailable, match="Unable to contact slurm controller"):
        client.submit(script(tmp_path, "true\n"), tmp_path, None)
    assert time.monotonic() - started < 8
    # a command that hangs past our own timeout is unavailable too, and says which command
    slow = CliTransport(env={**os.environ, "SLURM_CONF": str(conf)}, timeout=0.3)
    with pytest.raises(SlurmUnavailable, match=r"`squeue -h --states=all -j 1 -o \S+` did not answer within 0.3 s"):
        slow.query(["1"])


def test_select_picks_the_cli_without_pyslurm(local_slurm: ClusterInfo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SRT_TUI_SLURM_TRANSPORT", raising=False)  # "auto" follows it (a CI leg forces one)
    monkeypatch.setitem(sys.modules, "pyslurm", None)
    assert get_client("auto").name == "cli"
    assert get_client("cli").name == "cli"
    monkeypatch.setenv("SRT_TUI_SLURM_TRANSPORT", "cli")
    assert get_client(None).name == "cli"


def test_select_names_everything_tried(
    local_slurm: ClusterInfo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SRT_TUI_SLURM_TRANSPORT", raising=False)
    monkeypatch.setitem(sys.modules, "pyslurm", None)
    monkeypatch.setenv("SLURM_CONF", str(_unreachable_conf(local_slurm, tmp_path)))
    with pytest.raises(SlurmUnavailable) as err:
        get_client("auto")
    message = str(err.value)
    assert "pyslurm: `import pyslurm` failed" in message and "cli: slurmctld not reachable" in message
    assert get_client("auto", require_reachable=False).name == "cli"


def _get(url: str, timeout: float) -> int:
    """HTTP status of a GET from the host (the login node)."""
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return int(response.status)


def test_login_node_reaches_each_node_and_host_link_cuts_it(
    cli: CliTransport, local_slurm: ClusterInfo, tmp_path: Path, cancel_later: list[str]
) -> None:
    require(local_slurm.host_address is not None, "the cluster has no host link (not netns mode)")
    python = shlex.quote(sys.executable)  # jobs inherit PATH; the nodes share the file system
    port = 18000 + os.getpid() % 1000  # each node has its own network namespace; avoid other tests' ports
    serve = script(
        tmp_path,
        "#SBATCH --nodes=3 --output=serve.txt\n"
        "for n in $(scontrol show hostnames $SLURM_JOB_NODELIST); do\n"
        f"  srun --overlap --nodes=1 --ntasks=1 --nodelist=$n {python} -m http.server {port} --bind 0.0.0.0 &\n"
        "done\nwait\n",
        "serve.sh",
    )
    job_id = cli.submit(serve, tmp_path)
    cancel_later.append(job_id)
    urls = [f"http://{node.address}:{port}/" for node in local_slurm.nodes]
    addresses = [ipaddress.ip_address(node.address) for node in local_slurm.nodes]  # each node its own eth0
    assert len(set(addresses)) == 3 and not any(a.is_loopback for a in addresses)
    deadline = time.monotonic() + 30
    pending = list(urls)
    while pending and time.monotonic() < deadline:
        try:
            assert _get(pending[0], 2) == 200
            pending.pop(0)
        except OSError:
            time.sleep(0.2)
    assert not pending, f"not answering from the login node: {pending}"
    assert local_slurm.host_link("status") == "up"
    try:
        local_slurm.host_link("down")
        assert local_slurm.host_link("status") == "down"
        started = time.monotonic()
        with pytest.raises(OSError):
            _get(urls[1], 6)
        assert time.monotonic() - started < 6  # fails ("No route to host"), does not hang
        assert cli.query([job_id])[job_id].state == "RUNNING"  # Slurm itself is still reachable
    finally:
        local_slurm.host_link("up")
    assert local_slurm.host_link("status") == "up"
    assert all(_get(url, 5) == 200 for url in urls)


def test_replace_keeps_jobstate_frozen() -> None:
    job = JobState(job_id="1", name="x", state="RUNNING")
    with pytest.raises(AttributeError):
        job.state = "FAILED"  # type: ignore[misc]
    assert replace(job, state="FAILED").state == "FAILED" and job.state == "RUNNING"


def test_a_second_cancel_of_a_job_slurm_is_stopping_says_it_is_already_ending(
    cli: CliTransport, tmp_path: Path, cancel_later: list[str]
) -> None:
    """Operator pass (issue 21): `srt-tui cancel 3` twice in quick succession said "cancelled 3" both times: the
    job was COMPLETING (its processes still stopping), which is not an ended state."""
    from srt_tui.slurm.cancel import cancel_job

    job_script = script(tmp_path, "#SBATCH --output=out.txt\ntrap 'sleep 8' TERM\nsleep 300 &\nwait\n")
    said = []
    for _ in range(3):  # COMPLETING lasts KillWait (5 s): a loaded machine can let it pass before the second cancel
        job_id = cli.submit(job_script, tmp_path, None)
        cancel_later.append(job_id)
        wait_state(cli, job_id, lambda j: j.state == "RUNNING")
        first = cancel_job(job_id, tmp_path, client=cli)
        assert first.cancelled and first.describe() == f"cancelled {job_id}"
        ending = wait_state(cli, job_id, lambda j: j.state != "RUNNING")
        if ending.state != "COMPLETING":  # the batch script's trap keeps it stopping until KillWait
            said.append(f"the query after the first cancel saw {ending.state}")
            continue
        second = cancel_job(job_id, tmp_path, client=cli)
        assert not second.cancelled
        said.append(second.describe())
        if second.state == "COMPLETING":
            assert said[-1] == f"{job_id} is already ending (COMPLETING): nothing to cancel"
            return
        assert said[-1] == f"{job_id} already ended ({second.state}): nothing to cancel"
    raise AssertionError(f"the second cancel never found the job still stopping: {said}")


def test_a_queued_job_carries_slurms_expected_start(cli: CliTransport, tmp_path: Path, cancel_later: list[str]) -> None:
    """Operator pass (stop 29): a PENDING job said why it waits, never until when. Behind a job that holds every
    node with a 10-minute limit, the scheduler expects the next to start when that one's time is up: the query
    carries that estimate (`squeue --start`'s), which `status` and the job view show."""
    blocker = cli.submit(
        script(tmp_path, "#SBATCH --nodes=3 --exclusive --time=10 --output=b.txt\nsleep 600\n"), tmp_path
    )
    cancel_later.append(blocker)
    running = wait_state(cli, blocker, lambda j: j.state == "RUNNING")
    queued = cli.submit(script(tmp_path, "#SBATCH --nodes=3 --time=5 --output=q.txt\nsleep 5\n", "q.sh"), tmp_path)
    cancel_later.append(queued)
    # the backfill scheduler's pass (every 30 s by default) makes the estimate
    job = wait_state(cli, queued, lambda j: j.expected_start is not None, timeout=90)
    assert job.state == "PENDING" and job.start_time is None
    assert running.start_time is not None and job.expected_start is not None
    assert abs(job.expected_start - (running.start_time + 600)) <= 120, (job, running)
