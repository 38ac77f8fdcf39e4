"""Preflight against the cluster that answers, before sbatch: on the real local Slurm (3 nodes, 8 GPUs
each, partition `gpu`, no accounting) a job that cannot fit is refused with what and how to fix it,
nothing is submitted; a check that cannot run (the account, without slurmdbd) says so and does not
block. The time-limit and account rules are checked on parsed `scontrol` / `sacctmgr` text."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

from srt_tui.slurm.parse import parse_scontrol_show_nodes, parse_scontrol_show_partitions
from srt_tui.slurm.preflight import JobDemand, check_demand
from tests.conftest import REPO
from tests.e2e.jobtools import srt

MOCKER = REPO / "recipes" / "mocker"


#: two TP8 workers on one node: fits a node of 16 GPUs, which the test cluster does not have
TWO_ON_ONE_NODE = (
    "name: two\nmodel: {path: mock-model}\nengine: mocker\n"
    "roles:\n  agg: {nodes: 1, workers: 2, gpus: 8, args: {tp-size: 8}}\nfrontend: {type: sglang-router}\n"
)


def _recipe(tmp_path: Path, base: str = "mocker-2p1d.yaml") -> tuple[Path, str]:
    """A copy of a mocker recipe under a unique name (to ask Slurm whether anything was submitted)."""
    name = f"preflight-{uuid.uuid4().hex[:8]}"
    text = TWO_ON_ONE_NODE if base == "two" else (MOCKER / base).read_text()
    first = text.splitlines()[[ln.startswith("name:") for ln in text.splitlines()].index(True)]
    path = tmp_path / f"{name}.yaml"
    path.write_text(text.replace(first, f"name: {name}"))
    return path, name


def _profile(tmp_path: Path, old: str, new: str) -> Path:
    path = tmp_path / "profile.yaml"
    text = (REPO / "profiles" / "local.yaml").read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return path


def _submitted(name: str) -> str:
    return subprocess.run(
        ["squeue", "-h", "--states=all", "-n", name, "-o", "%i"], capture_output=True, text=True, timeout=30
    ).stdout.strip()


@pytest.mark.slurm
@pytest.mark.parametrize(
    ("base", "profile_change", "extra", "said", "fix"),
    [
        ("mocker-2p1d.yaml", None, ["-t", "9P9D"], "the job needs 14 nodes; partition `gpu` has 3",
         "choose a smaller topology"),
        ("mocker-2p1d.yaml", ("default_partition: gpu", "default_partition: nosuch"), [],
         "partition `nosuch` does not exist", "use one of: gpu"),
        ("two", ("gpus_per_node: 8", "gpus_per_node: 16"), [], "the job needs 16 GPUs on each of 1 node(s)",
         "`gpus_per_node` to at most 8"),
    ],
)  # fmt: skip
def test_a_job_the_cluster_cannot_run_is_refused_before_sbatch(
    cluster: Any,
    tmp_path: Path,
    base: str,
    profile_change: tuple[str, str] | None,
    extra: list[str],
    said: str,
    fix: str,
) -> None:
    recipe, name = _recipe(tmp_path, base)
    profile = str(_profile(tmp_path, *profile_change)) if profile_change else "local"
    out = tmp_path / "out"
    proc = srt("apply", "-f", str(recipe), "-p", profile, *extra, "--launcher", "slurm", "-y", "-o", str(out),
               check=False)  # fmt: skip
    submitted = _submitted(name)
    if submitted:  # (without the preflight: a job that pends forever on a shared cluster)
        subprocess.run(["scancel", *submitted.split()], capture_output=True, timeout=30)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert said in proc.stderr and fix in proc.stderr, proc.stderr
    assert submitted == ""  # sbatch never ran
    assert not out.exists()  # refused before anything is written: not even an empty output directory


@pytest.mark.slurm
def test_a_check_that_cannot_run_says_so_and_does_not_block(cluster: Any, tmp_path: Path) -> None:
    recipe, name = _recipe(tmp_path, "mocker-agg-direct.yaml")
    profile = _profile(tmp_path, "default_partition: gpu", "default_partition: gpu\ndefault_account: acme")
    proc = srt("apply", "-f", str(recipe), "-p", str(profile), "--launcher", "slurm", "-y", "-o",
               str(tmp_path / "out"), check=False)  # fmt: skip
    job_id = _submitted(name)
    try:
        assert proc.returncode == 0, proc.stderr
        assert "preflight: account `acme` not checked: no accounting here" in proc.stderr
        assert job_id
    finally:
        if job_id:
            subprocess.run(["scancel", job_id], capture_output=True, timeout=30)


PARTITION = (
    "PartitionName=short AllowGroups=ALL Default=YES MaxNodes=UNLIMITED MaxTime=01:00:00 MinNodes=0 "
    "Nodes=n[1-2] State=UP TotalCPUs=32 TotalNodes=2\n"
)
NODES = (
    "NodeName=n1 Arch=x86_64 CPUTot=16 Gres=gpu:h100:4 RealMemory=1000 State=IDLE Partitions=short\n"
    "NodeName=n2 Arch=x86_64 CPUTot=16 Gres=gpu:h100:8 RealMemory=1000 State=IDLE Partitions=short\n"
)


def _check(**demand: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {"nodes": 1, "gpus_per_node": 4, "partition": None, "account": None}
    fields.update(demand)
    checks = check_demand(
        JobDemand(time_limit=fields.pop("time_limit", "00:30:00"), **fields),
        parse_scontrol_show_partitions(PARTITION),
        parse_scontrol_show_nodes(NODES),
        "alice",
        ["physics", "chem"],
        face="cli",
    )
    return {c.name: c for c in checks}


def test_time_limit_beyond_maxtime_and_accounts_the_user_lacks() -> None:
    ok = _check(time_limit="00:59:00", account="chem")
    assert all(c.ok for c in ok.values()) and set(ok) == {"partition", "nodes", "gpus", "time", "account"}
    too_long = _check(time_limit="2-00:00:00")["time"]
    assert too_long.ok is False and "exceeds partition `short`'s MaxTime 1:00:00" in too_long.message
    assert "at most 1:00:00" in too_long.fix
    assert _check(time_limit="UNLIMITED")["time"].ok is False
    wrong = _check(account="biology")["account"]
    assert wrong.ok is False and "use one of: physics, chem" in wrong.fix
    gpus = _check(nodes=2, gpus_per_node=8)["gpus"]  # one of the two nodes has only 4
    assert gpus.ok is False and "1 node(s) of `short` have that many" in gpus.message


@pytest.mark.slurm
def test_doctor_preflights_a_recipe(cluster: Any) -> None:
    proc = srt("doctor", "-p", "local", "--no-node", "-f", str(MOCKER / "mocker-2p1d.yaml"), "-t", "9P9D",
               check=False)  # fmt: skip
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "✗ preflight nodes: the job needs 14 nodes; partition `gpu` has 3" in proc.stdout
    assert "✓ preflight gpus: 8 GPUs per node fit" in proc.stdout
