"""`apply` submits only what was asked for: never silently on the login node, never without a yes.

Slurm is made unreachable for real (SLURM_CONF naming no file); nothing here reaches a controller.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from srt_tui.core.api import prepare
from srt_tui.slurm.client import NodeInfo, PartitionInfo
from srt_tui.slurm.submit import SlurmUnreachable, choose_launcher
from tests.conftest import REPO, profile_here

MOCKER = str(REPO / "recipes" / "mocker" / "mocker-1p1d.yaml")
H100 = str(REPO / "recipes" / "nvidia" / "h100-1p1d-sglang.yaml")


def _apply(
    tmp_path: Path, *args: str, stdin: int | None = None, text_in: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "SLURM_CONF": str(tmp_path / "no-slurm.conf")}
    return subprocess.run(
        [sys.executable, "-m", "srt_tui.cli", "apply", "-o", str(tmp_path / "out"), *args],
        input=text_in,
        stdin=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )


def _nothing_submitted(tmp_path: Path) -> bool:
    out = tmp_path / "out"
    return not out.exists() or not [p for p in out.iterdir() if not p.name.startswith("failed-")]


def test_without_slurm_a_cluster_profile_refuses_instead_of_running_on_the_login_node(tmp_path: Path) -> None:
    proc = _apply(tmp_path, "-f", H100, "-p", "nvidia-h100", "-y")
    assert proc.returncode == 3, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "no Slurm controller answers" in lines[0] and "--launcher local" in lines[0], lines
    assert "no-slurm.conf" in lines[0]  # the Slurm failure itself, not a guess
    assert _nothing_submitted(tmp_path)


@pytest.mark.parametrize("transport", ["auto", "cli"])
def test_the_launcher_comes_from_the_flag_or_the_profile_never_from_a_silent_fallback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, transport: str
) -> None:
    monkeypatch.setenv("SLURM_CONF", str(tmp_path / "no-slurm.conf"))
    with pytest.raises(SlurmUnreachable, match="no Slurm controller answers"):
        choose_launcher(prepare(H100, "nvidia-h100"), "auto", transport)
    assert choose_launcher(prepare(H100, "nvidia-h100"), "local", transport)[0] == "local"  # asked for
    assert choose_launcher(prepare(MOCKER, "local"), "auto", transport)[0] == "local"  # the profile's launcher
    fallback = tmp_path / "fallback-local.yaml"
    fallback.write_text(
        "gpus_per_node: 8\ncontainer_runtime: none\nfallback_launcher: local\n" + "model_paths: {mock-model: /m}\n"
    )
    assert choose_launcher(prepare(MOCKER, str(fallback)), "auto", transport)[0] == "local"  # its fallback_launcher
    always_local = tmp_path / "always-local.yaml"
    always_local.write_text(
        "gpus_per_node: 8\ncontainer_runtime: none\nlauncher: local\n" + "model_paths: {mock-model: /m}\n"
    )
    assert choose_launcher(prepare(MOCKER, str(always_local)), "auto", transport)[0] == "local"


def test_a_profile_launcher_typo_is_refused(tmp_path: Path) -> None:
    from srt_tui.core.errors import ConfigError

    bad = tmp_path / "bad.yaml"
    bad.write_text("gpus_per_node: 8\nfallback_launcher: laptop\n")
    with pytest.raises(ConfigError, match="fallback_launcher"):
        prepare(MOCKER, str(bad))


def test_apply_without_a_terminal_and_without_yes_refuses(tmp_path: Path) -> None:
    proc = _apply(tmp_path, "-f", MOCKER, "-p", "local", "--launcher", "slurm", text_in="y\n")
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.splitlines() == [
        "srt-tui: not submitted: no terminal to confirm on (fix: add -y to submit without asking)"
    ]
    assert proc.stdout == "" and _nothing_submitted(tmp_path)


def test_apply_on_a_terminal_asks_and_no_means_no(tmp_path: Path) -> None:
    master, slave = pty.openpty()
    try:
        os.write(master, b"n\n")
        proc = _apply(tmp_path, "-f", MOCKER, "-p", "local", "--launcher", "slurm", stdin=slave)
    finally:
        os.close(master)
        os.close(slave)
    assert proc.returncode == 1, proc.stderr
    assert "Submit? [y/N]" in proc.stderr and proc.stderr.rstrip().endswith("not submitted")
    assert proc.stdout == "" and _nothing_submitted(tmp_path)


def test_apply_json_is_automation_and_never_prompts(tmp_path: Path) -> None:
    """`apply --json` is srtctl's automation contract (InferenceX runs it without -y); srtctl never asks."""
    here = profile_here(tmp_path, "nvidia-h100")  # its model and container exist: the preflight passes
    proc = _apply(tmp_path, "-f", H100, "-p", here, "--launcher", "slurm", "--json", text_in="")
    assert proc.returncode == 3, proc.stderr  # it went on to submit (and no Slurm answers here)
    assert json.loads(proc.stdout)["status"] == "error" and "Submit?" not in proc.stderr


