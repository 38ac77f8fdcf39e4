"""The CLI transport's error handling that needs no running cluster."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from srt_tui.slurm.cli_transport import CliTransport
from srt_tui.slurm.client import SlurmClient
from srt_tui.slurm.errors import SlurmError, SlurmUnavailable, looks_unavailable


def test_declares_its_capabilities() -> None:
    client = CliTransport()
    assert isinstance(client, SlurmClient)
    assert (client.name, client.supports_json, client.in_process) == ("cli", True, False)
    assert CliTransport(use_json=False).supports_json is False


def test_missing_binary_is_unavailable_with_a_path_hint(tmp_path: Path) -> None:
    client = CliTransport(bin_dir=tmp_path)  # an empty directory: no squeue, no scontrol
    with pytest.raises(SlurmUnavailable, match=r"squeue not found: .*module load slurm"):
        client.query(["1"])
    assert client.ping() is False
    assert client.last_error is not None and "scontrol not found" in client.last_error


def test_missing_slurm_conf_is_unavailable_at_once(tmp_path: Path) -> None:
    conf = tmp_path / "nowhere" / "slurm.conf"
    client = CliTransport(env={"SLURM_CONF": str(conf), "PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    with pytest.raises(SlurmUnavailable, match=f"SLURM_CONF={conf} names no file"):
        client.nodes()
    with pytest.raises(SlurmUnavailable):
        client.submit(tmp_path / "x.sh", tmp_path, None)


def test_nothing_to_query_runs_nothing(tmp_path: Path) -> None:
    assert CliTransport(bin_dir=tmp_path).query([]) == {}


def test_cancel_refuses_a_non_job_id(tmp_path: Path) -> None:
    with pytest.raises(SlurmError, match="not a Slurm job id"):
        CliTransport(bin_dir=tmp_path).cancel("12; reboot")


@pytest.mark.parametrize(
    ("message", "unavailable"),
    [
        ("slurm_load_jobs error: Unable to contact slurm controller (connect failure)", True),
        ("sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)", True),
        ('squeue: error: Munge encode failed: Failed to access "/run/munge/munge.socket.2"', True),
        ("sinfo: error: s_p_parse_file: unable to status file /etc/slurm/slurm.conf", True),
        ("slurm_load_jobs error: Zero Bytes were transmitted or received", True),
        ("sbatch: error: Batch job submission failed: Requested node configuration is not available", False),
        ("scancel: error: Kill job error on job id 5: Invalid job id specified", False),
    ],
)
def test_unreachable_versus_refused(message: str, unavailable: bool) -> None:
    assert looks_unavailable(message) is unavailable


def test_json_support_detection() -> None:
    assert CliTransport._lacks_json("squeue: unrecognized option '--json'")
    assert CliTransport._lacks_json("squeue: invalid option -- 'json'")
    assert not CliTransport._lacks_json("squeue: error: Invalid user: nobody2")


def test_slurm_package_does_not_import_textual() -> None:
    code = (
        "import sys\n"
        "import srt_tui.slurm.select, srt_tui.slurm.parse, srt_tui.slurm.cli_transport\n"
        "import srt_tui.slurm.pyslurm_transport, srt_tui.slurm.client, srt_tui.slurm.errors\n"
        "print(sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.')))\n"
    )
    repo = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_status_prints_a_slurm_job_and_exits_3_when_no_controller_answers(tmp_path: Path) -> None:
    """`--help`: exit 3 when Slurm failed or is unreachable. `status` still prints the job it knows (its state
    UNKNOWN) and the one `slurm:` line saying why, then exits 3 (it exited 0: a script read the table as fresh)."""
    job = tmp_path / "out" / "123"
    job.mkdir(parents=True)
    (job / "job.json").write_text('{"version": 1, "job_id": "123", "launcher": "slurm", "name": "j"}')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "SRT_TUI_SLURM"))}
    env["SLURM_CONF"] = str(tmp_path / "nowhere" / "slurm.conf")
    for json_flag in ([], ["--json"]):
        proc = subprocess.run(
            [sys.executable, "-m", "srt_tui.cli", "status", "-o", str(tmp_path / "out"), "123", *json_flag],
            capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip
        assert proc.returncode == 3, proc.stdout + proc.stderr
        assert "123" in proc.stdout and "Traceback" not in proc.stderr
