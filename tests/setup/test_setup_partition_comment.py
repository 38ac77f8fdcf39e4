"""The written profile says how its partition was chosen: named by the operator, the cluster's default, or,
with no default, the first Slurm lists (it read `operator choice` there, though the operator named none)."""

from __future__ import annotations

from typing import Any

import pytest

from srt_tui.setup.probes import ProbeOptions, Prober
from srt_tui.setup.proposal import OperatorChoices, build_proposal
from srt_tui.slurm.client import NodeInfo, PartitionInfo


class _Listing:
    """A Slurm client that only lists two partitions, neither of them the default, of one GPU node each."""

    name = "listing"

    def partitions(self) -> list[PartitionInfo]:
        return [PartitionInfo("short", "UP", ("n1",), 1, 16), PartitionInfo("long", "UP", ("n2",), 1, 16)]

    def nodes(self) -> list[NodeInfo]:
        return [NodeInfo(n, "idle", cpus=16, memory_mb=1024, gres="gpu:8", gpus=8, partitions=(p,))
                for n, p in (("n1", "short"), ("n2", "long"))]  # fmt: skip


@pytest.mark.parametrize(
    ("named", "partition", "comment"),
    [
        (None, "short", "sinfo: the first partition Slurm lists (none is the default)"),
        ("long", "long", "sinfo: chosen by the operator"),
    ],
)
def test_the_partitions_comment_says_how_it_was_chosen(named: str | None, partition: str, comment: str) -> None:
    client: Any = _Listing()
    prober = Prober(ProbeOptions(partition=named), client=client)
    prober.probe_partitions()
    assert prober.run.partition == partition
    text = build_proposal(prober.run, OperatorChoices()).to_yaml()
    assert f"# default_partition: {comment}\ndefault_partition: {partition}\n" in text
    assert prober.run.findings[0].value.startswith(f"{partition} ({comment.removeprefix('sinfo: ')};")
