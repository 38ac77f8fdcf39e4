"""`srt-tui jobs` lists Slurm's jobs; the local launcher's (`local-N`, the embedded demo's) are not Slurm's,
so it never listed them and said nothing of them (operator pass, issue 21): an operator who ran the demo and
typed `srt-tui jobs` saw "no Slurm jobs …" or, without a controller, only a Slurm error. It now names them
and the command that lists them."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.core.core_helpers import cli


def _state_with_local_jobs(tmp_path: Path, ids: list[str]) -> Path:
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    lines = []
    for job_id in ids:
        job = tmp_path / "outputs" / job_id
        job.mkdir(parents=True)
        (job / "job.json").write_text("{}")
        lines.append(json.dumps({"job_id": job_id, "job_dir": str(job)}))
    index = state / "jobs.jsonl"
    index.write_text("\n".join(lines) + "\n")
    os.chmod(index, 0o600)
    return state


def test_jobs_without_a_controller_names_the_local_jobs(tmp_path: Path) -> None:
    state = _state_with_local_jobs(tmp_path, ["local-2", "local-10"])
    env = {"SRT_TUI_STATE_DIR": str(state), "SLURM_CONF": str(tmp_path / "gone.conf"), "SRT_TUI_SLURM_TRANSPORT": "cli"}
    proc = cli("jobs", cwd=tmp_path, env=env)
    assert proc.returncode == 3, proc.stderr
    assert "local jobs (this machine, not Slurm): local-2 local-10: `srt-tui status` lists them" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert "local jobs" not in cli("jobs", "--json", cwd=tmp_path, env=env).stderr  # JSON callers get only JSON


def test_no_hint_without_local_jobs(tmp_path: Path) -> None:
    state = _state_with_local_jobs(tmp_path, [])
    env = {"SRT_TUI_STATE_DIR": str(state), "SLURM_CONF": str(tmp_path / "gone.conf"), "SRT_TUI_SLURM_TRANSPORT": "cli"}
    proc = cli("jobs", cwd=tmp_path, env=env)
    assert proc.returncode == 3 and "local jobs" not in proc.stderr, proc.stderr
