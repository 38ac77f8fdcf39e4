"""The job directory's contract as its readers see it: a damaged job.json, plan.json or endpoints.json
is one clear message for that job in `srt-tui status` and in the Monitor's jobs table (the other jobs
go on), a directory written before the files carried versions still reads, and a relayed view says
so in its http source."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from srt_tui.core.jobdir.contract import (
    JobDirError,
    JobMeta,
    parse_endpoints,
    parse_job_meta,
    parse_plan,
    read_job_meta,
    update_job_meta,
    write_job_meta,
)
from srt_tui.monitor.model import JobSnapshot
from srt_tui.monitor.snapshot.collect import Monitor
from tests.monitor.tui_apps import frozen_app

#: a job directory exactly as srt-tui wrote it before the files carried a `version` (job.json and
#: endpoints.json without one; plan.json has had `version: 1` from the start)
UNVERSIONED = Path(__file__).parent / "fixtures" / "jobdir-unversioned"

#: (name, file, content, what the message must say)
DAMAGE: list[tuple[str, str, str, str]] = [
    ("truncated-plan", "plan.json", '{"version": 1, "processes": [{"name": "agg_0"', "plan.json: not valid JSON"),
    (
        "plan-wrong-type",
        "plan.json",
        '{"version": 1, "processes": "agg_0"}',
        "plan.json: key `processes`: expected a list of objects, found a string",
    ),
    ("plan-not-an-object", "plan.json", "[1, 2]", "plan.json: expected a JSON object, found a list"),
    ("job-missing-key", "job.json", '{"name": "lost"}', "job.json: key `job_id` is missing"),
    ("job-wrong-type", "job.json", '{"job_id": "9", "nodes": "two"}', "job.json: key `nodes`: expected a non-negative"),
    ("job-binary", "job.json", "\udcff", "job.json: not UTF-8 text"),
    (
        "endpoints-future",
        "endpoints.json",
        '{"version": 99, "workers": []}',
        "endpoints.json: format version 99 is newer than this srt-tui reads (1)",
    ),
    ("endpoints-truncated", "endpoints.json", '{"workers": [', "endpoints.json: not valid JSON"),
    ("endpoints-no-workers", "endpoints.json", '{"job_id": "9"}', "endpoints.json: key `workers` is missing"),
]


def _job(base: Path, name: str, file: str | None = None, content: str = "") -> Path:
    """A copy of the unversioned fixture as job `local-<name>` (local: no Slurm), one file replaced."""
    job_dir = base / name
    shutil.copytree(UNVERSIONED, job_dir)
    meta = json.loads((job_dir / "job.json").read_text())
    (job_dir / "job.json").write_text(json.dumps({**meta, "job_id": f"local-{name}"}))
    if file is not None:
        (job_dir / file).write_bytes(content.encode("utf-8", "surrogateescape"))
    return job_dir


def _refresh(jobs: dict[str, Path]) -> list[JobSnapshot]:
    import asyncio

    async def run() -> list[JobSnapshot]:
        m = Monitor(None, http_timeout=0.3, connect_timeout=0.2, budget_s=0.3)
        try:
            return await m.refresh(jobs)
        finally:
            await m.aclose()

    return asyncio.run(run())


@pytest.mark.parametrize("name,file,content,said", DAMAGE, ids=[d[0] for d in DAMAGE])
def test_each_damage_is_named_by_the_contract(tmp_path: Path, name: str, file: str, content: str, said: str) -> None:
    parse = {"job.json": parse_job_meta, "plan.json": parse_plan, "endpoints.json": parse_endpoints}[file]
    with pytest.raises(JobDirError) as err:
        parse(tmp_path / file, content.encode("utf-8", "surrogateescape"))
    assert err.value.short.startswith(said), err.value.short
    assert str(tmp_path / file) in str(err.value) and err.value.fix  # the file's path, and what to do


def test_a_directory_written_before_versions_still_reads() -> None:
    meta = read_job_meta(UNVERSIONED)
    assert (meta.version, meta.job_id, meta.topology, meta.launcher) == (1, "4711", "1P1D", "slurm")
    snap = _refresh({"4711": UNVERSIONED})[0]
    assert snap.source("job dir") is not None and snap.source("job dir").ok, snap.sources  # type: ignore[union-attr]
    assert (snap.name, snap.profile, snap.topology, snap.engine, snap.nodes) == (
        "mocker-1p1d",
        "local",
        "1P1D",
        "mocker",
        2,
    )
    assert [w.name for w in snap.workers] == ["prefill_0", "decode_0"]
    assert snap.router is not None and (snap.router.url or "").startswith("http://127.0.0.1:")


def test_updates_keep_every_field_and_write_the_current_version(tmp_path: Path) -> None:
    shutil.copytree(UNVERSIONED, tmp_path / "j")
    before = read_job_meta(tmp_path / "j")
    update_job_meta(tmp_path / "j", tags=("a", "b"))
    doc = json.loads((tmp_path / "j" / "job.json").read_text())
    assert doc["version"] == 1 and doc["tags"] == ["a", "b"]
    assert read_job_meta(tmp_path / "j") == JobMeta(**{**before.__dict__, "tags": ("a", "b")})
    write_job_meta(tmp_path / "j", JobMeta("7"))
    assert not list((tmp_path / "j").glob(".job.json*"))  # written whole, then renamed


def _index(tmp_path: Path, jobs: dict[str, Path]) -> dict[str, str]:
    state = tmp_path / "state"
    state.mkdir()
    with open(state / "jobs.jsonl", "w") as fh:
        for job_id, path in jobs.items():
            fh.write(json.dumps({"job_id": job_id, "job_dir": str(path)}) + "\n")
    env = dict(os.environ)
    env.update(SRT_TUI_STATE_DIR=str(state), SRT_TUI_OUTPUT_DIR=str(tmp_path / "outputs"), NO_COLOR="1")
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    return env


def test_status_says_what_is_wrong_once_per_job_and_goes_on(tmp_path: Path) -> None:
    jobs = {"local-good": _job(tmp_path, "good")}
    for name, file, content, _ in DAMAGE:
        jobs[f"local-{name}"] = _job(tmp_path, name, file, content)
    env = _index(tmp_path, jobs)
    proc = subprocess.run(
        [sys.executable, "-m", "srt_tui.cli", "status"], env=env, capture_output=True, text=True, timeout=120
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "Traceback" not in out, out
    table = proc.stdout.split("\n\n")[0]
    assert all(job_id in table for job_id in jobs), table  # every job has its row, the good one too
    for name, _, _, said in DAMAGE:
        lines = [line for line in out.splitlines() if said in line]
        assert len(lines) == 1, (name, out)  # one message for that job
        assert lines[0].startswith(f"local-{name}: job files in {tmp_path / name}: "), lines[0]
    assert not [line for line in out.splitlines() if line.startswith("local-good: job files")], out
    as_json = subprocess.run(
        [sys.executable, "-m", "srt_tui.cli", "status", "--json"], env=env, capture_output=True, text=True, timeout=120
    )
    docs = {d["job_id"]: d for d in json.loads(as_json.stdout)}
    dir_ok = {j: next(s for s in d["sources"] if s["name"] == "job dir")["ok"] for j, d in docs.items()}
    assert dir_ok == {j: j == "local-good" for j in jobs}


async def test_the_jobs_table_marks_the_job_and_says_what_is_wrong(tmp_path: Path) -> None:
    jobs = {"local-good": _job(tmp_path, "good")}
    for name, file, content, _ in DAMAGE[:4]:
        jobs[f"local-{name}"] = _job(tmp_path, name, file, content)
    m = Monitor(None, http_timeout=0.3, connect_timeout=0.2, budget_s=0.3)
    try:
        snaps = await m.refresh(jobs)
    finally:
        await m.aclose()
    app = frozen_app(snaps)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        table: DataTable[Any] = app.screen.query_one("#jobs-table", DataTable)
        stage_of = {job_id: str(table.get_cell(job_id, "stage")) for job_id in jobs}
        assert not stage_of["local-good"].endswith("⚠") and all(
            stage_of[j].endswith("⚠") for j in jobs if j != "local-good"
        ), stage_of
        status = str(app.screen.query_one("#jobs-status", Static).content)
        for name, _, _, said in DAMAGE[:4]:
            assert f"⚠ local-{name}: {said}" in status, status
        assert "local-good:" not in status


def test_a_relayed_view_says_relayed_in_status_json(tmp_path: Path) -> None:
    job_dir = _job(tmp_path, "relayed")
    # the nodes as a cut-off login node sees them: connections are taken, nothing ever answers
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        ep = json.loads((job_dir / "endpoints.json").read_text())
        for w in ep["workers"]:
            w["url"], w["health_url"], w["metrics_url"] = url, url + "/health", url + "/metrics"
        ep["router"].update(url=url, workers_url=url + "/workers", metrics_url=url + "/metrics")
        (job_dir / "endpoints.json").write_text(json.dumps(ep))
        (job_dir / "relay").mkdir()
        health = {"time": time.time(), "workers": {"prefill_0": 200, "decode_0": 200}}
        (job_dir / "relay" / "health.json").write_text(json.dumps(health))
        env = _index(tmp_path, {"local-relayed": job_dir})
        proc = subprocess.run(
            [sys.executable, "-m", "srt_tui.cli", "status", "--json"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert proc.returncode == 0, proc.stderr
    (doc,) = json.loads(proc.stdout)
    assert doc["relayed"] is True and {w["source"] for w in doc["workers"]} == {"relay"}, doc
    http = next(s for s in doc["sources"] if s["name"] == "http")
    assert http["ok"] is False and http["error"].startswith("relayed: "), http
    assert next(s for s in doc["sources"] if s["name"] == "relay")["ok"] is True
    assert doc["degraded"] is False  # healthy through the relay: relayed, not degraded


def test_job_json_stores_the_recipe_path_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from srt_tui.core.api import prepare
    from srt_tui.slurm.submit import _metadata

    repo = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(repo)
    meta = _metadata(prepare("recipes/mocker/mocker-1p1d.yaml", "local"), "5", "slurm", "cli")
    assert meta.recipe_path == str(repo / "recipes" / "mocker" / "mocker-1p1d.yaml")
    write_job_meta(tmp_path, meta)
    assert read_job_meta(tmp_path) == meta  # what is written reads back the same


def test_status_lists_every_job_newest_first_and_named_jobs_as_named(tmp_path: Path) -> None:
    """Operator pass (issue 21): `status` listed the oldest first while the Monitor and `jobs` list the newest
    first, so `status | head` left the running job out. Jobs named on the command line keep their order."""
    jobs: dict[str, Path] = {}
    for i, name in enumerate(("old", "mid", "new")):
        job_dir = jobs[f"local-{name}"] = _job(tmp_path, name)
        meta = json.loads((job_dir / "job.json").read_text())
        (job_dir / "job.json").write_text(json.dumps({**meta, "submitted_at": f"2026-03-0{i + 1}T10:00:00Z"}))
    env = _index(tmp_path, jobs)

    def listed(*names: str) -> list[str]:
        proc = subprocess.run([sys.executable, "-m", "srt_tui.cli", "status", *names], env=env,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        rows = [line.split()[0] for line in proc.stdout.splitlines()[1:] if line.strip()]
        return [row for row in rows if not row.endswith(":")]  # the table's rows, not the lines under it

    assert listed() == ["local-new", "local-mid", "local-old"]
    assert listed("local-old", "local-new") == ["local-old", "local-new"]
