"""All my Slurm jobs against the real local Slurm 22.05: a plain `sbatch --wrap` job (not srt-tui's) shows in
the Monitor's all-jobs view and in `srt-tui jobs --all`, Enter shows its Slurm facts; a job laid out as
srtctl's `apply` leaves it (`--output=<base>/%j/logs/sweep_%j.log`, `<base>/<id>/<id>.json`) opens in the job
view; `cancel` says when there was nothing left to cancel. Only jobs this test submitted are cancelled."""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from srt_tui.monitor.feeds.live import LiveFeed
from srt_tui.slurm.cli_transport import CliTransport
from srt_tui.slurm.errors import SlurmError
from srt_tui.tui.monitor.alljobs.dialogs import SlurmFactsScreen
from srt_tui.tui.monitor.alljobs.screen import AllJobsScreen
from srt_tui.tui.monitor.alljobs.source import LiveJobsSource
from srt_tui.tui.monitor.screen import MonitorScreen
from tests.cluster import ClusterInfo
from tests.e2e.jobtools import srt
from tests.monitor.tui_apps import MonitorTestApp

pytestmark = [pytest.mark.slurm, pytest.mark.slurm25]


@pytest.fixture
def mine(local_slurm: ClusterInfo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Ids of the jobs this test submits, cancelled at the end whatever happens; a private state dir."""
    monkeypatch.setenv("SRT_TUI_STATE_DIR", str(tmp_path / "state"))
    ids: list[str] = []
    yield ids
    cli = CliTransport(timeout=30)
    for job_id in ids:
        with contextlib.suppress(SlurmError):
            cli.cancel(job_id)


def sbatch(*args: str, cwd: Path) -> str:
    """Plain `sbatch --parsable ARGS` as an operator types it; the job id."""
    out = subprocess.run(["sbatch", "--parsable", *args], cwd=cwd, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().split(";")[0]


def app() -> MonitorTestApp:
    """The Monitor on the live cluster: the real feed and the real all-jobs source."""
    return MonitorTestApp(
        lambda hub: MonitorScreen(hub, LiveFeed(), discover=False, poll_interval=0.5, jobs_source=LiveJobsSource())
    )


async def open_from_all_jobs(pilot: Pilot[None], job_id: str) -> None:
    """`A` opens the all-jobs view; once the job is listed (the refresh runs in a worker), Enter on its row."""
    await pilot.press("A")
    screen = pilot.app.screen
    assert isinstance(screen, AllJobsScreen)
    for _ in range(100):
        if job_id in screen._ids:
            break
        await pilot.pause(0.1)
    assert job_id in screen._ids, (screen.listing, job_id)
    screen.query_one("#alljobs-table", DataTable).move_cursor(row=screen._ids.index(job_id))
    await pilot.press("enter")


async def test_plain_sbatch_job_in_the_all_jobs_view_and_the_cli(mine: list[str], tmp_path: Path) -> None:
    job_id = sbatch("-J", "plain-sleep", "--wrap", "sleep 60", cwd=tmp_path)
    mine.append(job_id)

    listed = srt("jobs", "--all", check=False)
    assert listed.returncode == 0, listed.stderr
    row = next(line.split() for line in listed.stdout.splitlines() if line.split()[:1] == [job_id])
    assert row[1] == "plain-sleep" and row[-2:] == ["-", "-"]  # FROM and OUTPUT DIR: not srt-tui's, not srtctl's
    assert job_id not in srt("jobs").stdout.split()  # without --all: only jobs with an output directory
    as_json = {j["job_id"]: j for j in json.loads(srt("jobs", "--all", "--json").stdout)}
    mine_json = as_json[job_id]
    assert mine_json["work_dir"] == str(tmp_path) and mine_json["stdout"] == f"{tmp_path}/slurm-{job_id}.out"

    tui = app()
    async with tui.run_test(size=(80, 24)) as pilot:
        await open_from_all_jobs(pilot, job_id)
        facts = tui.screen
        assert isinstance(facts, SlurmFactsScreen)
        for _ in range(100):
            if facts.fields:
                break
            await pilot.pause(0.1)
        assert facts.fields["JobId"] == job_id and facts.fields["WorkDir"] == str(tmp_path)
        assert facts.fields["StdOut"] == f"{tmp_path}/slurm-{job_id}.out"

    first = srt("cancel", job_id, check=False)
    assert first.returncode == 0 and f"cancelled {job_id}" in first.stdout, first.stderr
    again = srt("cancel", job_id, check=False)  # scancel exits 0 and says nothing: srt-tui says it had ended
    assert again.returncode == 0 and f"{job_id} already ended (CANCELLED)" in again.stdout, again.stdout


async def test_srtctl_layout_job_opens_in_the_job_view(mine: list[str], tmp_path: Path) -> None:
    base = tmp_path / "outputs"
    # held while the files srtctl's apply writes right after sbatch appear (slurmd needs logs/ to exist)
    job_id = sbatch("--hold", "-J", "dsr1-1p1d", f"--output={base}/%j/logs/sweep_%j.log", "--wrap",
                    "echo 'srtctl Sweep Orchestrator'; sleep 60", cwd=tmp_path)  # fmt: skip
    mine.append(job_id)
    out = base / job_id
    (out / "logs").mkdir(parents=True)
    (out / f"{job_id}.json").write_text(json.dumps({"version": "2.0", "job_id": job_id, "job_name": "dsr1-1p1d"}))
    (out / "sbatch_script.sh").write_text("#!/bin/bash\n")
    subprocess.run(["scontrol", "release", job_id], check=True, timeout=30)

    listed = srt("jobs")
    row = next(line.split() for line in listed.stdout.splitlines() if line.split()[:1] == [job_id])
    assert row[-2:] == ["srtctl", str(out)], listed.stdout

    tui = app()
    async with tui.run_test(size=(80, 24)) as pilot:
        await open_from_all_jobs(pilot, job_id)
        monitor = tui.screen
        assert isinstance(monitor, MonitorScreen) and monitor.in_job_view and monitor.selected == job_id
        snap = None
        for _ in range(100):
            snap = monitor.snapshot_of(job_id)
            if snap is not None and snap.slurm_state in ("RUNNING", "COMPLETED"):
                break
            await pilot.pause(0.1)
        assert snap is not None and snap.name == "dsr1-1p1d" and snap.slurm_state == "RUNNING", snap
        assert snap.logs[-1].path == str(out / "logs" / f"sweep_{job_id}.log")
        await pilot.press("escape")
        for _ in range(20):
            if isinstance(tui.screen, AllJobsScreen):
                break
            await pilot.pause(0.1)
        assert isinstance(tui.screen, AllJobsScreen)
