"""Issue 21: a probe job (`setup --probe`, `doctor`) that Slurm kept pending for a reason other than busy nodes (a
hold, a down partition, unavailable nodes, a limit) still got the fix "the partition may be busy": each reason
class now has its own fix, and only waiting for nodes keeps that one."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from srt_tui.setup.holders import BUSY_FIX, pending_fix
from srt_tui.setup.probes import ProbeOptions, Prober
from srt_tui.slurm.client import JobState, SlurmClient


@pytest.mark.parametrize(
    ("reason", "says"),
    [
        ("JobHeldUser", "SBATCH_HOLD"),
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
    assert "SBATCH_HOLD" in finding.fix and "may be busy" not in finding.fix, finding
    assert client.cancelled == ["41"]
