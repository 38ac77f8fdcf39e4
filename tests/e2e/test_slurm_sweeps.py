"""A sweep on the real local Slurm: `apply` submits its members as one group, `results <group>` compares them,
and a refusal midway says which members were submitted and which not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.e2e.jobtools import srt, status

pytestmark = [pytest.mark.slurm]
AGG = REPO / "recipes" / "mocker" / "mocker-agg-direct.yaml"


def sweep_file(tmp_path: Path, sweep: str, extra: str = "") -> Path:
    """mocker-agg-direct as a sweep: `sweep` is the block's body, `{osl}` fills the benchmark's osl."""
    text = AGG.read_text().replace("name: mocker-agg-direct", f"name: msweep\nsweep:\n{sweep}\n{extra}")
    text = text.replace("  osl: 4", '  osl: "{osl}"').replace("concurrencies: [2]", "concurrencies: [1, 2]")
    path = tmp_path / "msweep.yaml"
    path.write_text(text)
    return path


def test_a_sweep_runs_as_one_group_and_results_compare_members(cluster: Any, jobs: list[str], tmp_path: Path) -> None:
    recipe = sweep_file(tmp_path, "  osl: [4, 8, 16]")
    out = json.loads(srt("apply", "-f", str(recipe), "-p", "local", "--launcher", "slurm", "--json").stdout)
    assert out["status"] == "submitted"
    group, members = out["group"], out["jobs"]
    jobs += [m["job_id"] for m in members]
    assert [(m["selector"], m["job_name"]) for m in members] == [
        ("sweep[0]", "msweep_osl4"),
        ("sweep[1]", "msweep_osl8"),
        ("sweep[2]", "msweep_osl16"),
    ]
    for m in members:
        assert json.loads((Path(m["job_dir"]) / "job.json").read_text())["group"] == group
        proc = srt("wait", m["job_id"], "--for", "done", "--timeout", "180", "-q", check=False, timeout=240)
        assert proc.returncode == 0, status(m["job_id"])
    rows = json.loads(srt("results", group, "--json").stdout)
    assert [(r["name"], r["concurrency"]) for r in rows] == [
        (name, c) for name in ("msweep_osl4", "msweep_osl8", "msweep_osl16") for c in (1, 2)
    ]
    assert all(r["requests_ok"] == 5 * r["concurrency"] and r["requests_failed"] == 0 for r in rows)
    assert all(r["output_tok_s"] > 0 and r["request_throughput"] > 0 and r["ttft_p99_ms"] > 0 for r in rows)
    # followed as one thing: `status GROUP` shows every member, ended, with its benchmark's requests
    snaps = json.loads(srt("status", group, "--json").stdout)
    assert [(s["name"], s["stage"], s["requests"], s["errors"]) for s in snaps] == [
        (name, "completed", 15, 0) for name in ("msweep_osl4", "msweep_osl8", "msweep_osl16")
    ]
    text = srt("results", group).stdout.splitlines()
    # what the sweep varies, as a column of its own after the names (s36: the Results view's OSL column)
    assert text[0].split()[:6] == ["JOB", "NAME", "OSL", "CONC", "OK", "FAIL"] and len(text) == 1 + 6 + 1
    assert [r["swept"] for r in rows] == [{"osl": osl} for osl in (4, 8, 16) for _ in (1, 2)]


def test_a_refusal_midway_says_which_members_were_submitted(cluster: Any, jobs: list[str], tmp_path: Path) -> None:
    # (a partition listed twice would be refused before anything is submitted: two members, one job)
    recipe = sweep_file(tmp_path, "  osl: [4, 8]\n  part: [gpu, nosuchpart]", "slurm: {partition: '{part}'}")
    proc = srt("apply", "-f", str(recipe), "-p", "local", "--launcher", "slurm", "-y", check=False)
    submitted = [ln.split("job ")[1].split()[0] for ln in proc.stderr.splitlines() if "  submitted " in ln]
    jobs += submitted
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert "1 of 4 jobs submitted before the refusal" in lines[0]
    assert lines[1].split()[:3] == ["submitted", "sweep[0]", "msweep_osl4_partgpu:"] and len(submitted) == 1
    assert lines[2].split() == ["not", "submitted", "sweep[1]", "msweep_osl4_partnosuchpart"]
    assert lines[3].split() == ["not", "submitted", "sweep[2]", "msweep_osl8_partgpu"]
    assert lines[4].split() == ["not", "submitted", "sweep[3]", "msweep_osl8_partnosuchpart"]
    assert "nosuchpart" in "\n".join(lines[5:])  # the refusal itself, as Slurm's preflight said it
    # automation: one JSON line says the same
    proc = srt("apply", "-f", str(recipe), "-p", "local", "--launcher", "slurm", "--json", check=False)
    (line,) = proc.stdout.splitlines()
    out = json.loads(line)
    jobs += [j["job_id"] for j in out["jobs"]]
    assert proc.returncode == 2 and out["status"] == "partial" and out["group"].startswith("msweep-")
    assert [j["selector"] for j in out["jobs"]] == ["sweep[0]"]
    assert [j["selector"] for j in out["not_submitted"]] == ["sweep[1]", "sweep[2]", "sweep[3]"]
    assert "nosuchpart" in out["error"]
