"""Issue 21: a probe job (`setup --probe`, `doctor`) that Slurm kept pending for a reason other than busy nodes (a
hold, a down partition, unavailable nodes, a limit) still got the fix "the partition may be busy": each reason
class now has its own fix, and only waiting for nodes keeps that one."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from srt_tui.setup.holders import BUSY_FIX, pending_fix
from srt_tui.setup.probes import ProbeOptions, Prober
from srt_tui.slurm.client import JobState, SlurmClient
from tests.cluster import ClusterInfo


@pytest.mark.parametrize(
    ("reason", "says"),
    [
        ("JobHeldUser", "something holds your new jobs (JobHeldUser"),
        ("JobHeldAdmin", "administrator"),
        ("PartitionDown", "partition gpu is down or inactive"),
        ("PartitionInactive", "partition gpu is down or inactive"),
        ("ReqNodeNotAvail, UnavailableNodes:node[1-3]", "unavailable (ReqNodeNotAvail: down, drained or reserved"),
        ("NodeDown", "unavailable (NodeDown"),
        ("AssocGrpGRES", "a limit of your account, QOS or partition gpu holds it (AssocGrpGRES"),
        ("QOSMaxJobsPerUserLimit", "(QOSMaxJobsPerUserLimit"),
        ("PartitionTimeLimit", "(PartitionTimeLimit"),
        ("InvalidAccount", "your account or QOS may not use partition gpu (InvalidAccount)"),
        ("SomethingNew", "Slurm keeps it pending for SomethingNew"),
    ],
)
def test_each_reason_class_has_its_own_fix(reason: str, says: str) -> None:
    fix = pending_fix(reason, "gpu")
    assert says in fix and "may be busy" not in fix, fix


@pytest.mark.parametrize("reason", ["", "None", "Resources", "Priority"])
def test_only_waiting_for_nodes_is_a_busy_partition(reason: str) -> None:
    assert pending_fix(reason, "gpu") == BUSY_FIX


class _HeldClient:
    """A Slurm that accepts the probe job and keeps it pending for ``reason`` until it is cancelled."""

    name = "stand-in"

    def __init__(self, reason: str) -> None:
        self.reason = reason
        self.cancelled: list[str] = []

    def submit(self, *args: Any, **kwargs: Any) -> str:
        return "41"

    def query(self, job_ids: list[str]) -> dict[str, JobState]:
        return {j: JobState(j, "srt-tui-probe", "PENDING", reason=self.reason) for j in job_ids}

    def cancel(self, job_id: str) -> None:
        self.cancelled.append(job_id)

    def user_jobs(self, user: str) -> list[JobState]:
        return []


def test_a_held_probe_job_gets_the_holds_fix(tmp_path: Path) -> None:
    """The probe job held with `scontrol hold` (JobHeldUser) until --node-timeout: the finding says the reason and
    the hold's fix, not "the partition may be busy"."""
    client = _HeldClient("JobHeldUser")
    options = ProbeOptions(partition="gpu", workdir=tmp_path, node_timeout=0.4)
    prober = Prober(options, cast(SlurmClient, client))
    prober.run.partition = "gpu"
    (finding,) = prober.probe_node()
    assert "probe job 41 did not finish within 0.4 s, PENDING (JobHeldUser)" in finding.error, finding
    assert "something holds your new jobs" in finding.fix and "may be busy" not in finding.fix, finding
    assert client.cancelled == ["41"]


class _HeldAfterWaiting(_HeldClient):
    """Your job holds 2 of the 3 nodes while the probe job waits (Resources); then the probe job is held."""

    def __init__(self) -> None:
        super().__init__("Resources")
        self.looks = 0

    def query(self, job_ids: list[str]) -> dict[str, JobState]:
        self.looks += 1
        self.reason = "Resources" if self.looks < 2 else "JobHeldUser"
        return super().query(job_ids)

    def user_jobs(self, user: str) -> list[JobState]:
        return [JobState("7", "serve", "RUNNING", nodes=("node1", "node2"), start_time=0, time_limit=10**6)]


def test_your_jobs_seen_while_it_waited_for_nodes_are_not_the_fix_once_it_is_held(tmp_path: Path) -> None:
    """The holders looked at while the probe job waited for nodes stayed after Slurm held it: the fix said
    "cancel your job 7" for a job that a hold, not job 7, kept pending."""
    from srt_tui.slurm.client import NodeInfo, PartitionInfo

    client = _HeldAfterWaiting()
    prober = Prober(ProbeOptions(partition="gpu", workdir=tmp_path, node_timeout=1.0), cast(SlurmClient, client))
    prober.run.partition = "gpu"
    names = ("node1", "node2", "node3")
    prober.run.partitions = [PartitionInfo("gpu", "UP", names, 3)]
    prober.run.nodes = [NodeInfo(name=n, state="IDLE", gpus=8, partitions=("gpu",)) for n in names]
    (finding,) = prober.probe_node()
    assert "PENDING (JobHeldUser)" in finding.error, finding
    assert "something holds your new jobs" in finding.fix and "srt-tui cancel 7" not in finding.fix, finding


@pytest.fixture
def others_hold_the_nodes(cluster: ClusterInfo) -> Iterator[str]:
    """Another user's job on every node (not yours: no `srt-tui cancel` fix), so a probe job waits (Resources)."""
    job = subprocess.run(
        ["sbatch", "--parsable", "--uid=nobody", "--gid=nogroup", "-N", str(len(cluster.node_names)), "--exclusive"]
        + ["-t", "60", "-o", "/dev/null", "--chdir", "/tmp", "-J", "others", "--wrap", "sleep 600"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    try:
        yield job
    finally:
        subprocess.run(["scancel", job], capture_output=True)


def _hold_the_probe_job(held: list[str], stop: threading.Event) -> None:
    """`scontrol uhold` the probe job as soon as Slurm lists it (a user's own hold: JobHeldUser)."""
    while not stop.wait(0.1):
        out = subprocess.run(["squeue", "-h", "-n", "srt-tui-probe", "-o", "%i"], capture_output=True, text=True)
        if out.stdout.split():
            job = out.stdout.split()[0]
            subprocess.run(["scontrol", "uhold", job], capture_output=True, check=True)
            held.append(job)
            return


@pytest.mark.slurm
def test_doctor_says_the_holds_fix_for_a_held_probe_job(
    others_hold_the_nodes: str, shared: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Real Slurm: the probe job waits behind another user's job, then is held (`scontrol uhold`): doctor's
    finding says JobHeldUser and the hold's fix, not "the partition may be busy"."""
    from srt_tui.cli.main import main

    monkeypatch.setenv("SRT_TUI_SLURM_TRANSPORT", "cli")
    held: list[str] = []
    stop = threading.Event()
    holder = threading.Thread(target=_hold_the_probe_job, args=(held, stop))
    holder.start()
    try:
        main(["doctor", "-p", "local", "--workdir", str(shared / "work"), "--node-timeout", "10"])
    finally:
        stop.set()
        holder.join()
    said = capsys.readouterr().out
    node = next(line for line in said.splitlines() if "node: probe job" in line)
    assert held and f"probe job {held[0]} did not finish within 10 s, PENDING (JobHeldUser)" in node, said
    fix = said.split(node, 1)[1].splitlines()[1]
    assert "something holds your new jobs (JobHeldUser" in fix and "may be busy" not in fix, fix
