"""`srt-tui setup --probe` stopped by a signal cancels the probe job it submitted (operator report: Ctrl-C and
SIGTERM left it PENDING in a full partition), and a probe job that waits for its node is said while it waits. So does
a reader gone (op12: `setup --probe 2>&1 | head -4` exited 141 and left it PENDING, to run later) and a dropped SSH
session (SIGHUP twice, its terminal gone), for `setup --probe` and `doctor` alike."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import cast

import pytest

from srt_tui.cli import setup as cli_setup
from srt_tui.setup.probes import STEPS, ProbeOptions, ProbeRun, run_probes
from srt_tui.slurm.client import SlurmClient
from tests.cluster import ClusterInfo
from tests.conftest import REPO


def _queue() -> dict[str, str]:
    """squeue's default listing (jobs still queued or running): id -> state."""
    out = subprocess.run(["squeue", "-h", "-o", "%i %T %j"], capture_output=True, text=True, check=True).stdout
    return {job: state for job, state, _name in (line.split() for line in out.splitlines())}


def _probe_jobs() -> dict[str, str]:
    out = subprocess.run(
        ["squeue", "-h", "-n", "srt-tui-probe", "-o", "%i %T"], capture_output=True, text=True, check=True
    ).stdout
    return dict(line.split() for line in out.splitlines())


def _state(job_id: str) -> str:
    out = subprocess.run(["scontrol", "show", "job", "-o", job_id], capture_output=True, text=True).stdout
    found = re.search(r"JobState=(\S+)", out)
    return found.group(1) if found else "GONE"


def _until(check: Callable[[], bool], what: str, timeout: float = 60) -> None:
    """Poll `check()` until it is true; fails naming `what` after `timeout` s (a bound, not a measurement)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.2)


@pytest.fixture
def full_partition(cluster: ClusterInfo, tmp_path: Path) -> Iterator[str]:
    """Every node of the partition taken by one running exclusive job, so a probe job stays PENDING (Resources)."""
    nodes, out = str(len(cluster.node_names)), str(tmp_path / "filler.out")
    filler = subprocess.run(
        ["sbatch", "--parsable", "-N", nodes, "--exclusive", "-t", "5", "-J", "srt-test-filler", "-o", out]
        + ["--wrap", "sleep 300"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    try:
        _until(lambda: _state(filler) == "RUNNING", f"filler job {filler} to run")
        yield filler
    finally:
        subprocess.run(["scancel", filler], capture_output=True)


@pytest.mark.slurm
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_cancels_the_pending_probe_job(
    full_partition: str, shared: Path, tmp_path: Path, signum: signal.Signals
) -> None:
    before = set(_probe_jobs())
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    # a wait longer than the filler's 5 min limit: the probe job waits (else it is given up at once as hopeless)
    argv = [sys.executable, "-m", "srt_tui.cli", "setup", "--probe", "--workdir", str(shared / "work")]
    argv += ["--node-timeout", "600"]
    proc = subprocess.Popen(
        argv, env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    job_id = ""
    try:

        def pending() -> bool:
            nonlocal job_id
            mine = {j: s for j, s in _probe_jobs().items() if j not in before}
            job_id = next((j for j, s in mine.items() if s == "PENDING"), "")
            return bool(job_id) or proc.poll() is not None

        _until(pending, "the probe job to be PENDING")
        assert job_id, f"setup --probe ended ({proc.returncode}) before its probe job was PENDING"
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        leftover = set(_probe_jobs()) - before
        for job in leftover:  # what a failing run left behind: never in the next test's way
            subprocess.run(["scancel", job], capture_output=True)
    stderr = err.decode()
    assert job_id not in leftover and job_id not in _queue(), stderr
    assert _state(job_id) == "CANCELLED"
    assert proc.returncode == 130, stderr
    assert stderr.rstrip().splitlines()[-1] == f"srt-tui: interrupted: cancelled probe job {job_id}", stderr
    # while it waited, it said so: which job, why, and how to stop it
    assert f"job {job_id} PENDING (Resources), waited " in stderr and "Ctrl-C cancels it" in stderr, stderr


def _probe_jobs_ever() -> dict[str, str]:
    """Every probe job Slurm still lists, ended ones too (for MinJobAge, 300 s): id -> state."""
    out = subprocess.run(
        ["squeue", "-h", "-t", "all", "-n", "srt-tui-probe", "-o", "%i %T"], capture_output=True, text=True, check=True
    ).stdout
    return dict(line.split() for line in out.splitlines())


def _probing(command: str, shared: Path, tmp_path: Path) -> list[str]:
    """`setup --probe` or `doctor` (a profile of the test cluster's partition), probing a node with a wait longer
    than the filler's 5 min limit, so the probe job waits (else it is given up at once as hopeless)."""
    argv = [sys.executable, "-m", "srt_tui.cli"]
    if command == "doctor":
        profile = tmp_path / "cluster.yaml"
        profile.write_text("default_partition: gpu\ngpus_per_node: 8\ncontainer_runtime: none\n")
        argv += ["doctor", "-p", str(profile)]
    else:
        argv += ["setup", "--probe"]
    return [*argv, "--workdir", str(shared / "work"), "--node-timeout", "600"]


def _left_and_new(before: set[str]) -> tuple[dict[str, str], dict[str, str]]:
    """The probe jobs submitted since ``before``: all of them with their states, and those still queued (each
    cancelled here, so a failing run leaves nothing in the next test's way)."""
    new = {j: s for j, s in _probe_jobs_ever().items() if j not in before}
    left = {j: s for j, s in new.items() if s in ("PENDING", "RUNNING", "CONFIGURING")}
    for job in left:
        subprocess.run(["scancel", job], capture_output=True)
    return new, left


@pytest.mark.slurm
@pytest.mark.parametrize("command", ["setup", "doctor"])
def test_a_reader_gone_cancels_the_probe_job(full_partition: str, shared: Path, tmp_path: Path, command: str) -> None:
    """`2>&1 | head -4`: the reader takes the first four progress lines and leaves; the next one, the probe job's
    `[waiting]` line, meets a closed pipe. The probes stop as on Ctrl-C: the job is cancelled, exit 141 (SIGPIPE's)."""
    before = set(_probe_jobs_ever())
    read, write = os.pipe()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        _probing(command, shared, tmp_path), env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=write,
        stderr=write,
    )  # fmt: skip
    os.close(write)
    try:
        got = b""
        with os.fdopen(read, "rb", buffering=0) as reader:  # `head -4`: four lines, then gone
            while got.count(b"\n") < 4:
                chunk = reader.read(1)
                assert chunk, f"{command} ended ({proc.wait()}) before four lines: {got!r}"
                got += chunk
        rc = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        new, left = _left_and_new(before)
    assert b"Default account" in got.splitlines()[-1], got
    assert left == {} and list(new.values()) == ["CANCELLED"], (new, got)
    assert rc == 141


