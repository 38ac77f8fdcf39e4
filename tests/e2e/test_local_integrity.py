"""Local launcher integrity (issue 18 items 9-10, issue 21 defect 3): ids claimed atomically and unique per
user across output directories; `cancel` stops every process of a job even after its launch script was
killed or its directory removed. Real CLI processes, real mock workers, nothing faked."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from tests.e2e.jobtools import SRT, srt, status, wait_no_pids
from tests.slurm.shared_helpers import QUIET_RECIPE


def _apply(recipe: Path, out: Path) -> subprocess.Popen[str]:
    argv = [*SRT, "apply", "-f", str(recipe), "-y", "--json", "--launcher", "local", "-o", str(out)]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_twenty_parallel_applies_make_twenty_jobs_all_cancellable(tmp_path: Path) -> None:
    recipe = tmp_path / "quiet.yaml"
    recipe.write_text(QUIET_RECIPE)
    procs = [_apply(recipe, tmp_path / "out") for _ in range(20)]
    procs.append(_apply(recipe, tmp_path / "elsewhere"))  # another output directory: still another id
    subs = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=180)
        assert p.returncode == 0, stderr
        subs.append(json.loads(stdout))
    ids = [s["job_id"] for s in subs]
    try:
        assert len(set(ids)) == 21, ids
        assert len({s["job_dir"] for s in subs}) == 21
        assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(ids[:20])
        proc = srt("cancel", *ids, check=False, timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.splitlines() == [f"cancelled {i}" for i in ids]
    finally:
        srt("cancel", *ids, check=False, timeout=300)
    assert {s["job_id"]: wait_no_pids(Path(s["job_dir"])) for s in subs} == {i: [] for i in ids}


def test_cancel_stops_a_job_whose_script_was_killed_or_whose_directory_is_gone(tmp_path: Path) -> None:
    recipe = tmp_path / "quiet.yaml"
    recipe.write_text(QUIET_RECIPE)
    subs = [json.loads(p.communicate(timeout=120)[0]) for p in [_apply(recipe, tmp_path / "out") for _ in range(2)]]
    (killed, removed) = [(s["job_id"], Path(s["job_dir"])) for s in subs]
    try:
        for job_id, _ in (killed, removed):
            srt("wait", job_id, "--for", "ready", "--timeout", "60", "-q", timeout=90)
        script = json.loads((killed[1] / "local.json").read_text())["pid"]
        os.kill(script, signal.SIGKILL)  # the launch script dies without its trap: its worker serves on
        time.sleep(0.5)
        snap = status(killed[0])
        assert snap["slurm_state"] == "RUNNING", snap
        shutil.rmtree(removed[1])  # the job keeps serving without its directory
        time.sleep(3)
        assert wait_no_pids(removed[1], timeout=0) != []
        for job_id, job_dir in (killed, removed):
            proc = srt("cancel", job_id, check=False)
            assert (proc.returncode, proc.stdout.strip()) == (0, f"cancelled {job_id}"), proc.stderr
            assert wait_no_pids(job_dir) == []
        # the script killed before its trap wrote a final stage: cancelled all the same, not `failed`
        ended = status(killed[0])
        assert ended["stage"] == "cancelled", ended
        last = json.loads((killed[1] / "status.jsonl").read_text().splitlines()[-1])
        assert last["detail"] == "stopped by srt-tui cancel: its launch script had gone, its steps not", last
    finally:
        srt("cancel", killed[0], removed[0], check=False)
