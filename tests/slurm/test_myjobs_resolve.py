"""The all-jobs view's headless parts: `squeue -O` rows as Slurm 22.05 prints them (captured from the local
cluster: an srtctl-style `--output=<base>/%j/logs/sweep_%j.log` job, an srt-tui-style `--chdir` job, a plain
`sbatch --wrap` job), the output patterns filled in, and each job mapped to the directory that launched it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from srt_tui.core.jobdir.contract import JobMeta, write_job_meta
from srt_tui.core.jobdir.discovery import SRT_TUI, SRTCTL, dir_kind, find_output_dir, srtctl_job_name
from srt_tui.monitor.alljobs.query import map_jobs
from srt_tui.slurm.client import JobState
from srt_tui.slurm.parse import expand_output_pattern, parse_user_jobs
from srt_tui.state import hidden

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def rows() -> dict[str, JobState]:
    """The captured rows by job id."""
    jobs = parse_user_jobs((FIXTURES / "squeue_user_jobs_22.05.txt").read_text())
    return {j.job_id: j for j in jobs}


def test_squeue_rows_are_typed_and_stdout_patterns_expanded() -> None:
    jobs = parse_user_jobs((FIXTURES / "squeue_user_jobs_22.05.txt").read_text())
    by_id = {j.job_id: j for j in jobs}
    assert [j.job_id for j in jobs] == ["3", "5", "2", "1", "4"]  # squeue's order kept
    srtctl = by_id["3"]
    assert srtctl.stdout == "/tmp/alljobs-probe/outs/3/logs/sweep_3.log"  # squeue printed `%j`
    assert (srtctl.state, srtctl.reason, srtctl.partition, srtctl.user) == ("CANCELLED", "JobHeldUser", "gpu", "root")
    running = by_id["4"]
    assert running.name == "wrap job|x"  # a "|" in a name does not shift the fields
    assert (running.state, running.nodes, running.node_count) == ("RUNNING", ("node1",), 1)
    assert running.start_time is not None and running.end_time is None  # EndTime=NONE while it runs
    assert running.work_dir == "/tmp/alljobs-probe" and running.stdout == "/tmp/alljobs-probe/slurm-4.out"
    assert by_id["1"].nodes == ("node1", "node2", "node3") and by_id["1"].time_limit is None  # UNLIMITED


@pytest.mark.parametrize(
    ("pattern", "job_id", "want"),
    [
        ("/o/%j/logs/sweep_%j.log", "42", "/o/42/logs/sweep_42.log"),
        ("/o/%x-%u-%J.out", "42", "/o/bench-ann-42.out"),
        ("/o/%A_%a.out", "42_7", "/o/42_7.out"),
        ("/o/%5j.out", "42", "/o/00042.out"),
        ("/o/100%%-%N.out", "42", "/o/100%-%N.out"),  # %% is a percent sign; %N (a node) stays
    ],
)
def test_output_patterns(pattern: str, job_id: str, want: str) -> None:
    assert expand_output_pattern(pattern, job_id, name="bench", user="ann") == want


def srtctl_dir(base: Path, job_id: str, name: str = "dsr1-1p1d") -> Path:
    """What srtctl's `apply` leaves: `<base>/<id>/` with config.yaml, sbatch_script.sh, `<id>.json`, logs/."""
    job = base / job_id
    (job / "logs").mkdir(parents=True)
    (job / "config.yaml").write_text("name: x\n")
    (job / "sbatch_script.sh").write_text("#!/bin/bash\n")
    (job / f"{job_id}.json").write_text(json.dumps({"version": "2.0", "job_id": job_id, "job_name": name}))
    (job / "logs" / f"sweep_{job_id}.log").write_text("srtctl Sweep Orchestrator\n")
    return job


def test_srtctl_dir_found_from_its_stdout_path(tmp_path: Path) -> None:
    job = srtctl_dir(tmp_path / "outs", "3")
    found = find_output_dir("3", str(tmp_path / "outs/3/logs/sweep_3.log"), "/nowhere")
    assert found is not None and (found.path, found.kind) == (job, SRTCTL)
    assert srtctl_job_name(job, "3") == "dsr1-1p1d"
    # the same directory is not another job's: srtctl names it by the job id
    assert dir_kind(job, "4") is None


def test_srtctl_dir_under_the_work_dir_outputs(tmp_path: Path) -> None:
    """srtctl's default base is `<srtctl_root>/outputs`: found from the work dir when stdout says nothing."""
    job = srtctl_dir(tmp_path / "outputs", "9")
    found = find_output_dir("9", "", str(tmp_path))
    assert found is not None and found.path == job


def test_srt_tui_dir_needs_its_job_json_to_name_the_job(tmp_path: Path) -> None:
    job = tmp_path / "srtjob"
    (job / "logs").mkdir(parents=True)
    write_job_meta(job, JobMeta("5", name="qwen-agg", launcher="slurm"))
    stdout = str(job / "logs" / "slurm.log")
    found = find_output_dir("5", stdout, str(job))
    assert found is not None and (found.path, found.kind) == (job, SRT_TUI)
    assert find_output_dir("6", stdout, str(job)) is None  # job.json names job 5, not 6


def test_plain_sbatch_job_has_no_directory(tmp_path: Path) -> None:
    (tmp_path / "slurm-4.out").write_text("hello\n")
    assert find_output_dir("4", str(tmp_path / "slurm-4.out"), str(tmp_path)) is None


def test_index_only_when_slurm_names_no_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SRT_TUI_STATE_DIR", str(tmp_path / "state"))
    job = srtctl_dir(tmp_path / "elsewhere", "3")
    plain = replace(rows()["3"], stdout="", work_dir="")
    mapped = map_jobs([plain], hidden.hide(["3"]), {"3": job})
    assert mapped[0].job_dir == job and mapped[0].kind == SRTCTL and mapped[0].hidden
    # Slurm's own paths win over an index entry (ids restart when a cluster is rebuilt)
    other = srtctl_dir(tmp_path / "now", "3")
    row = replace(plain, stdout=str(other / "logs" / "sweep_3.log"))
    assert map_jobs([row], frozenset(), {"3": job})[0].job_dir == other
    assert hidden.unhide(["3", "77"]) == ["3"]
    assert hidden.hidden_jobs() == frozenset()


def test_jobs_that_still_run_or_wait_come_first_then_the_newest() -> None:
    """Operator pass (issue 21): `A` listed `2 CANCELLED, 1 COMPLETED, 5 …, 12 RUNNING` (Slurm's order): the
    running job last. Active jobs first, newest first within each group, as an operator scans them."""
    states = [("2", "CANCELLED"), ("1", "COMPLETED"), ("12", "RUNNING"), ("9_1", "PENDING"), ("11", "FAILED")]
    mapped = map_jobs([JobState(job_id, "j", state) for job_id, state in states])
    assert [j.job_id for j in mapped] == ["12", "9_1", "11", "2", "1"]
