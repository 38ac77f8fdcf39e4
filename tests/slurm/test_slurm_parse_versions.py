"""Every parser on real outputs of both tested Slurm releases (22.05, Debian's; 25.11, the vendored build),
one job in each state a job can be in: the JSON and text paths must tell the same story.

The 22.05 captures (`*_states_22.05.*`) come from the local test cluster: a running job, one pending on a
dependency, one held, one failed with exit 3, one cancelled (signal 15), one timed out, two completed.
The 25.11 captures come from `../shared/vendor/slurm-25.11/fixtures/` (see its README).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from srt_tui.slurm.parse import (
    parse_sacct,
    parse_scontrol_config,
    parse_scontrol_ping,
    parse_scontrol_show_jobs,
    parse_scontrol_show_nodes,
    parse_scontrol_show_partitions,
    parse_sinfo_json,
    parse_sinfo_nodes_text,
    parse_squeue_json,
    parse_squeue_text,
    parse_user_jobs,
    stdout_path,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _read(name: str) -> str:
    return (FIXTURES / name).read_text()


#: job id -> (state, reason, exit code, signal) of the 22.05 capture
STATES_22_05 = {
    "1": ("COMPLETED", "", 0, None),
    "2": ("RUNNING", "", None, None),
    "3": ("FAILED", "NonZeroExitCode", 3, None),
    "4": ("PENDING", "JobHeldUser", None, None),
    "5": ("CANCELLED", "", 0, 15),
    "6": ("PENDING", "Dependency", None, None),
    "7": ("TIMEOUT", "TimeLimit", 0, 15),
    "8": ("COMPLETED", "", 0, None),
}


def test_22_05_json_and_scontrol_agree_on_every_state_and_exit_code() -> None:
    by_json = parse_squeue_json(_read("squeue_states_22.05.json"))
    by_scontrol = parse_scontrol_show_jobs(_read("scontrol_show_jobs_states_22.05.txt"))
    for job_id, (state, reason, code, signal) in STATES_22_05.items():
        for parsed in (by_json[job_id], by_scontrol[job_id]):
            assert (parsed.state, parsed.reason_worth_showing, parsed.exit_code, parsed.exit_signal) == (
                state,
                reason,
                code,
                signal,
            ), f"job {job_id}: {parsed}"


def test_22_05_text_matches_json_except_exit_codes() -> None:
    """squeue's text has no exit code (the transport asks sacct/scontrol for it); all else agrees."""
    by_text = parse_squeue_text(_read("squeue_states_22.05.txt"))
    by_json = parse_squeue_json(_read("squeue_states_22.05.json"))
    assert set(by_text) == set(STATES_22_05)
    for job_id, text in by_text.items():
        js = by_json[job_id]
        assert (text.state, text.reason, text.nodes, text.node_count, text.time_limit, text.partition) == (
            js.state,
            js.reason,
            js.nodes,
            js.node_count,
            js.time_limit,
            js.partition,
        )
        assert (text.start_time is None, text.end_time is None) == (js.start_time is None, js.end_time is None)
    assert by_text["7"].time_limit == 1 and by_text["2"].end_time is None  # a running job has no end yet


def test_22_05_user_jobs_stdout_paths_are_absolute_and_expanded() -> None:
    jobs = {j.job_id: j for j in parse_user_jobs(_read("squeue_user_jobs_states_22.05.txt"))}
    assert {j: jobs[j].state for j in jobs} == {j: s[0] for j, s in STATES_22_05.items()}
    assert jobs["2"].stdout == "/tmp/c22/running22-2.out"  # %x-%j filled in
    assert jobs["5"].stdout == "/tmp/c22/slurm-5.out"  # 22.05 gives the default absolute
    assert all(j.user == "root" for j in jobs.values())


#: job id -> (state, reason, exit code, signal) of the 25.11 ended capture
ENDED_25_11 = {
    "1": ("COMPLETED", "", 0, None),
    "2": ("TIMEOUT", "TimeLimit", 0, None),
    "3": ("FAILED", "NonZeroExitCode", 3, None),
    "4": ("PENDING", "JobHeldUser", None, None),
    "5": ("CANCELLED", "", 0, 15),  # return_code {set: false} + signal 15: 0:15 as scontrol prints it
    "6": ("CANCELLED", "", 0, None),  # cancelled while pending: never ran, no signal
}


def test_25_11_json_every_ended_state_and_the_signalled_exit_code() -> None:
    jobs = parse_squeue_json(_read("squeue_25.11_ended.json"))
    for job_id, (state, reason, code, signal) in ENDED_25_11.items():
        job = jobs[job_id]
        assert (job.state, job.reason_worth_showing, job.exit_code, job.exit_signal) == (state, reason, code, signal)


def test_25_11_sacct_agrees_with_json_on_ended_jobs() -> None:
    acct = parse_sacct(_read("sacct_P_25.11.txt"))
    jobs = parse_squeue_json(_read("squeue_25.11_ended.json"))
    for job_id in ("1", "2", "3", "5"):
        assert (acct[job_id].state, acct[job_id].exit_code) == (jobs[job_id].state, jobs[job_id].exit_code)
    assert acct["5"].state == "CANCELLED"  # "CANCELLED by 0"


