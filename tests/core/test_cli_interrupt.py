"""Ctrl-C ends every command that loops until it is pressed with exit 130, as `srt-tui --help` lists for an
interrupt, and one `srt-tui: interrupted` line (operator pass op11: `status --watch` exited 0, so a script could not
tell a watch stopped from one that ended). A real SIGINT to a real `srt-tui` process, once it is looping: `wait` (and
its log streaming) on a job whose Slurm does not answer, which it waits out; `status --watch`; and `setup --probe` and
`doctor` while their probes wait (probes that wait for the stop Ctrl-C gives them, as a pending probe job does)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.cli

JOB = "424242"

#: probes that say they started, then wait for the stop event Ctrl-C sets (as a probe job left PENDING does)
_WAITING_PROBES = """
import sys
from srt_tui.setup import doctor, probes

def waiting(options, *rest):
    print("probes waiting", file=sys.stderr, flush=True)
    options.stop.wait(60)
    return probes.ProbeRun()

probes.run_probes = waiting
doctor.run_doctor = lambda profile, options, progress=None, read_models=(): (waiting(options), [])
from srt_tui.cli.main import main
raise SystemExit(main(sys.argv[1:]))
"""


def _read_until(fd: int, wanted: bytes, timeout: float = 60) -> bytes:
    """What ``fd`` gives until ``wanted`` has appeared (or it closes, or the bound passes)."""
    got = b""
    deadline = time.monotonic() + timeout
    while wanted not in got and time.monotonic() < deadline:
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        got += chunk
    return got


@pytest.fixture
def job_dir(tmp_path: Path) -> Path:
    """A Slurm job's directory, its controller out of reach (SLURM_CONF names no file): `wait` waits it out."""
    job = tmp_path / "job"
    (job / "logs").mkdir(parents=True)
    (job / "job.json").write_text(json.dumps({"version": 1, "job_id": JOB, "launcher": "slurm"}))
    (job / "logs" / "sweep.log").write_text("")
    return job


COMMANDS = {
    "wait": (("wait", "{job}", "--for", "done"), "stderr", f"{JOB}: submitted"),
    "wait-log-file": (("wait", "{job}", "--log-file", "{job}/logs/sweep.log"), "stderr", f"{JOB}: submitted"),
    "status-watch": (("status", "--watch", "-n", "0.5", "{job}"), "stdout", "--- "),
    "setup-probe": (("setup", "--probe"), "stderr", "probes waiting"),
    "doctor": (("doctor", "-p", "local"), "stderr", "probes waiting"),
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_ctrl_c_ends_a_looping_command_with_130(command: str, job_dir: Path, tmp_path: Path) -> None:
    args, stream, looping = COMMANDS[command]
    argv = [a.replace("{job}", str(job_dir)) for a in args]
    start = ["-c", _WAITING_PROBES] if command in ("setup-probe", "doctor") else ["-m", "srt_tui.cli"]
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "SLURM_CONF": str(tmp_path / "no-slurm.conf"),
        "SRT_TUI_STATE_DIR": str(tmp_path / "state"),
        "SRT_TUI_CONFIG_DIR": str(tmp_path / "config"),
        "SRT_TUI_OUTPUT_DIR": str(tmp_path / "out"),
    }
    env.pop("SRT_TUI_DEBUG", None)
    proc = subprocess.Popen(
        [sys.executable, *start, *argv],
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        watched = proc.stdout if stream == "stdout" else proc.stderr
        assert watched is not None
        seen = _read_until(watched.fileno(), looping.encode())
        assert looping.encode() in seen, (proc.poll(), seen)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    said = (seen + err if stream == "stderr" else err).decode()
    assert proc.returncode == 130, said
    assert "Traceback" not in said + out.decode()
    assert said.rstrip().splitlines()[-1].startswith("srt-tui: interrupted"), said
