"""Every probe failure is a finding, never a crash: no sinfo, sbatch refused, tool missing, timeouts."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from srt_tui.cli.main import main
from srt_tui.setup.probes import ProbeOptions, run_probes
from tests.cluster import ClusterInfo
from tests.setup.standins import slow_tool


def _fake(folder: Path, name: str, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("#!/bin/bash\n" + body)
    (folder / name).chmod(0o755)
    return folder


def test_no_slurm_commands_on_path_is_a_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    steps: list[tuple[str, str]] = []
    run = run_probes(ProbeOptions(workdir=tmp_path), lambda s, st, d: steps.append((s, st)))
    assert not run.reachable
    assert run.findings[0].name == "slurm" and run.findings[0].level == "error"
    assert "scontrol not found" in run.findings[0].error  # the SlurmClient's own message
    assert "module load slurm" in run.findings[0].fix
    assert ("node", "skipped") in steps and ("partitions", "skipped") in steps
    assert main(["setup", "--probe", "--workdir", str(tmp_path)]) == 1
    assert "✗ slurm: scontrol not found" in capsys.readouterr().out


def test_slurm_command_timeout_is_a_finding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    slow = _fake(tmp_path / "slow", "scontrol", "sleep 20\n")
    monkeypatch.setenv("PATH", f"{slow}:{os.environ['PATH']}")
    run = run_probes(ProbeOptions(workdir=tmp_path, command_timeout=0.5))
    assert "did not answer within 0.5 s" in run.findings[0].error


@pytest.mark.slurm
def test_sbatch_refused_is_a_finding(cluster: ClusterInfo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    refusing = _fake(
        tmp_path / "refuse",
        "sbatch",
        'echo "sbatch: error: Batch job submission failed: Invalid account or account/partition combination" >&2\n'
        "exit 1\n",
    )
    monkeypatch.setenv("PATH", f"{refusing}:{os.environ['PATH']}")
    run = run_probes(ProbeOptions(workdir=tmp_path / "work"))
    by_name = {f.name: f for f in run.findings}
    assert by_name["directive"].level == "error"
    assert "rejects both" in by_name["directive"].error
    assert by_name["node"].level == "error"
    assert "Invalid account" in by_name["node"].error
    assert by_name["node"].fix


@pytest.mark.slurm
def test_missing_and_hanging_gpu_tools_are_findings(cluster: ClusterInfo, tmp_path: Path) -> None:
    work = tmp_path / "work"
    run = run_probes(ProbeOptions(workdir=work, node_timeout=60))
    tool = next(f for f in run.findings if f.name == "gpu tool")
    assert tool.level == "warning" and "no GPU tool answered" in tool.error
    assert run.node is not None and run.node.gpu_tool is None
    hanging = slow_tool(tmp_path / "hang", "nvidia-smi", 30)
    run = run_probes(ProbeOptions(workdir=work, extra_path=str(hanging), tool_timeout=1, node_timeout=60))
    stuck = next(f for f in run.findings if f.name == "gpu tool nvidia-smi")
    assert "did not answer (timed out)" in stuck.error


@pytest.mark.slurm
def test_probe_job_that_never_runs_is_a_finding(
    cluster: ClusterInfo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = shutil.which("sbatch")
    holding = _fake(
        tmp_path / "hold", "sbatch", f'case "$*" in *--parsable*) exec {real} --hold "$@";; esac\nexec {real} "$@"\n'
    )
    monkeypatch.setenv("PATH", f"{holding}:{os.environ['PATH']}")
    said: list[str] = []
    run = run_probes(ProbeOptions(workdir=tmp_path / "work", node_timeout=2), lambda s, st, d: said.append(d))
    node = next(f for f in run.findings if f.name == "node")
    assert "did not finish within 2 s, PENDING (JobHeldUser) (cancelled)" in node.error  # Slurm's reason said
    job_id = node.error.split("probe job ", 1)[1].split()[0]
    # while it waited, the step said which job and why (Setup shows it under "Compute node")
    assert f"job {job_id} PENDING" in " ".join(said) and f"scancel {job_id} stops it" in " ".join(said), said


@pytest.mark.slurm
def test_every_probe_goes_through_the_slurm_client(cluster: ClusterInfo, tmp_path: Path) -> None:
    """The probes ask Slurm only through the SlurmClient (the transport everything else uses): each
    Slurm command they run is one of the client's, so a pyslurm or scoped transport covers them too."""
    import subprocess
    from collections.abc import Sequence
    from typing import Any

    from srt_tui.slurm.cli_transport import CliTransport

    class Recording(CliTransport):
        def __init__(self) -> None:
            super().__init__()
            self.commands: list[str] = []

        def _run(self, args: Sequence[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
            self.commands.append(" ".join(args[:3]))
            return super()._run(args, **kwargs)

    spawned: list[str] = []
    real_popen = subprocess.Popen.__init__

    def watch(self: Any, args: Any, *a: Any, **kw: Any) -> None:
        spawned.append(str(args[0] if isinstance(args, (list, tuple)) else args).rsplit("/", 1)[-1])
        real_popen(self, args, *a, **kw)

    client = Recording()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(subprocess.Popen, "__init__", watch)
        run = run_probes(ProbeOptions(workdir=tmp_path / "work", node_timeout=60), client=client)
    assert run.reachable and run.node is not None
    assert len(spawned) == len(client.commands)  # nothing ran Slurm past the client
    assert {c.split()[0] for c in client.commands} >= {"scontrol", "sinfo", "sbatch", "squeue"}


@pytest.mark.slurm
def test_the_operator_stops_waiting_for_a_probe_job_that_cannot_start(
    cluster: ClusterInfo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Operator pass (issue 21): with the partition busy, the probe job stayed PENDING and Setup offered no key
    but Quit until its 120 s passed. Stopping cancels the job and ends the probes with a finding."""
    import threading

    from srt_tui.slurm.select import get_client

    real = shutil.which("sbatch")
    holding = _fake(
        tmp_path / "hold", "sbatch", f'case "$*" in *--parsable*) exec {real} --hold "$@";; esac\nexec {real} "$@"\n'
    )
    monkeypatch.setenv("PATH", f"{holding}:{os.environ['PATH']}")
    stop = threading.Event()
    said: list[str] = []

    def progress(step: str, status: str, detail: str) -> None:
        said.append(detail)
        if "PENDING" in detail:
            stop.set()  # what Esc does in Setup

    run = run_probes(ProbeOptions(workdir=tmp_path / "work", node_timeout=60, stop=stop), progress)
    node = next(f for f in run.findings if f.name == "node")
    assert node.level == "warning" and "stopped before it ended (cancelled)" in node.error, node
    job_id = node.error.split("probe job ", 1)[1].split()[0]
    assert not any("scancel" in d for d in said), said  # the key says how to stop, not a command
    state = get_client(None).query([job_id])[job_id]
    assert state.state == "CANCELLED", state
