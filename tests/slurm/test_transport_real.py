"""The transport in use (``$SRT_TUI_SLURM_TRANSPORT``: cli or pyslurm; auto elsewhere) against the real
local cluster, whichever Slurm release is on PATH: CI runs this file on 22.05, and on 25.11 once per
transport (`scripts/ci-slurm-legs.sh`)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from srt_tui.slurm.client import JobState, SlurmClient
from srt_tui.slurm.errors import SlurmError
from srt_tui.slurm.parse import parse_scontrol_config
from srt_tui.slurm.select import TRANSPORT_ENV, get_client
from tests.cluster import ClusterInfo

pytestmark = [pytest.mark.slurm, pytest.mark.slurm25]

#: what srt-tui renders for a one-node job (tests/e2e checks the rendering itself)
RENDERED = [
    ("job-name", "srt-transport"),
    ("nodes", "1"),
    ("ntasks", "1"),
    ("ntasks-per-node", "1"),
    ("gpus-per-node", "2"),
    ("time", "5"),  # plain minutes: pyslurm's own parser raised TypeError on it
    ("partition", "gpu"),
]


@pytest.fixture
def client(local_slurm: ClusterInfo) -> SlurmClient:
    """The transport this leg runs (forced by the environment variable in CI)."""
    chosen = get_client(None)
    forced = os.environ.get(TRANSPORT_ENV, "auto")
    assert forced in ("auto", chosen.name), f"{TRANSPORT_ENV}={forced} but {chosen.name} was chosen"
    return chosen


@pytest.fixture
def cancel_later(client: SlurmClient) -> Iterator[list[str]]:
    ids: list[str] = []
    yield ids
    for job_id in ids:
        with contextlib.suppress(SlurmError):
            client.cancel(job_id)


def _script(directory: Path, body: str, directives: Sequence[tuple[str, str | None]] = RENDERED) -> Path:
    path = directory / "sbatch.sh"
    header = "".join(f"#SBATCH --{k}\n" if v is None else f"#SBATCH --{k}={v}\n" for k, v in directives)
    path.write_text("#!/bin/bash\n" + header + body)
    return path


def _wait(client: SlurmClient, job_id: str, want: Callable[[JobState], bool], timeout: float = 60.0) -> JobState:
    deadline = time.monotonic() + timeout
    job = JobState.unknown(job_id)
    while time.monotonic() < deadline:
        job = client.query([job_id])[job_id]
        if want(job):
            return job
        time.sleep(0.3)
    raise AssertionError(f"job {job_id} did not get there in {timeout} s: {job}")


def _scontrol(job_id: str) -> dict[str, str]:
    out = subprocess.run(["scontrol", "show", "job", "-o", job_id], capture_output=True, text=True, check=True)
    return dict(kv.split("=", 1) for kv in out.stdout.split() if "=" in kv)


def test_held_submit_of_rendered_directives_release_run_and_signal(
    client: SlurmClient, tmp_path: Path, cancel_later: list[str]
) -> None:
    """What `apply` does: held, released, running with every directive applied; cancelled = 0:15."""
    script = _script(tmp_path, 'echo "$SRT_TEST_VALUE" > env.txt\nsleep 300\n')
    job_id = client.submit(
        script, tmp_path, {"SRT_TEST_VALUE": "hi there"}, hold=True, output=str(tmp_path / "%j.log"),
        directives=RENDERED,
    )  # fmt: skip
    cancel_later.append(job_id)
    assert client.submit_note == ""  # the transport itself took the job
    held = _wait(client, job_id, lambda j: j.reason.startswith("JobHeld"))
    assert held.state == "PENDING"
    shown = _scontrol(job_id)
    assert (shown["JobName"], shown["Partition"], shown["TimeLimit"], shown["NumNodes"].split("-")[0]) == (
        "srt-transport",
        "gpu",
        "00:05:00",
        "1",
    )
    assert "gpu:2" in shown.get("TresPerNode", "")
    assert shown["StdOut"] == str(tmp_path / f"{job_id}.log") and shown["WorkDir"] == str(tmp_path)
    client.release(job_id)
    running = _wait(client, job_id, lambda j: j.state == "RUNNING")
    assert running.time_limit == 5 and len(running.nodes) == 1 and running.work_dir == str(tmp_path)
    deadline = time.monotonic() + 15
    while not (tmp_path / "env.txt").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert (tmp_path / "env.txt").read_text() == "hi there\n"  # extra_env reached the job
    client.cancel(job_id)
    done = _wait(client, job_id, lambda j: j.is_terminal)
    # SIGTERM ended the batch shell (0:15), or its `sleep` first and the shell then exited 128+15
    # (143:0, which pyslurm reports as 15: it takes 128 off any status above 128)
    assert (done.state, done.exit_code, done.exit_signal) in {("CANCELLED", 0, 15), ("CANCELLED", 143, None),
                                                              ("CANCELLED", 15, None)}  # fmt: skip
    client.cancel(job_id)  # cancelling an ended job is not an error


def test_failed_job_exit_code(client: SlurmClient, tmp_path: Path) -> None:
    job_id = client.submit(_script(tmp_path, "exit 3\n"), tmp_path, None, output=str(tmp_path / "o.txt"))
    done = _wait(client, job_id, lambda j: j.is_terminal)
    assert (done.state, done.reason_worth_showing, done.exit_code, done.exit_signal) == (
        "FAILED",
        "NonZeroExitCode",
        3,
        None,
    )


def test_a_directive_the_transport_cannot_express_goes_through_sbatch(
    client: SlurmClient, tmp_path: Path, cancel_later: list[str]
) -> None:
    """pyslurm 25.11 has no attribute for --hint: that job is submitted by sbatch, and that is said."""
    directives = [*RENDERED, ("hint", "nomultithread")]
    job_id = client.submit(_script(tmp_path, "true\n", directives), tmp_path, None, directives=directives)
    cancel_later.append(job_id)
    if client.name == "pyslurm":
        assert client.submit_note.startswith("pyslurm cannot express --hint=nomultithread")
        assert f"job {job_id} was submitted through sbatch instead" in client.submit_note
    else:
        assert client.submit_note == ""
    assert _wait(client, job_id, lambda j: j.is_terminal).state == "COMPLETED"


def test_rejection_is_slurms_own_message(client: SlurmClient, tmp_path: Path) -> None:
    directives = [("job-name", "x"), ("nodes", "1"), ("partition", "no-such-partition")]
    with pytest.raises(SlurmError, match="(?i)invalid partition"):
        client.submit(_script(tmp_path, "true\n", directives), tmp_path, None, directives=directives)


def test_user_jobs_stdout_is_absolute_for_a_job_without_output(
    client: SlurmClient, tmp_path: Path, cancel_later: list[str]
) -> None:
    """25.11 reports `slurm-%j.out` relative for a job without -o: it is joined with the work dir."""
    directives = [("job-name", "no-output"), ("nodes", "1"), ("time", "5")]
    job_id = client.submit(_script(tmp_path, "sleep 300\n", directives), tmp_path, None, directives=directives)
    cancel_later.append(job_id)
    _wait(client, job_id, lambda j: j.state == "RUNNING")
    mine = {j.job_id: j for j in client.user_jobs(os.environ.get("USER") or "root")}
    assert mine[job_id].stdout == str(tmp_path / f"slurm-{job_id}.out")
    assert mine[job_id].work_dir == str(tmp_path)


def test_controller_partitions_nodes(client: SlurmClient, local_slurm: ClusterInfo) -> None:
    config = parse_scontrol_config(
        subprocess.run(["scontrol", "show", "config"], capture_output=True, text=True, check=True).stdout
    )
    assert client.controller_info().version == config["SLURM_VERSION"]
    # the TUI's check names the cluster that answered (operator pass 4: a login node's default slurm.conf was
    # another cluster's, and the header said only "reachable")
    from srt_tui.slurm.answers import slurm_reachable

    ok, why, cluster = slurm_reachable(client.name)
    assert ok and cluster == config["ClusterName"], why
    assert why.startswith(f"cluster {config['ClusterName']} answers ({client.name} transport, "), why
    (part,) = client.partitions()
    assert (part.name, part.is_default, part.nodes) == ("gpu", True, tuple(local_slurm.node_names))
    nodes = client.nodes()
    assert [(n.name, n.gpus, n.cpus > 0, n.partitions) for n in nodes] == [
        (name, 8, True, ("gpu",)) for name in local_slurm.node_names
    ]
