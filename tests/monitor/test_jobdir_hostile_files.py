"""`status` and the Monitor with devices, FIFOs, links and huge files where job files belong, and a
damaged job index: every other job is still shown, each refused file is named, nothing blocks or fills
memory (the real `srt-tui status` runs with a memory limit and a subprocess timeout, no timing assert).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from srt_tui.state.jobindex import read_index
from tests.monitor.test_jobdir_contract import _index, _job, _refresh

#: the files `status` and the Monitor read back from a job directory
FILES = ("status.jsonl", "plan.json", "endpoints.json", "relay/health.json", "logs/launch.log", "local.json")


def _hostile(base: Path, kind: str) -> Path:
    """A job directory with every file it is read for replaced by a `kind` (fifo, zero, sparse)."""
    job_dir = _job(base, kind)
    for name in FILES:
        path = job_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "zero":
            os.symlink("/dev/zero", path)
        else:
            with open(path, "wb") as fh:
                fh.truncate(32 << 30)
    return job_dir


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def test_status_names_each_refused_file_and_shows_every_job(tmp_path: Path) -> None:
    jobs = {"local-good": _job(tmp_path, "good")}
    jobs.update({f"local-{k}": _hostile(tmp_path, k) for k in ("fifo", "zero", "sparse")})
    env = _index(tmp_path, jobs)
    with open(tmp_path / "state" / "jobs.jsonl", "ab") as fh:  # damaged entries between good ones
        fh.write(b'{"job_id": "x", "job_dir": "\xff\xfe"}\n{"job_id": "y", "job_dir": 7}\n{not json\n[1]\n')
    proc = subprocess.run(
        [sys.executable, "-m", "srt_tui.cli", "status"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_limit,
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    table = proc.stdout.split("\n\n")[0]
    assert all(job_id in table for job_id in jobs), table
    said = {k: next(line for line in proc.stdout.splitlines() if line.startswith(f"local-{k}: job files")) for k in
            ("fifo", "zero", "sparse")}  # fmt: skip
    assert "status.jsonl: is a named pipe" in said["fifo"] and "plan.json: is a named pipe" in said["fifo"]
    assert "local.json: is a named pipe" in said["fifo"]
    assert "endpoints.json: is a symbolic link" in said["zero"]
    assert "plan.json: is 34,359,738,368 bytes" in said["sparse"]
    warnings = [line for line in proc.stderr.splitlines() if "damaged job-index entry" in line]
    index = tmp_path / "state" / "jobs.jsonl"
    assert warnings == [f"srt-tui: warning: {index}:{n}: a damaged job-index entry is skipped" for n in range(5, 9)]


def test_the_monitor_keeps_every_job_when_one_directory_is_hostile(tmp_path: Path) -> None:
    jobs = {"local-good": _job(tmp_path, "good"), "local-fifo": _hostile(tmp_path, "fifo")}
    snaps = {s.job_id: s for s in _refresh(jobs)}
    assert set(snaps) == set(jobs)
    assert snaps["local-good"].source("job dir").ok  # type: ignore[union-attr]
    bad = snaps["local-fifo"].source("job dir")
    assert bad is not None and not bad.ok and "status.jsonl: is a named pipe" in bad.error


def test_a_damaged_index_entry_is_skipped_with_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    good = _job(tmp_path, "good")
    state = tmp_path / "state"
    state.mkdir()
    lines = [b"\xff{", json.dumps({"job_id": "a", "job_dir": ["x"]}).encode(), b"null",
             json.dumps({"job_id": "local-good", "job_dir": str(good)}).encode()]  # fmt: skip
    (state / "jobs.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    monkeypatch.setenv("SRT_TUI_STATE_DIR", str(state))
    jobs, warnings = read_index()
    assert jobs == {"local-good": good}
    assert [w.split(": ")[0] for w in warnings] == [f"{state / 'jobs.jsonl'}:{n}" for n in (1, 2, 3)]


def test_a_job_that_fails_to_build_is_said_and_the_others_are_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import srt_tui.monitor.snapshot.collect as collect
    from srt_tui.monitor.snapshot.build import build_snapshot as real

    def failing(ctx: Any, job: Any, state: Any, sched: Any) -> Any:
        if job.job_id == "local-bad" and not job.problems:  # a bug reached by this job's files alone
            raise MemoryError("out of memory")
        return real(ctx, job, state, sched)

    monkeypatch.setattr(collect, "build_snapshot", failing)
    jobs = {"local-good": _job(tmp_path, "good"), "local-bad": _job(tmp_path, "bad")}
    snaps = {s.job_id: s for s in _refresh(jobs)}
    assert set(snaps) == set(jobs) and snaps["local-good"].name == "mocker-1p1d"
    said = snaps["local-bad"].source("job dir")
    assert said is not None and not said.ok and "MemoryError: out of memory" in said.error