def test_25_11_pending_running_held_in_json_text_and_scontrol() -> None:
    by_json = parse_squeue_json(_read("squeue_25.11_running.json"))
    by_text = parse_squeue_text(_read("squeue_text_25.11.txt"))
    by_scontrol = parse_scontrol_show_jobs(_read("scontrol_show_jobs_all_25.11.txt"))
    want = {"1": ("RUNNING", ""), "2": ("PENDING", "Resources"), "3": ("PENDING", "Priority"),
            "4": ("PENDING", "JobHeldUser")}  # fmt: skip
    for source in (by_json, by_text, by_scontrol):
        assert {j: (source[j].state, source[j].reason_worth_showing) for j in want} == want
        assert source["1"].nodes == ("s25n1", "s25n2") and source["1"].node_count == 2
        assert source["1"].time_limit == 10 and source["2"].start_time is None


def test_25_11_squeue_json_with_j_holds_only_that_job() -> None:
    """22.05 ignored `-j` in `squeue --json`; 25.11 honours it."""
    assert list(parse_squeue_json(_read("squeue_25.11_j1.json"))) == ["1"]


def test_25_11_scontrol_single_job_failed_and_running() -> None:
    (failed,) = parse_scontrol_show_jobs(_read("scontrol_show_job_25.11_failed.txt")).values()
    (running,) = parse_scontrol_show_jobs(_read("scontrol_show_job_25.11_running.txt")).values()
    assert (failed.state, failed.exit_code, failed.reason_worth_showing) == ("FAILED", 3, "NonZeroExitCode")
    assert (running.state, running.exit_code) == ("RUNNING", None)


def test_25_11_relative_stdout_is_joined_with_the_work_dir() -> None:
    """25.11 gives a job without -o `slurm-%j.out` (relative) in `squeue -O StdOut` and JSON."""
    jobs = {j.job_id: j for j in parse_user_jobs(_read("squeue_user_jobs_25.11.txt"))}
    plain = jobs["97"]
    assert plain.stdout == plain.work_dir + "/slurm-97.out"
    assert plain.stdout.startswith("/tmp/pytest-of-root/")
    assert jobs["96"].stdout.endswith("/outputs/96/logs/slurm.log")  # srt-tui's own -o: absolute already
    doc = json.loads(_read("squeue_25.11_running.json"))
    entry = next(j for j in doc["jobs"] if j["job_id"] == 2)
    assert entry["standard_output"] == "slurm-%j.out"
    assert stdout_path(entry["standard_output"], "2", "", "", entry["current_working_directory"]) == (
        entry["current_working_directory"] + "/slurm-2.out"
    )


@pytest.mark.parametrize(
    ("pattern", "work_dir", "want"),
    [
        ("slurm-%j.out", "/w", "/w/slurm-7.out"),
        ("logs/%x.%j", "/w/", "/w/logs/job.7"),
        ("/abs/%j.out", "/w", "/abs/7.out"),
        ("slurm-%j.out", "", "slurm-7.out"),  # no work dir known: left as Slurm said it
        ("", "/w", ""),
        ("(null)", "/w", ""),
    ],
)
def test_stdout_path(pattern: str, work_dir: str, want: str) -> None:
    assert stdout_path(pattern, "7", "job", "ann", work_dir) == want


def test_sinfo_json_grouped_25_11_in_one_call_matches_the_text() -> None:
    """23.11+ `sinfo --json` groups nodes; read in place (no second `sinfo` call)."""
    grouped = parse_sinfo_json(_read("sinfo_25.11.json"))
    assert grouped is not None
    text = parse_sinfo_nodes_text(_read("sinfo_nodes_25.11.txt"))
    fields = [(n.name, n.cpus, n.memory_mb, n.gpus, n.gpu_type, n.partitions) for n in grouped]
    assert fields == [(n.name, n.cpus, n.memory_mb, n.gpus, n.gpu_type, n.partitions) for n in text]
    assert fields[0] == ("s25n1", 16, 256000, 8, "h100", ("gpu",))
    assert grouped[0].state == "MIXED"


def test_sinfo_json_grouped_nodes_in_different_states() -> None:
    nodes = {n.name: n for n in parse_sinfo_json(_read("sinfo_25.11_netns.json")) or []}
    assert {name: n.state for name, n in nodes.items()} == {"node1": "MIXED", "node2": "IDLE", "node3": "IDLE"}
    assert all(n.gpus == 8 and n.gpu_type is None for n in nodes.values())


def test_sinfo_json_grouped_node_in_two_partitions_is_one_node() -> None:
    group = {"nodes": {"nodes": ["n1"]}, "node": {"state": ["IDLE"]}, "cpus": {"maximum": 4}, "memory": {}}
    doc = {"sinfo": [group | {"partition": {"name": "a"}}, group | {"partition": {"name": "b"}}]}
    (node,) = parse_sinfo_json(doc) or []
    assert (node.name, node.partitions, node.cpus) == ("n1", ("a", "b"), 4)


def test_25_11_scontrol_node_partition_config_ping() -> None:
    nodes = parse_scontrol_show_nodes(_read("scontrol_show_node_25.11.txt"))
    assert [(n.name, n.gpus, n.gpu_type, n.cpus) for n in nodes] == [("s25n1", 8, "h100", 16), ("s25n2", 8, "h100", 16)]
    (part,) = parse_scontrol_show_partitions(_read("scontrol_show_partition_25.11.txt"))
    assert (part.name, part.is_default, part.max_time, part.nodes) == ("gpu", True, None, ("s25n1", "s25n2"))
    config = parse_scontrol_config(_read("scontrol_show_config_25.11.txt"))
    assert (config["SLURM_VERSION"], config["ClusterName"]) == ("25.11.7", "s25")
    assert parse_scontrol_ping(_read("scontrol_ping_25.11.txt"))
