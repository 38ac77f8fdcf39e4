"""One submission asks the controller `scontrol ping` once (it asked three times: the launcher
choice pinged twice, then the submission chose a client and pinged again). Real local Slurm."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from srt_tui.core.api import prepare
from srt_tui.slurm.cli_transport import CliTransport
from srt_tui.slurm.submit import submit_prepared
from tests.cluster import ClusterInfo
from tests.conftest import REPO

pytestmark = pytest.mark.slurm


def test_one_submit_pings_the_controller_once(
    local_slurm: ClusterInfo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[list[str]] = []
    real_run = CliTransport._run

    def counting_run(self: CliTransport, args: Sequence[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        calls.append(list(args))
        return real_run(self, args, **kwargs)

    monkeypatch.setattr(CliTransport, "_run", counting_run)
    prep = prepare(REPO / "recipes" / "mocker" / "mocker-agg-direct.yaml", "local")
    sub = submit_prepared(prep, "slurm", tmp_path, "cli")  # the demo profile runs locally unless Slurm is asked
    try:
        assert sub.launcher == "slurm"
        assert [c[:2] for c in calls].count(["scontrol", "ping"]) == 1, calls
        # ping; the preflight's partition and node listings; submit held; release
        assert [" ".join(c[:3]) for c in calls] == [
            "scontrol ping",
            "scontrol show partition",
            "sinfo --json",
            f"sbatch --parsable --chdir={tmp_path}",
            f"scontrol release {sub.job_id}",
        ]
    finally:
        subprocess.run(["scancel", sub.job_id], capture_output=True, timeout=30)


def test_a_sweep_pings_the_controller_once_for_all_its_members(
    local_slurm: ClusterInfo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from srt_tui.cli.main import main
    from tests.e2e.test_slurm_sweeps import sweep_file

    calls: list[list[str]] = []
    real_run = CliTransport._run

    def counting_run(self: CliTransport, args: Sequence[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        calls.append(list(args))
        return real_run(self, args, **kwargs)

    monkeypatch.setattr(CliTransport, "_run", counting_run)
    recipe = sweep_file(tmp_path, "  osl: [4, 8]")
    argv = ["apply", "-f", str(recipe), "-p", "local", "--launcher", "slurm", "--transport", "cli"]
    rc = main([*argv, "-o", str(tmp_path / "out"), "--json"])
    out = json.loads(capsys.readouterr().out)
    try:
        assert rc == 0 and out["status"] == "submitted" and len(out["jobs"]) == 2, out
        assert [c[:2] for c in calls].count(["scontrol", "ping"]) == 1, calls
        assert [c[0] for c in calls].count("sbatch") == 2, calls
    finally:
        for job in out.get("jobs", []):
            subprocess.run(["scancel", job["job_id"]], capture_output=True, timeout=30)
