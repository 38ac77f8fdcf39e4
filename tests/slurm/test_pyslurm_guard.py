"""`import pyslurm` without a findable slurm.conf ends the process (libslurm fatal, exit 1): every command
must still give srt-tui's own "no Slurm transport can reach a controller" and exit code 3.

These run the real CLI with the real pyslurm (the CI leg's virtualenv, or any Python where pyslurm is
installed); elsewhere they are deselected (and fail under CI_PYSLURM=1).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from srt_tui.slurm.pyslurm_probe import mismatch

REPO = Path(__file__).resolve().parents[2]
# no cluster needed; collected only where pyslurm imports (CI's pyslurm leg): tests/conftest.py deselects them
# elsewhere, and under CI_PYSLURM=1 a missing pyslurm fails them
pytestmark = [pytest.mark.slurm25, pytest.mark.pyslurm]

HAVE_PYSLURM = importlib.util.find_spec("pyslurm") is not None


def _need_pyslurm() -> None:
    assert HAVE_PYSLURM, "CI_PYSLURM=1 but pyslurm is not importable in this Python"


def _srt(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "srt_tui.cli", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=90
    )


@pytest.mark.parametrize(
    ("args", "exit_code", "conf"),
    [
        (["jobs", "--all"], 3, "unset"),
        (["jobs", "--all", "--transport", "pyslurm"], 3, "missing"),  # libslurm would retry 60 s, then exit
        (["cancel", "123"], 3, "unset"),
        (["status", "123", "--transport", "pyslurm"], 3, "missing"),  # shows the job, says the outage, exits 3
        # --no-preflight: this PATH has no python3, which the job checks would refuse first (exit 2)
        (["apply", "-f", "MOCKER", "-y", "--launcher", "slurm", "--no-preflight"], 3, "unset"),
        (["doctor"], 1, "missing"),  # doctor's own finding on the Slurm controller
    ],
)
def test_no_configuration_gives_srt_tuis_message_and_exit_code(
    args: list[str], exit_code: int, conf: str, tmp_path: Path
) -> None:
    _need_pyslurm()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "SRT_TUI_SLURM"))}
    if conf == "missing":
        env["SLURM_CONF"] = str(tmp_path / "nowhere" / "slurm.conf")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "bash").symlink_to("/bin/bash")  # apply checks its script with bash -n
    env["PATH"] = str(bin_dir)  # no Slurm commands either (a shared machine may have a cluster behind
    # /etc/slurm/slurm.conf that Debian's commands would find): neither transport can work
    out = tmp_path / "out"
    job = out / "123"
    job.mkdir(parents=True)  # a job srt-tui knows, so Slurm must be asked
    (job / "job.json").write_text('{"version": 1, "job_id": "123", "launcher": "slurm", "name": "j"}')
    args = [str(REPO / "recipes/mocker/mocker-1p1d.yaml") if a == "MOCKER" else a for a in args]
    proc = _srt(["-p", "local", *args, *(["-o", str(out)] if args[0] not in ("doctor", "jobs") else [])], env, tmp_path)
    said = proc.stdout + proc.stderr
    assert proc.returncode == exit_code, said
    assert "fatal" not in said and "python:" not in said, said  # libslurm did not speak, or end the process
    if args[0] == "doctor":
        assert "[  error] Slurm controller: scontrol" in said
    else:
        assert "no Slurm transport can reach a controller; tried pyslurm: " in said or (
            "no Slurm controller answers" in said and "pyslurm" in said
        ), said


def test_mismatch_is_one_line_with_the_fix() -> None:
    line = mismatch("25.11.2", "22.05.8")
    assert "\n" not in line
    assert "pyslurm 25.11.2 is built for Slurm 25.11 but the controller runs Slurm 22.05.8" in line
    assert "pyslurm==22.05.*" in line and "--transport cli" in line
    assert mismatch("25.11.2", "25.11.7") == ""
    assert mismatch("25.11.2", "") == ""
