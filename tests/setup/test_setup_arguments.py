"""`setup --probe` and `doctor` check every argument before anything runs (issue 21, new-operator pass op12):
`setup --probe --name ../x --write` ran every probe, the probe job on a compute node too, then refused the name;
`doctor -f RECIPE` read the recipe only after its probe job. Now each bad argument is one `srt-tui: error:` line
naming its flag, exit 2, and no probe has run: no `[ ok]` progress line, nothing asked of Slurm (here no controller
answers at all, so a probe that ran would say so)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.cli


def _srt_tui(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "SLURM_CONF": str(tmp_path / "no-slurm.conf"),  # a probe that ran would fail here, loudly
        "SRT_TUI_CONFIG_DIR": str(tmp_path / "config"),
        "SRT_TUI_STATE_DIR": str(tmp_path / "state"),
    }
    cmd = [sys.executable, "-m", "srt_tui", *args]
    return subprocess.run(cmd, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)


def test_setup_refuses_every_bad_choice_before_probing(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("")
    proc = _srt_tui(
        tmp_path,
        *("setup", "--probe", "--name", "../x", "--write", str(tmp_path), "--time-limit", "9x", "--account", "a b"),
        *("--output-dir", "out", "--path", "models", "--extra-path", "bin", "--workdir", f"{tmp_path}/afile/w"),
        *("--model", "m=/x y"),
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "srt-tui: error: --output-dir: `out` must be an absolute path on the shared file system",
        "srt-tui: error: --name: `../x` must be a plain file name (letters, digits, . _ -)",
        "srt-tui: error: --account: `a b` is not one account name: a space splits the #SBATCH line into two",
        "srt-tui: error: --time-limit: `9x` is not a Slurm time limit",
        "srt-tui: error: --model m: `/x y` cannot be a mount path: a space splits a pyxis --container-mounts entry "
        "into two",
        "srt-tui: error: --path: `models` is relative (fix: give the absolute path the compute nodes see)",
        "srt-tui: error: --extra-path: `bin` is relative (fix: give the tool directory's absolute path)",
        f"srt-tui: error: --workdir: {tmp_path}/afile is not a directory (fix: name a directory on the shared file "
        "system, new or existing)",
        f"srt-tui: error: --write: {tmp_path} is a directory (fix: give the profile file's path, e.g. "
        f"{tmp_path}/NAME.yaml)",
    ]
    assert not (tmp_path / "x.yaml").exists()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--name", "../x", "--write"), "--name: `../x` must be a plain file name"),
        (("--write", "{tmp}/afile/p.yaml"), "--write: {tmp}/afile is not a directory"),
    ],
    ids=["name", "write-under-a-file"],
)
def test_setup_refuses_one_bad_argument_before_probing(tmp_path: Path, args: tuple[str, ...], said: str) -> None:
    (tmp_path / "afile").write_text("")
    proc = _srt_tui(tmp_path, "setup", "--probe", *(a.replace("{tmp}", str(tmp_path)) for a in args))
    assert proc.returncode == 2, proc.stderr
    [line] = proc.stderr.splitlines()  # no probe's line before it
    assert line.startswith(f"srt-tui: error: {said.replace('{tmp}', str(tmp_path))}"), line


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("-f", "no-such-recipe"), "srt-tui: error: no-such-recipe: recipe file not found"),
        (("-f", "mocker-1p1d", "-t", "1X1Y"), "srt-tui: error: "),
        (("-t", "1P1D"), "srt-tui: error: -t/--topology: only with -f RECIPE (fix: add -f RECIPE, or drop -t)"),
        (("--path", "models"), "srt-tui: error: --path: `models` is relative"),
    ],
    ids=["no-recipe", "bad-topology", "topology-without-recipe", "relative-path"],
)
def test_doctor_refuses_a_bad_argument_before_probing(tmp_path: Path, args: tuple[str, ...], said: str) -> None:
    proc = _srt_tui(tmp_path, "doctor", "-p", "local", *args)
    assert proc.returncode == 2, proc.stderr
    assert "[" not in proc.stderr.split("srt-tui: error:")[0]  # no probe's progress line before it
    assert proc.stderr.splitlines()[0].startswith(said), proc.stderr
    assert "Slurm controller" not in proc.stderr
