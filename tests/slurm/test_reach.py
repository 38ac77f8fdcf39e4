"""Reaching a job: the shell command on a worker's node and the SSH port-forward line (construction only)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from srt_tui.slurm.reach import NoShell, login_address, node_shell, port_forward


def test_a_slurm_job_shell_is_an_overlapping_srun_step_on_the_workers_node() -> None:
    shell = node_shell("81234", "/out/81234", 1, ["gpu-a", "gpu-b"])
    assert shell.argv == ("srun", "--jobid", "81234", "--overlap", "--pty", "-N", "1", "-n", "1", "-w", "gpu-b",
                          "bash", "-i")  # fmt: skip
    assert shell.cwd is None and not shell.env and shell.where == "gpu-b"
    assert shell.display() == "srun --jobid 81234 --overlap --pty -N 1 -n 1 -w gpu-b bash -i"


def test_a_local_job_shell_opens_in_its_directory_with_its_variables_quoted() -> None:
    shell = node_shell("local-3", "/home/me/out dir/local-3", 0, [])
    assert shell.argv == ("bash", "-i") and shell.cwd == "/home/me/out dir/local-3"
    assert shell.env == {"SRT_LAUNCHER": "local", "SRT_JOB_ID": "local-3", "SRT_JOB_DIR": "/home/me/out dir/local-3"}
    assert shell.display() == (
        "cd '/home/me/out dir/local-3' && SRT_JOB_DIR='/home/me/out dir/local-3' SRT_JOB_ID=local-3 "
        "SRT_LAUNCHER=local bash -i"
    )


def test_an_unknown_node_says_the_job_has_not_written_its_nodes() -> None:
    with pytest.raises(NoShell, match="its endpoints.json names no nodes yet"):
        node_shell("81234", "/out/81234", 0, [])
    with pytest.raises(NoShell, match="node 2 is not known"):
        node_shell("81234", "/out/81234", 2, ["a", "b"])


def test_port_forward_keeps_the_port_and_brackets_ipv6() -> None:
    assert port_forward("http://10.1.0.11:8000", "me@login") == "ssh -N -L 8000:10.1.0.11:8000 me@login"
    assert port_forward("http://[fd00::5]:30000/v1", "me@login") == "ssh -N -L 30000:[fd00::5]:30000 me@login"
    assert port_forward("http://gpu-a", "me@login") == "ssh -N -L 80:gpu-a:80 me@login"
    assert port_forward("not a url", "me@login") is None


def test_login_address_takes_the_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SRT_TUI_LOGIN_HOST", "login.example.org")
    monkeypatch.setenv("LOGNAME", "alice")
    assert login_address() == "alice@login.example.org"
    monkeypatch.setenv("SRT_TUI_LOGIN_HOST", "bob@gw.example.org")
    assert login_address() == "bob@gw.example.org"


def test_shell_command_names_the_workers_node_from_the_job_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from srt_tui.cli.main import main
    from tests.monitor.jobdirs import write_agg_job

    worker = SimpleNamespace(name="agg_1", role="regular", port=6100, url="http://127.0.0.1:6100")
    first = SimpleNamespace(name="agg_0", role="regular", port=6100, url="http://127.0.0.1:6100")
    job = write_agg_job(tmp_path / "job", "81240", [(first, 0), (worker, 1)], nodes=2)  # type: ignore[list-item]
    assert main(["shell", str(job), "agg_1", "--print"]) == 0
    assert capsys.readouterr().out == "srun --jobid 81240 --overlap --pty -N 1 -n 1 -w local1 bash -i\n"
    assert main(["shell", str(job), "decode_9", "--print"]) == 2
    assert "WORKER: the job has no worker `decode_9` (fix: name one of: agg_0, agg_1)" in capsys.readouterr().err


def test_shell_refuses_a_slurm_job_that_has_ended_before_running_srun(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Operator pass 9: `srt-tui shell 7` on a completed job ran srun, which ended with Slurm's `job 7 has expired`.
    It refuses first, as `bench` does (the same check), saying when the job ended and which log to read instead."""
    from datetime import datetime, timezone

    from srt_tui.cli.main import main
    from tests.monitor.jobdirs import write_agg_job

    monkeypatch.setenv("SLURM_CONF", str(tmp_path / "none.conf"))  # no Slurm: the job's own events say it ended
    ran: list[object] = []

    def call(*args: object, **kwargs: object) -> int:
        ran.append(args)
        return 0

    monkeypatch.setattr(subprocess, "call", call)  # srun, had it run
    worker = SimpleNamespace(name="agg_1", role="regular", port=6100, url="http://127.0.0.1:6100")
    first = SimpleNamespace(name="agg_0", role="regular", port=6100, url="http://127.0.0.1:6100")
    stages = ("submitted", "starting", "serving", "completed")
    job = write_agg_job(tmp_path / "job", "81240", [(first, 0), (worker, 1)], nodes=2, stages=stages)  # type: ignore[list-item]
    assert main(["shell", str(job), "agg_1"]) == 1
    err = capsys.readouterr().err
    at = datetime(2026, 3, 1, 11, 0, 1, tzinfo=timezone.utc).astimezone()
    assert err.startswith(f"srt-tui: error: job 81240 has ended (completed at {at:%Y-%m-%d %H:%M:%S}, "), err
    assert err.endswith(
        f" ago): it holds no node to open a shell on (fix: read its log instead: {job}/logs/agg_1.log; "
        "the Monitor's `l` opens it)\n"
    ), err
    assert len(err.splitlines()) == 1 and not ran
    assert main(["shell", str(job), "--print"]) == 1 and not capsys.readouterr().out
    assert main(["bench", str(job)]) == 1  # the same words, from the same check
    assert "srt-tui: error: job 81240 has ended (completed at " in capsys.readouterr().err
