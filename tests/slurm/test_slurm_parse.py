"""Parsers over output captured from the real Slurm 22.05 test cluster and synthetic 23.02+ shapes."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from srt_tui.slurm.client import JobState
from srt_tui.slurm.parse import (
    base_state,
    compress_hostlist,
    decode_wait_status,
    expand_hostlist,
    json_number,
    parse_exit_pair,
    parse_gres,
    parse_kv_line,
    parse_sbatch_parsable,
    parse_scontrol_ping,
    parse_scontrol_show_jobs,
    parse_scontrol_show_nodes,
    parse_scontrol_show_partitions,
    parse_sinfo_json,
    parse_sinfo_nodes_text,
    parse_squeue_json,
    parse_squeue_text,
    parse_time_limit,
    parse_timestamp,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures"
WORKDIR = "/tmp/srt capture/work dir"  # the captured jobs ran here (a path with spaces)


def fixture(name: str) -> str:
    """A captured output by file name."""
    return (FIXTURES / name).read_text()


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The fixtures were captured on a UTC machine; Slurm's text times are local times."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


# ----------------------------------------------------------------------------- hostlists


@pytest.mark.parametrize(
    ("expr", "names"),
    [
        ("node[1-3,5]", ["node1", "node2", "node3", "node5"]),
        ("a[01-02]b", ["a01b", "a02b"]),
        ("gpu[008-010]", ["gpu008", "gpu009", "gpu010"]),
        ("r[1-2]n[1-2]", ["r1n1", "r1n2", "r2n1", "r2n2"]),
        ("node1,node[3-4],login", ["node1", "node3", "node4", "login"]),
        ("node[1-2],gpu-[09-10]", ["node1", "node2", "gpu-09", "gpu-10"]),
        ("vm", ["vm"]),
        ("", []),
        ("(null)", []),
    ],
)
def test_expand_hostlist(expr: str, names: list[str]) -> None:
    assert expand_hostlist(expr) == names


@pytest.mark.parametrize("bad", ["node[1-", "node]1[", "node[3-1]", "node[a-b]", "node[1,,2]"])
def test_expand_hostlist_rejects_malformed(bad: str) -> None:
    with pytest.raises(ValueError):
        expand_hostlist(bad)


def test_compress_hostlist_round_trips() -> None:
    names = ["node1", "node2", "node3", "node5", "gpu008", "gpu009", "login"]
    assert compress_hostlist(names) == "node[1-3,5],gpu[008-009],login"
    assert expand_hostlist(compress_hostlist(names)) == names
    assert compress_hostlist(["node7"]) == "node7"


# ----------------------------------------------------------------------------- scalars


@pytest.mark.parametrize(
    ("gres", "expected"),
    [
        ("gpu:8", (8, None)),
        ("gpu:h100:8", (8, "h100")),
        ("gpu:h100:8(S:0-1)", (8, "h100")),
        ("gres:gpu:2", (2, None)),
        ("gpu:8(IDX:0-7)", (8, None)),
        ("gpu:a100:4,gpu:v100:2", (6, "a100,v100")),
        ("shard:4,gpu:mi300x:8(S:0,1)", (8, "mi300x")),
        ("gpu", (1, None)),
        ("(null)", (0, None)),
        ("", (0, None)),
        ("shard:4", (0, None)),
    ],
)
def test_parse_gres(gres: str, expected: tuple[int, str | None]) -> None:
    assert parse_gres(gres) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(0, (0, None)), (768, (3, None)), (15, (0, 15)), (9, (0, 9)), (256, (1, None)), (4021, (0, 53))],
)
def test_decode_wait_status(raw: int, expected: tuple[int, int | None]) -> None:
    assert decode_wait_status(raw) == expected


def test_parse_exit_pair() -> None:
    assert parse_exit_pair("3:0") == (3, None)
    assert parse_exit_pair("0:15") == (0, 15)
    assert parse_exit_pair("") == (None, None)


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("UNLIMITED", None),
        ("INFINITE", None),
        ("N/A", None),
        ("30", 30),
        ("5:00", 5),
        ("0:30", 1),
        ("1:00:00", 60),
        ("1-00:00:00", 1440),
        ("2-12", 3600),
        ("1-02:03", 1563),
    ],
)
def test_parse_time_limit(text: str, minutes: int | None) -> None:
    assert parse_time_limit(text) == minutes


def test_parse_timestamp_is_local_time() -> None:
    assert parse_timestamp("2024-05-01T10:00:00") == int(datetime(2024, 5, 1, 10, 0, 0).timestamp())
    for empty in ("N/A", "Unknown", "NONE", "None", ""):
        assert parse_timestamp(empty) is None


def test_json_number_shapes() -> None:
    assert json_number(5) == 5
    assert json_number({"set": True, "infinite": False, "number": 7}) == 7
    assert json_number({"set": False, "infinite": False, "number": 0}) is None
    assert json_number({"set": True, "infinite": True, "number": 0}) is None
    assert json_number(None) is None
    assert json_number("12") == 12


def test_base_state_from_strings_and_lists() -> None:
    assert base_state("RUNNING") == "RUNNING"
    assert base_state(["COMPLETED", "COMPLETING"]) == "COMPLETED"
    assert base_state(["REQUEUED"]) == "REQUEUED"
    assert base_state("CANCELLED by 0") == "CANCELLED"
    assert base_state("") == "UNKNOWN"


def test_parse_sbatch_parsable() -> None:
    assert parse_sbatch_parsable("29\n") == "29"
    assert parse_sbatch_parsable("31;prod-cluster\n") == "31"
    assert parse_sbatch_parsable("sbatch: warning: something\n42\n") == "42"
    with pytest.raises(ValueError):
        parse_sbatch_parsable("")
    with pytest.raises(ValueError):
        parse_sbatch_parsable("Submitted batch job 5")


def test_parse_scontrol_ping() -> None:
    assert parse_scontrol_ping(fixture("scontrol_ping_22.05.txt")) is True
    assert parse_scontrol_ping("Slurmctld(primary) at vm is DOWN\n*****\n") is False


# ----------------------------------------------------------------------------- Key=Value


def test_parse_kv_line_keeps_values_with_spaces() -> None:
    line = fixture("scontrol_show_job_22.05.txt").splitlines()[4]  # job 6, a script in a dir with spaces
    fields = parse_kv_line(line)
    assert fields["JobId"] == "6"
    assert fields["Command"] == f"{WORKDIR}/job.sh"
    assert fields["WorkDir"] == WORKDIR
    assert fields["StdOut"] == f"{WORKDIR}/slurm-6.out"
    assert fields["AllocNode:Sid"] == "localhost:2715"
    assert fields["TRES"] == "cpu=3,node=3,billing=3"
    assert fields["Power"] == ""
    assert fields["TresPerNode"] == "gres:gpu:8"
    node = parse_kv_line(fixture("scontrol_show_node_22.05.txt").splitlines()[0])
    assert node["OS"] == "Linux 6.18.44-fc-v595 #1 SMP PREEMPT_DYNAMIC @0"
    assert node["RealMemory"] == "256000"
    assert parse_kv_line("Command=/x/run.sh --port=8000 WorkDir=/w") == {
        "Command": "/x/run.sh --port=8000",
        "WorkDir": "/w",
    }


def test_scontrol_show_job_22_05() -> None:
    jobs = parse_scontrol_show_jobs(fixture("scontrol_show_job_22.05.txt"))
    assert sorted(jobs, key=int) == ["2", "3", "4", "5", "6", "7", "9"]
    failed = jobs["2"]
    assert (failed.state, failed.reason, failed.exit_code, failed.exit_signal) == (
        "FAILED",
        "NonZeroExitCode",
        3,
        None,
    )
    assert jobs["3"].name == "ok|pipe" and jobs["3"].time_limit == 5
    assert (jobs["4"].state, jobs["4"].exit_code, jobs["4"].exit_signal) == ("CANCELLED", 0, 15)
    assert jobs["5"].exit_signal == 9
    running = jobs["6"]
    assert running.nodes == ("node1", "node2", "node3") and running.node_count == 3
    assert running.exit_code is None and running.end_time is None and running.start_time
    assert running.work_dir == WORKDIR
    pending = jobs["7"]
    assert (pending.state, pending.reason, pending.nodes, pending.start_time) == (
        "PENDING",
        "Resources",
        (),
        None,
    )
    assert pending.expected_start is None  # `StartTime=Unknown`: the scheduler made no estimate yet
    assert jobs["9"].time_limit == 1440


# ----------------------------------------------------------------------------- squeue


def test_squeue_json_22_05() -> None:
    doc = json.loads(fixture("squeue_22.05.json"))
    assert doc["meta"]["Slurm"]["release"] == "22.05.8"
    jobs = parse_squeue_json(doc)
    assert sorted(jobs, key=int) == [str(i) for i in range(1, 11)]
    assert jobs["2"].state == "FAILED" and jobs["2"].exit_code == 3  # raw 768
    assert (jobs["4"].state, jobs["4"].exit_code, jobs["4"].exit_signal) == ("CANCELLED", 0, 15)
    assert (jobs["5"].state, jobs["5"].exit_signal, jobs["5"].reason) == ("FAILED", 9, "JobLaunchFailure")
    running = jobs["6"]
    assert running.state == "RUNNING" and running.name == "srt-disagg"
    assert running.nodes == ("node1", "node2", "node3") and running.node_count == 3
    assert running.end_time is None  # 22.05 reports start + 1 year for an unlimited running job
    assert running.exit_code is None and running.time_limit is None and running.partition == "gpu"
    assert running.work_dir == WORKDIR
    assert jobs["7"].start_time is None and jobs["7"].end_time is None and jobs["7"].reason == "Resources"
    assert (jobs["8"].reason, jobs["8"].node_count) == ("PartitionNodeLimit", 4)
    assert jobs["9"].time_limit == 1440
    assert (jobs["10"].state, jobs["10"].reason) == ("FAILED", "BadConstraints")  # a rejected sbatch


def test_squeue_json_and_scontrol_agree_on_22_05() -> None:
    from_json = parse_squeue_json(fixture("squeue_22.05.json"))
    from_scontrol = parse_scontrol_show_jobs(fixture("scontrol_show_job_22.05.txt"))
    for job_id, job in from_scontrol.items():
        assert from_json[job_id] == job


def test_squeue_text_22_05_matches_json() -> None:
    from_text = parse_squeue_text(fixture("squeue_22.05.txt"))
    from_json = parse_squeue_json(fixture("squeue_22.05.json"))
    assert from_text.keys() == from_json.keys()
    assert from_text["3"].name == "ok|pipe"  # a "|" in the name does not shift the fields
    for job_id, job in from_text.items():
        # the text format has no exit code; everything else is the same
        assert job == JobState(**{**from_json[job_id].__dict__, "exit_code": None, "exit_signal": None})


def test_squeue_text_short_format() -> None:
    line = "12|train|RUNNING|None|node[1-2]|2|gpu|2024-05-01T10:00:00|2024-05-01T11:00:00|1:00:00\n"
    fmt = "%i|%j|%T|%r|%N|%D|%P|%S|%e|%l"
    job = parse_squeue_text(line, fmt)["12"]
    assert (job.state, job.nodes, job.node_count, job.time_limit, job.end_time) == (
        "RUNNING",
        ("node1", "node2"),
        2,
        60,
        None,
    )
    assert job.start_time == parse_timestamp("2024-05-01T10:00:00")


def test_squeue_json_23_11_shapes() -> None:
    jobs = parse_squeue_json(fixture("squeue_23.11_synthetic.json"))
    running = jobs["101"]
    assert running == JobState(
        job_id="101",
        name="srt-agg",
        state="RUNNING",
        nodes=("gpu-01", "gpu-02"),
        node_count=2,
        submit_time=1714550000,
        start_time=1714550010,
        time_limit=1440,
        partition="batch",
        work_dir="/home/op/jobs/101",
    )
    failed = jobs["102"]
    assert (failed.state, failed.exit_code, failed.exit_signal, failed.end_time) == ("FAILED", 3, None, 1714550160)
    cancelled = jobs["103"]
    assert (cancelled.state, cancelled.exit_code, cancelled.exit_signal, cancelled.time_limit) == (
        "CANCELLED",
        0,
        15,
        None,
    )
    assert cancelled.nodes == ("gpu-04", "gpu-07")
    pending = jobs["104"]
    assert (pending.state, pending.reason, pending.start_time, pending.time_limit) == (
        "PENDING",
        "Resources",
        None,
        None,
    )
    assert pending.expected_start == 1714560000  # a queued job's start time is the scheduler's estimate
    assert jobs["105"].state == "COMPLETED" and jobs["105"].exit_code == 0
    assert jobs["106_1"] is jobs["107"]  # an array task is also found as ARRAYID_TASK


def test_squeue_json_23_02_shapes() -> None:
    jobs = parse_squeue_json(fixture("squeue_23.02_synthetic.json"))
    assert (jobs["201"].state, jobs["201"].exit_code, jobs["201"].nodes) == ("FAILED", 3, ("n1", "n2"))
    assert jobs["202"].state == "RUNNING" and jobs["202"].exit_code is None and jobs["202"].end_time is None


# ----------------------------------------------------------------------------- nodes and partitions


def test_sinfo_json_22_05_and_text_agree() -> None:
    from_json = parse_sinfo_json(fixture("sinfo_22.05.json"))
    assert from_json is not None
    assert [n.name for n in from_json] == ["node1", "node2", "node3"]
    node = from_json[1]
    assert (node.state, node.cpus, node.memory_mb, node.gres, node.gpus, node.gpu_type) == (
        "MIXED",
        16,
        256000,
        "gpu:8",
        8,
        None,
    )
    assert (node.partitions, node.address) == (("gpu",), "10.254.0.12")
    assert parse_sinfo_nodes_text(fixture("sinfo_nodes_22.05.txt")) == from_json
    assert parse_scontrol_show_nodes(fixture("scontrol_show_node_22.05.txt")) == from_json


def test_sinfo_json_23_02_state_list_and_typed_gres() -> None:
    doc = {
        "errors": [],
        "nodes": [
            {
                "name": "gpu-01",
                "state": ["IDLE", "DRAIN"],
                "cpus": 224,
                "real_memory": 2000000,
                "gres": "gpu:h100:8(S:0-1)",
                "partitions": ["batch", "debug"],
                "address": "10.0.0.1",
            }
        ],
    }
    (node,) = parse_sinfo_json(doc) or []
    assert (node.state, node.gpus, node.gpu_type, node.partitions) == ("IDLE+DRAIN", 8, "h100", ("batch", "debug"))


def test_sinfo_json_23_11_grouped_shape_is_read_in_place() -> None:
    """(the real 25.11 outputs: test_slurm_parse_versions.py); an unknown shape is left to the text command"""
    (node,) = parse_sinfo_json({"sinfo": [{"nodes": {"nodes": ["gpu-01"]}}], "errors": []}) or []
    assert node.name == "gpu-01"
    assert parse_sinfo_json({"something": []}) is None


def test_sinfo_text_merges_a_node_listed_per_partition() -> None:
    text = "n1|idle|8|1000|gpu:a100:4|batch*|10.0.0.1\nn1|idle|8|1000|gpu:a100:4|debug|10.0.0.1\n"
    (node,) = parse_sinfo_nodes_text(text)
    assert node.partitions == ("batch", "debug") and node.gpus == 4 and node.gpu_type == "a100"


def test_scontrol_show_partition_22_05() -> None:
    (part,) = parse_scontrol_show_partitions(fixture("scontrol_show_partition_22.05.txt"))
    assert (part.name, part.state, part.nodes, part.total_nodes, part.total_cpus, part.is_default) == (
        "gpu",
        "UP",
        ("node1", "node2", "node3"),
        3,
        48,
        True,
    )
    assert part.max_time is None


def test_sbatch_rejection_text_is_captured_verbatim() -> None:
    assert fixture("sbatch_reject_22.05.txt").strip() == (
        "sbatch: error: Batch job submission failed: Requested node configuration is not available"
    )
