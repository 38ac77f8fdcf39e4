"""A job directory and Slurm's job under its id must be the same job before srt-tui reads its state from Slurm or
cancels it (operator pass, issue 21): with SLURM_CONF pointing at another cluster, or after Slurm reused the id,
`status` showed another job's state and `cancel` would have cancelled someone else's job. The job's name and
submission time in job.json tell them apart."""

from __future__ import annotations

import contextlib
import json
import subprocess
from pathlib import Path

import pytest

from srt_tui.slurm.cli_transport import CliTransport
from srt_tui.slurm.client import JobState
from srt_tui.slurm.errors import SlurmError
from srt_tui.slurm.identity import foreign_job
from tests.cluster import ClusterInfo
from tests.conftest import REPO
from tests.e2e.jobtools import srt

T0 = 1_780_000_000  # 2026-05-28T20:26:40Z


def test_same_name_and_time_is_the_job_another_name_or_time_is_not() -> None:
    state = JobState("3", "mocker-agg2", "RUNNING", submit_time=T0 + 2)
    assert foreign_job(state, "mocker-agg2", "2026-05-28T20:26:40Z") == ""
    assert foreign_job(state, "", "") == ""  # nothing to tell them apart by
    assert foreign_job(JobState.unknown("3"), "mocker-agg2", "2026-05-28T20:26:40Z") == ""
    other = foreign_job(state, "mocker-1p1d", "2026-05-28T20:26:40Z")
    assert other.startswith("Slurm's job 3 is another job (`mocker-agg2`, submitted 2026-05-28 20:26:42Z)"), other
    assert "SLURM_CONF" in other
    later = foreign_job(state, "mocker-agg2", "2026-05-28T19:00:00Z")  # the same name, submitted long before
    assert later and "not `mocker-agg2` submitted 2026-05-28T19:00:00Z" in later


@pytest.mark.slurm
def test_status_and_cancel_leave_another_job_with_the_same_id_alone(
    local_slurm: ClusterInfo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SRT_TUI_STATE_DIR", str(tmp_path / "state"))
    out = subprocess.run(
        ["sbatch", "--parsable", "--job-name=someone-elses", "--wrap", "sleep 300"],
        cwd=tmp_path, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    job_id = out.stdout.strip().split(";")[0]
    try:
        # a directory of ours that names the same id: a job that ran elsewhere, or long ago
        job_dir = tmp_path / "outputs" / job_id
        job_dir.mkdir(parents=True)
        meta = {"version": 1, "job_id": job_id, "name": "mocker-agg2", "launcher": "slurm",
                "submitted_at": "2026-01-01T00:00:00Z"}  # fmt: skip
        (job_dir / "job.json").write_text(json.dumps(meta))
        cancel = srt("cancel", str(job_dir), check=False)
        assert cancel.returncode == 1 and "not cancelled: Slurm's job" in cancel.stderr, cancel
        assert "`someone-elses`" in cancel.stderr and "SLURM_CONF" in cancel.stderr
        still = CliTransport(timeout=30).query([job_id])[job_id]
        assert not still.is_terminal, still  # the other job runs on
        status = json.loads(srt("status", str(job_dir), "--json").stdout)[0]
        slurm = next(s for s in status["sources"] if s["name"] == "slurm")
        assert not slurm["ok"] and "another job (`someone-elses`" in slurm["error"], slurm
        assert status["slurm_state"] != still.state  # its state is not shown as this job's
    finally:
        with contextlib.suppress(SlurmError):
            CliTransport(timeout=30).cancel(job_id)


def test_a_local_job_is_its_own_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The local launcher's record names a job after its directory (`local-3`), not its recipe: never another job."""
    from tests.e2e.jobtools import apply, status

    monkeypatch.setenv("SRT_TUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("SRT_TUI_OUTPUT_DIR", str(tmp_path / "outputs"))
    job_id, job_dir = apply(str(REPO / "recipes/mocker/mocker-agg-direct.yaml"), "-p", "local", "--launcher", "local")
    try:
        snap = status(str(job_dir))
        assert snap["name"] == "mocker-agg-direct" and snap["slurm_state"] != "UNKNOWN", snap
        assert all(s["ok"] for s in snap["sources"] if s["name"] in ("slurm", "local")), snap["sources"]
    finally:
        srt("cancel", str(job_dir), check=False)