@pytest.mark.slurm
@pytest.mark.parametrize("command", ["setup", "doctor"])
def test_a_dropped_session_cancels_the_probe_job(
    full_partition: str, shared: Path, tmp_path: Path, command: str
) -> None:
    """An SSH session that drops: the terminal is gone (a write to it fails) and SIGHUP comes twice, from the shell and
    from the kernel. The first stops the probes, which cancel their job; the second does not cut that short."""
    before = set(_probe_jobs_ever())
    read, write = os.pipe()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        _probing(command, shared, tmp_path), env=env, cwd=tmp_path, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=write,
    )  # fmt: skip
    os.close(write)
    try:
        got = b""
        while b"[waiting]" not in got:
            chunk = os.read(read, 4096)
            assert chunk, f"{command} ended ({proc.wait()}) before its probe job waited: {got!r}"
            got += chunk
        os.close(read)  # the terminal is gone
        proc.send_signal(signal.SIGHUP)
        proc.send_signal(signal.SIGHUP)
        rc = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        new, left = _left_and_new(before)
    assert left == {} and list(new.values()) == ["CANCELLED"], (new, got)
    assert rc == 130


def test_a_waiting_probe_job_is_said_when_seen_then_every_ten_seconds(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])  # the module clock the CLI reads
    progress = cli_setup._Progress()
    for now, waited in ((100.0, 0), (101.0, 1), (109.0, 9), (110.5, 10), (115.0, 15), (121.0, 21)):
        clock[0] = now
        progress("node", "running", f"job 7 PENDING (Resources), waited {waited} s")
    progress("node", "warning", "probe job 7 stopped before it ended (cancelled): no node facts")
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "  [waiting] Compute node (probe job): job 7 PENDING (Resources), waited 0 s; Ctrl-C cancels it",
        "  [waiting] Compute node (probe job): job 7 PENDING (Resources), waited 10 s; Ctrl-C cancels it",
        "  [waiting] Compute node (probe job): job 7 PENDING (Resources), waited 21 s; Ctrl-C cancels it",
        "  [warning] Compute node (probe job): probe job 7 stopped before it ended (cancelled): no node facts",
    ]


def test_probes_stopped_before_a_step_run_no_more_steps() -> None:
    """Stopped while an earlier probe ran, the rest are skipped: no probe job is submitted only to be cancelled."""
    stop = threading.Event()
    stop.set()
    steps: list[tuple[str, str]] = []
    untouchable = cast(SlurmClient, object())  # any call to it would end as a "probe failed" finding
    run = run_probes(ProbeOptions(stop=stop), lambda s, st, d: steps.append((s, st)), client=untouchable)
    assert steps == [(step, "skipped") for step, _ in STEPS] and run.findings == [] and run.node_job is None


def test_doctor_hands_the_stop_event_to_the_probes(monkeypatch: pytest.MonkeyPatch) -> None:
    """`doctor` probes with the profile's partition and paths, and with the caller's stop event (Ctrl-C's)."""
    from srt_tui.core.spec.profile import load_profile
    from srt_tui.setup import doctor

    seen: list[ProbeOptions] = []

    def probes(options: ProbeOptions, *rest: object) -> ProbeRun:
        seen.append(options)
        return ProbeRun()

    monkeypatch.setattr(doctor, "run_probes", probes)
    stop = threading.Event()
    doctor.run_doctor(load_profile("local").profile, ProbeOptions(stop=stop, node_timeout=7))
    assert seen[0].stop is stop and seen[0].node_timeout == 7
