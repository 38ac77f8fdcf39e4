"""Steps srun refuses on the real local Slurm (issue 21, s34): a worker whose step asks for more GPUs than the
allocation has, and an MPI worker whose `--mpi` plugin does not load. srun never starts the step, so its log is never
written; `srt-tui status` and the job view's Problems panel (the real app on the real Monitor) said `no error in its
log; it exited with code 1`. They now quote srun's own lines from the job's Slurm output, named by the step
(`agg_0: srun: error: Unable to create step for job 12: …`), and only that step's."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from srt_tui.monitor.feeds.live import LiveFeed
from srt_tui.tui.monitor.screen import MonitorScreen
from tests.cluster import ClusterInfo
from tests.conftest import REPO, profile_here
from tests.e2e.jobtools import apply, job_story, srt
from tests.monitor.tui_apps import fed_app

pytestmark = pytest.mark.slurm
HERE = Path(__file__).parent


@pytest.fixture
def jobs(cluster: ClusterInfo, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Job ids started by a test, cancelled afterwards; the stand-in `trtllm-llmapi-launch` on PATH (`apply` checks
    that a container-less job's programs are there)."""
    monkeypatch.setenv("PATH", f"{HERE / 'standins'}{os.pathsep}{os.environ['PATH']}")
    started: list[str] = []
    yield started
    for job_id in started:
        srt("cancel", job_id, check=False)


def _too_many_gpus(tmp_path: Path) -> tuple[str, str]:
    """mocker-agg2 whose steps each ask for 64 GPUs (srun_options) on 8-GPU nodes: (recipe, profile)."""
    recipe = yaml.safe_load((REPO / "recipes" / "mocker" / "mocker-agg2.yaml").read_text())
    recipe["srun_options"] = {"gpus-per-task": 64}
    path = tmp_path / "too-many-gpus.yaml"
    path.write_text(yaml.safe_dump(recipe, sort_keys=False))
    return str(path), "local"


def _mpi_plugin_missing(tmp_path: Path) -> tuple[str, str]:
    """The TRT-LLM TEP16 worker (one MPI step over two nodes) on a profile whose `mpi_plugin` this Slurm lacks."""
    profile = Path(profile_here(tmp_path, "local"))
    data = yaml.safe_load(profile.read_text())
    data["mpi_plugin"] = "nompi"
    profile.write_text(yaml.safe_dump(data, sort_keys=False))
    return str(HERE / "recipes" / "trtllm-tep16.yaml"), str(profile)


CASES = {
    "gpus": (_too_many_gpus, ["srun: error: Unable to create step for job {job}: "]),
    "mpi": (
        _mpi_plugin_missing,
        [
            "srun: error: Couldn't find the specified plugin name for mpi/nompi",
            "srun: error: MPI: Cannot create context for mpi/nompi",
        ],
    ),  # fmt: skip
}


@pytest.mark.parametrize("case", list(CASES))
async def test_a_step_srun_refused_is_explained_by_srun_in_status_and_problems(
    case: str, jobs: list[str], tmp_path: Path
) -> None:
    make, expected = CASES[case]
    recipe, profile = make(tmp_path)
    job_id, job_dir = apply(recipe, "-p", profile, "--launcher", "slurm")
    jobs.append(job_id)
    ended = srt("wait", job_id, "--for", "done", "--timeout", "240", "-q", check=False, timeout=300)
    assert ended.returncode == 1, f"{ended.stderr}\n{job_story(job_dir)}"
    assert not (job_dir / "logs" / "agg_0.log").exists()  # the step never started: its log was never written
    said = [line.format(job=job_id) for line in expected]

    # `srt-tui status`: the failure's sentence, then srun's lines about agg_0's step from logs/slurm.log
    out = srt("status", job_id).stdout.splitlines()
    failed = next(i for i, line in enumerate(out) if line.startswith(f"{job_id}: failed: worker agg_0 exited"))
    assert out[failed + 1] == f"{job_id}:   its step never started, so it wrote no log; logs/slurm.log:", out
    quoted = [line.removeprefix(f"{job_id}:   ") for line in out[failed + 2 :]]
    for words in said:
        assert any(q.startswith(f"agg_0: {words}") for q in quoted), (words, out)
    assert not any("no error in its log" in line or "agg_1: srun" in line for line in out), out

    # the job view's Problems panel: the real app on the real Monitor, the job opened as Enter opens it
    app = fed_app(LiveFeed(), {job_id: job_dir}, interval=0.5)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, MonitorScreen)
        for _ in range(100):
            await pilot.pause(0.1)
            snap = screen.snapshot_of(job_id)
            if snap is not None and snap.stage == "failed" and snap.failure_srun:
                break
        await pilot.press("enter")
        await pilot.pause()
        assert screen.in_job_view and screen.selected == job_id
        panel = str(screen.query_one("#job-problems").render())
    assert f"agg_0: {job_dir / 'logs' / 'agg_0.log'} (never written)" in panel, panel
    assert "its step never started, so it wrote no log; logs/slurm.log:" in panel, panel
    for words in said:
        assert f"agg_0: {words}" in panel, (words, panel)
    assert "no error in its log" not in panel, panel
