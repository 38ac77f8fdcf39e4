"""Container-less jobs need their programs on the host (issue 21, defect 10): with `container_runtime: none`
a job starting `nginx` (or Dynamo's `nats-server`/`etcd`) on a machine without it failed in 0 s with
exit 127. `dry-run` warns, `apply` on this machine refuses before anything runs, naming the program and
the fix; with a container nothing is asked of the host. The real CLI runs with a PATH lacking nginx."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from srt_tui.core.api import prepare
from srt_tui.core.plan.host_programs import missing_programs
from tests.conftest import REPO

NGINX = str(REPO / "recipes" / "mocker" / "mocker-agg3-nginx.yaml")


@pytest.fixture
def bare_path(tmp_path: Path) -> str:
    """A PATH holding this Python as `python3` and the shell tools the local launcher uses — no nginx."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(Path(sys.executable).resolve())
    for tool in ("bash", "setsid", "env"):
        found = subprocess.run(["bash", "-c", f"command -v {tool}"], capture_output=True, text=True).stdout.strip()
        if found:
            (bin_dir / tool).symlink_to(found)
    return str(bin_dir)


def _srt(bare_path: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": bare_path, "PYTHONPATH": str(REPO), "SLURM_CONF": str(tmp_path / "none.conf")}
    return subprocess.run(
        [sys.executable, "-m", "srt_tui.cli", *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60
    )


def test_missing_programs_are_named_with_the_processes_and_the_fix(
    bare_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", bare_path)
    missing = missing_programs(prepare(NGINX, "local").plan)
    assert [m.program for m in missing] == ["nginx"]
    problem = missing[0].problem()
    assert "nginx" in problem.message and "apt-get install nginx" in problem.hint
    assert missing_programs(prepare(str(REPO / "recipes/mocker/mocker-agg2.yaml"), "local").plan) == []
    # a container brings its programs: nothing is asked of the login node
    assert missing_programs(prepare(str(REPO / "recipes/nvidia/h100-2p1d-sglang.yaml"), "nvidia-h100").plan) == []


def test_dry_run_warns_and_apply_refuses_before_anything_runs(bare_path: str, tmp_path: Path) -> None:
    dry = _srt(bare_path, tmp_path, "dry-run", "-f", NGINX, "-p", "local")
    assert dry.returncode == 0, dry.stderr
    warning = [line for line in dry.stderr.splitlines() if "nginx" in line]
    assert warning and warning[0].startswith("srt-tui: warning:") and "fix: apt-get install nginx" in warning[0]
    out = tmp_path / "out"
    applied = _srt(bare_path, tmp_path, "apply", "-y", "-f", NGINX, "-p", "local", "-o", str(out))
    assert applied.returncode != 0
    lines = applied.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("srt-tui: error:") and "`nginx` is not on" in lines[0], lines
    assert "Traceback" not in applied.stderr
    assert not out.exists() or not any(out.iterdir())  # nothing was started, no job directory
