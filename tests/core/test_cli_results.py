"""`srt-tui results` through the real console script: srtctl's result directories, side by side, as text/JSON/CSV."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from tests.conftest import REPO
from tests.core.core_helpers import cli
from tests.core.test_core_results import srtctl_level


def srtctl_job(base: Path, job_id: str, name: str, levels: dict[int, int]) -> Path:
    """An srtctl output directory: <job>.json submit metadata and logs/sa-bench_isl_1024_osl_256/ results."""
    job = base / job_id
    run = job / "logs" / "sa-bench_isl_1024_osl_256"
    run.mkdir(parents=True)
    (job / f"{job_id}.json").write_text(json.dumps({"job_id": job_id, "job_name": name, "resources": {}}))
    for conc, failed in levels.items():
        level = srtctl_level(conc, conc * 10 - failed, [""] * (conc * 10 - failed) + ["boom"] * failed, 20.0)
        (run / f"results_concurrency_{conc}_gpus_8_ctx_4_gen_4.json").write_text(json.dumps(level))
    return job


def test_results_of_two_srtctl_jobs_side_by_side(tmp_path: Path) -> None:
    a = srtctl_job(tmp_path, "1001", "dsr1-1p1d", {4: 0, 16: 1})
    b = srtctl_job(tmp_path, "1002", "dsr1-2p1d", {4: 0})
    text = cli("results", str(a), str(b), cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0].split()[:5] == ["JOB", "NAME", "CONC", "OK", "FAIL"]
    assert [ln.split()[:5] for ln in lines[1:4]] == [
        ["1001", "dsr1-1p1d", "4", "40", "0"],
        ["1001", "dsr1-1p1d", "16", "159", "1"],
        ["1002", "dsr1-2p1d", "4", "40", "0"],
    ]
    js = cli("results", str(a), str(b), "--json", cwd=tmp_path)
    rows = json.loads(js.stdout)
    assert [(r["job"], r["concurrency"], r["requests_failed"]) for r in rows] == [
        ("1001", 4, 0),
        ("1001", 16, 1),
        ("1002", 4, 0),
    ]
    assert rows[1]["output_tok_s_per_gpu"] == round(256 * 159 / 20.0 / 8, 3)
    assert rows[1]["ttft_p99_ms"] == 180.0 and rows[1]["ttft_p90_ms"] is None
    by_id = cli("results", "1002", "-o", str(tmp_path), "--json", cwd=tmp_path / "1001")  # srtctl's outputs/<id>
    assert [r["name"] for r in json.loads(by_id.stdout)] == ["dsr1-2p1d"]
    table = list(csv.DictReader(io.StringIO(cli("results", str(a), "--csv", cwd=tmp_path).stdout)))
    assert [r["concurrency"] for r in table] == ["4", "16"] and table[0]["ttft_p90_ms"] == ""


def test_a_job_without_results_is_one_line_and_exit_1(tmp_path: Path) -> None:
    done = srtctl_job(tmp_path, "1001", "done", {4: 0})
    pending = tmp_path / "1003"
    (pending / "logs").mkdir(parents=True)
    proc = cli("results", str(done), str(pending), "--json", cwd=tmp_path)
    assert proc.returncode == 1
    assert [r["job"] for r in json.loads(proc.stdout)] == ["1001"]  # what exists is still printed
    assert proc.stderr.strip().splitlines() == [
        f"srt-tui: error: 1003: no benchmark results yet in {pending / 'logs'} "
        "(no sa-bench_*/results_concurrency_*.json nor benchmark-rollup.json; is its benchmark done?)"
    ]


def test_a_manual_benchmark_job_says_it_will_have_no_results(tmp_path: Path) -> None:
    """Operator pass (issue 21): `results` on mocker-1p2d (benchmark `manual`, serving until cancelled) said
    "no benchmark results yet … is its benchmark done?", which waiting never answers: it runs none."""
    job = tmp_path / "local-2"
    made = cli(
        "dry-run", "-f", str(REPO / "recipes/mocker/mocker-1p2d.yaml"), "-p", "local", "-o", str(job), cwd=tmp_path
    )
    assert made.returncode == 0, made.stderr
    proc = cli("results", str(job), cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        "srt-tui: error: local-2: its benchmark is manual: no benchmark runs, so there are no results "
        "(`srt-tui bench local-2` or `b` in its job view sends a smoke test)"
    ]


def test_an_unknown_job_is_a_usage_error(tmp_path: Path) -> None:
    proc = cli("results", "no-such-job", cwd=tmp_path)
    assert proc.returncode == 2
    assert "`no-such-job` is no job directory, known job id or sweep group" in proc.stderr
    assert "Traceback" not in proc.stderr
