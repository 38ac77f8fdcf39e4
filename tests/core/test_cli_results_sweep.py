"""`srt-tui results GROUP` of a sweep shows what it varies, as the Results view does (s36: the TUI's table got an OSL
column and rows ordered by it, the CLI kept three rows told apart by job id alone): a column per varied parameter,
rows ordered by it, in text, JSON and CSV, from the same headless functions (`core/results/swept.py`)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from srt_tui.cli.main import main
from srt_tui.state.jobindex import remember_job
from tests.monitor import resultdirs


@pytest.fixture
def group(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """An osl sweep's three members (osl 1024, 128, 512 in member order), indexed as `apply` leaves them."""
    monkeypatch.setenv("SRT_TUI_STATE_DIR", str(tmp_path / "state"))
    for job_id, path in resultdirs.osl_sweep(tmp_path / "outputs"):
        remember_job(job_id, path)
    return "osl-81500"


def test_the_table_has_a_column_per_swept_parameter_rows_ordered_by_it(
    group: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["results", group]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["JOB", "NAME", "OSL", "CONC"]
    assert [ln.split()[:4] for ln in lines[1:4]] == [
        ["81501", "h100-osl_osl128", "128", "64"],
        ["81502", "h100-osl_osl512", "512", "64"],
        ["81500", "h100-osl_osl1024", "1024", "64"],
    ]


def test_json_and_csv_carry_the_swept_values(group: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["results", group, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["job"], r["swept"]) for r in rows] == [("81501", {"osl": 128}), ("81502", {"osl": 512}),
                                                      ("81500", {"osl": 1024})]  # fmt: skip
    assert main(["results", group, "--csv"]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["job"], r["swept.osl"]) for r in table] == [("81501", "128"), ("81502", "512"), ("81500", "1024")]


def test_a_job_outside_a_sweep_gets_no_swept_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    job = resultdirs.single(tmp_path)
    assert main(["results", str(job), "--json"]) == 0
    assert all("swept" not in r for r in json.loads(capsys.readouterr().out))
    assert main(["results", str(job)]) == 0
    assert capsys.readouterr().out.split()[:3] == ["JOB", "NAME", "CONC"]
