"""What `srt-tui` says when Slurm cannot be used, as an operator on a login node reads it (issue 21, new-operator
pass): a missing SLURM_CONF talked of "the local test cluster" and its LOCAL_SLURM_DIR, missing commands of Debian's
slurm-client package, an unreachable controller of checking "that slurmctld runs". Each says what is missing and
the login node's fix (SLURM_CONF, the site's Slurm module, munge, the cluster's admins); the test cluster only where
the environment says it is the one in use."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from srt_tui.cli.main import main

#: words of the developer's set-up, never said to an operator on a real login node
DEVELOPER_WORDS = ("test cluster", "LOCAL_SLURM_DIR", "local-slurm", "env.sh", "Debian", "slurm-client", "tests")


def _fake_scontrol(folder: Path, says: str) -> Path:
    """A folder with an `scontrol` that answers nothing but ``says`` on stderr, as a login node's whose
    controller does not answer (every other Slurm command is missing)."""
    folder.mkdir(parents=True, exist_ok=True)
    tool = folder / "scontrol"
    tool.write_text(f"#!/bin/bash\necho {says!r} >&2\nexit 1\n")
    tool.chmod(0o755)
    return folder


def _jobs_says(capsys: pytest.CaptureFixture[str]) -> str:
    """`srt-tui jobs --all` (which must ask Slurm): exit 3, and what it said on stderr."""
    assert main(["jobs", "--all"]) == 3
    return capsys.readouterr().err


@pytest.fixture(autouse=True)
def _login_node(monkeypatch: pytest.MonkeyPatch) -> None:
    """An operator's environment: no test cluster named, the command-line transport."""
    monkeypatch.delenv("LOCAL_SLURM_DIR", raising=False)
    monkeypatch.setenv("SRT_TUI_SLURM_TRANSPORT", "cli")


def test_a_missing_slurm_conf_says_how_to_set_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    conf = tmp_path / "nowhere" / "slurm.conf"
    monkeypatch.setenv("SLURM_CONF", str(conf))
    said = _jobs_says(capsys)
    assert f"SLURM_CONF={conf} names no file" in said, said
    assert "this cluster's slurm.conf" in said and "load the site's Slurm module (`module load slurm`)" in said
    assert not [w for w in DEVELOPER_WORDS if w in said], said


def test_the_test_cluster_is_named_only_where_the_environment_says_it_is_in_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SLURM_CONF", str(tmp_path / "etc" / "slurm.conf"))
    monkeypatch.setenv("LOCAL_SLURM_DIR", str(tmp_path))
    said = _jobs_says(capsys)
    assert "module load slurm" in said and f"`source {tmp_path}/env.sh` sets SLURM_CONF" in said, said


def test_missing_slurm_commands_say_to_load_the_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SLURM_CONF", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    said = _jobs_says(capsys)
    assert "scontrol not found: Slurm's commands are not on PATH here" in said, said
    assert "module load slurm" in said and "add Slurm's bin directory to PATH" in said
    assert not [w for w in DEVELOPER_WORDS if w in said], said


@pytest.mark.parametrize(
    ("slurm_says", "fix"),
    [
        ("scontrol: error: Unable to contact slurm controller (connect failure)", "ask the cluster's admins"),
        ('scontrol: error: Munge encode failed: Failed to access "/run/munge/munge.socket.2"', "munge -n | unmunge"),
        ("scontrol: fatal: Could not establish a configuration source", "Slurm finds no configuration"),
    ],
)
def test_a_controller_that_does_not_answer_says_what_to_check(
    slurm_says: str, fix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SLURM_CONF", raising=False)
    monkeypatch.setenv("PATH", f"{_fake_scontrol(tmp_path / 'bin', slurm_says)}{os.pathsep}/bin")
    said = _jobs_says(capsys)
    assert "slurmctld not reachable" in said and fix in said and slurm_says in said, said
    assert "that slurmctld runs" not in said  # an operator cannot check a controller: the admins can
    assert not [w for w in DEVELOPER_WORDS if w in said], said