def test_recovery_touches_only_this_users_finished_submissions_from_this_host(tmp_path: Path) -> None:
    import getpass
    import json
    import socket

    from srt_tui.state.jobindex import known_jobs, recover_interrupted

    def staged(name: str, job_id: str, host: str) -> Path:
        path = tmp_path / name
        path.mkdir()
        meta = {"job_id": job_id, "user": getpass.getuser(), "host": host}
        (path / "job.json").write_text(json.dumps(meta))
        return path

    dead = 2**22 + 1  # above the kernel's pid_max default: no such process
    mine = staged(f".staged-20260101-000000-{dead}", "4242", socket.gethostname())
    running = staged(f".staged-20260101-000000-{os.getpid()}", "4243", socket.gethostname())
    elsewhere = staged(f".staged-20260101-000000-{dead + 1}", "4244", "another-login-node")
    notes = recover_interrupted([tmp_path])
    assert len(notes) == 1 and notes[0].startswith("job 4242: its `apply` was killed before release")
    assert not mine.exists() and (tmp_path / "4242" / "job.json").is_file() and "4242" in known_jobs()
    assert running.is_dir() and elsewhere.is_dir()  # in progress here, or another host's: left alone


def test_the_demo_profile_runs_here_even_when_a_controller_answers(tmp_path: Path) -> None:
    """Issue 21 defect 2: `-p local` took the default partition whenever Slurm answered; Slurm only when asked."""
    answered = object()  # a client that answered the ping: never used for the local profiles
    prep = prepare(MOCKER, "local")
    assert choose_launcher(prep, "auto", "cli", answered)[0] == "local"  # type: ignore[arg-type]
    assert choose_launcher(prep, "slurm", "cli", answered) == ("slurm", answered)  # type: ignore[arg-type]
    rocr = prepare(MOCKER, "local-rocr")
    assert choose_launcher(rocr, "auto", "cli", answered)[0] == "local"  # type: ignore[arg-type]


