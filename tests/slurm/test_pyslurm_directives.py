"""srt-tui's rendered directives as pyslurm 25.11 JobSubmitDescription attributes, and the ones it
cannot express (named, so that job goes through sbatch instead)."""

from __future__ import annotations

from pathlib import Path

import pytest

from srt_tui.slurm.pyslurm_directives import UnsupportedDirective, script_directives, submit_attributes


def test_what_srt_tui_renders_for_a_disaggregated_job() -> None:
    attrs = submit_attributes(
        [
            ("job-name", "mocker-1p1d"),
            ("nodes", "2"),
            ("ntasks", "2"),
            ("ntasks-per-node", "1"),
            ("gpus-per-node", "8"),
            ("time", "00:30:00"),
            ("partition", "gpu"),
        ]
    )
    assert attrs == {
        "name": "mocker-1p1d",
        "nodes": "2",
        "ntasks": 2,
        "ntasks_per_node": 1,
        "gres_per_node": "gpu:8",  # pyslurm has no gpus_per_node: its docs say gres_per_node
        "time_limit": 30,  # an int: pyslurm hands digit strings to C uncast (TypeError)
        "partitions": "gpu",  # not `partition`, which load_sbatch_options sets and does not exist
    }


@pytest.mark.parametrize(
    ("directive", "attrs"),
    [
        (("time", "5"), {"time_limit": 5}),
        (("time", "1-00:00:00"), {"time_limit": 1440}),
        (("time", "UNLIMITED"), {"time_limit": "UNLIMITED"}),
        (("gres", "gpu:h100:8"), {"gres_per_node": "gpu:h100:8"}),
        (("gpus-per-node", "h100:4"), {"gres_per_node": "gpu:h100:4"}),
        (("exclusive", None), {"resource_sharing": "no"}),
        (("exclusive", "user"), {"resource_sharing": "user"}),
        (("mem", "0"), {"memory_per_node": "0"}),
        (("mem", "500g"), {"memory_per_node": "500G"}),
        (("account", "acct"), {"account": "acct"}),
        (("segment", "2"), {"segment_size": 2}),
        (("dependency", "singleton"), {"dependencies": "singleton"}),
        (("hold", None), {"priority": 0}),
        (("wait-all-nodes", "1"), {"wait_all_nodes": True}),
    ],
)
def test_each_directive(directive: tuple[str, str | None], attrs: dict[str, object]) -> None:
    assert submit_attributes([directive]) == attrs


@pytest.mark.parametrize(
    ("directives", "named"),
    [
        ([("gpu-freq", "high")], "--gpu-freq=high"),  # pyslurm 25.11 has no attribute for it
        ([("bb", "capacity=1G")], "--bb=capacity=1G"),
        ([("time", "soon")], "--time=soon"),
        ([("gres", "gpu")], "--gres=gpu"),  # pyslurm needs a count on every GRES
        ([("nodes", "2:4")], "--nodes=2:4"),
        ([("ntasks", "two")], "--ntasks=two"),
        ([("exclusive", "topo")], "--exclusive=topo"),
        ([("gpus-per-node", "8"), ("gres", "gpu:8")], "--gres=gpu:8"),  # two directives, one attribute
    ],
)
def test_what_pyslurm_cannot_express_is_named(directives: list[tuple[str, str | None]], named: str) -> None:
    with pytest.raises(UnsupportedDirective) as err:
        submit_attributes(directives)
    assert err.value.directive == named
    assert str(err.value).startswith(named + ": ")


def test_script_directives_reads_the_header_only(tmp_path: Path) -> None:
    script = tmp_path / "s.sh"
    script.write_text(
        "#!/bin/bash\n#SBATCH --job-name=x\n#SBATCH --exclusive\n# a comment\n#SBATCH -N 2\n\n"
        "echo hi\n#SBATCH --time=5\n"
    )
    assert script_directives(script) == [("job-name", "x"), ("exclusive", None), ("-N 2", None)]
    with pytest.raises(UnsupportedDirective, match="-N 2"):  # sbatch would read it: so would the fallback
        submit_attributes(script_directives(script))