def test_apply_json_on_the_local_launcher_gives_the_id_automation_reads(tmp_path: Path) -> None:
    """Issue 21 defect 12: `slurm_job_id` was null on the demo path, so the README's `jq -er .slurm_job_id` failed."""
    proc = _apply(tmp_path, "-f", str(REPO / "recipes/mocker/mocker-agg-direct.yaml"), "-p", "local", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    try:
        assert out["launcher"] == "local" and out["slurm_job_id"] == out["job_id"]
        link = Path(out["job_dir"]) / "logs" / f"sweep_{out['job_id']}.log"
        assert link.is_symlink() and os.readlink(link) == "launch.log"
    finally:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        subprocess.run([sys.executable, "-m", "srt_tui.cli", "cancel", out["job_id"], "-o", str(tmp_path / "out")],
                       env=env, cwd=tmp_path, capture_output=True, timeout=60)  # fmt: skip


def test_a_plans_warnings_are_said_on_stderr_by_dry_run_and_before_apply_asks(tmp_path: Path) -> None:
    """Operator pass (issue 21): `tp-size: 3` on an 8-GPU worker was said only at line 41 of dry-run's 609 lines
    on stdout (exit 0), so `> file` hid it, and `apply` submitted without a word."""
    recipe = tmp_path / "tp3.yaml"
    recipe.write_text(
        "name: tp3\nprofiles: [local]\nmodel: {path: mock-model}\nengine: mocker\n"
        "frontend: {type: sglang, enable_multiple_frontends: false}\n"
        "roles:\n  agg: {nodes: 1, workers: 1, args: {tp-size: 3}}\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "SLURM_CONF": str(tmp_path / "no-slurm.conf")}
    dry = subprocess.run([sys.executable, "-m", "srt_tui.cli", "dry-run", "-f", str(recipe), "-p", "local"],
                         env=env, capture_output=True, text=True, timeout=120)  # fmt: skip
    said = "srt-tui: warning: roles.agg.args.tp-size: TP 3 = 3 GPUs; 5 of each agg worker's 8 GPUs stay unused"
    assert dry.returncode == 0 and said in dry.stderr, dry.stderr
    applied = _apply(tmp_path, "-f", str(recipe), "-p", "local", "--launcher", "local", stdin=subprocess.DEVNULL)
    assert applied.returncode == 1 and said in applied.stderr.split("not submitted")[0], applied.stderr


class _ThreeNodeCluster:
    """A Slurm that answers with one 3-node partition `batch` of 8-GPU nodes, and must never be asked to submit."""

    name = "cli"

    def partitions(self) -> list[PartitionInfo]:
        return [PartitionInfo("batch", "UP", ("n1", "n2", "n3"), 3, 96, is_default=True)]

    def nodes(self) -> list[NodeInfo]:
        return [NodeInfo(f"n{i}", "IDLE", 32, 1000, "gpu:8", 8, None, ("batch",)) for i in (1, 2, 3)]

    def accounts(self, user: str) -> list[str] | None:
        return None

    def submit(self, *args: object, **kwargs: object) -> str:
        raise AssertionError("a job the preflight refused reached sbatch")


@pytest.mark.parametrize("launcher", ["slurm", "auto"])
def test_a_preflight_refusal_creates_no_output_directory(tmp_path: Path, launcher: str) -> None:
    """Operator pass: a 4-node job against a 3-node partition was refused by the preflight, nothing submitted,
    yet `./outputs/` was left behind, empty. The refusal comes before anything is written: nothing is left (a
    failed sbatch is another case: its rendered scripts are kept)."""
    from srt_tui.slurm.preflight import PreflightError
    from srt_tui.slurm.submit import submit_prepared

    prep = prepare(H100, profile_here(tmp_path, "nvidia-h100"), "2P2D")  # 4 nodes, its paths here
    out = tmp_path / "deep" / "outputs"
    with pytest.raises(PreflightError, match="the job needs 4 nodes") as refused:
        submit_prepared(prep, launcher, out, client=_ThreeNodeCluster())  # type: ignore[arg-type]
    assert not (tmp_path / "deep").exists()
    assert "(fix: choose a smaller topology (-t / the recipe's roles), or a partition" in str(refused.value)


def test_a_preflight_refusal_is_worded_for_the_face_that_shows_it(tmp_path: Path) -> None:
    """One fix, two wordings: `apply` names its flag, the TUI's Submit step (which submits through the same
    function) names its Topology step, where `-t` means nothing."""
    from srt_tui.slurm.preflight import PreflightError
    from srt_tui.slurm.submit import submit_prepared

    prep = prepare(H100, profile_here(tmp_path, "nvidia-h100"), "2P2D")  # 4 nodes, its paths here
    with pytest.raises(PreflightError) as refused:
        submit_prepared(prep, "slurm", tmp_path / "out", client=_ThreeNodeCluster(), face="tui")  # type: ignore[arg-type]
    said = str(refused.value)
    assert "(fix: choose fewer workers or nodes in the Topology step, or a partition with more nodes)" in said
    assert "-t" not in said
