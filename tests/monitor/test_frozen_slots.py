"""The ended-job bookkeeping at scale (issue 22): each kept job's stamp is taken once every `every` refreshes,
spread over the jobs, a job kept just now at the next refresh; the file cache forgets untracked jobs' files."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from srt_tui.core.jobdir.contract import parse_job_meta
from srt_tui.monitor.files.jobfiles import FileCache
from srt_tui.monitor.model import JobSnapshot
from srt_tui.monitor.snapshot import frozen
from srt_tui.monitor.snapshot.frozen import FrozenJobs, stamp
from tests.monitor import frozen as fixtures


def _ended(job_id: str, job_dir: Path) -> JobSnapshot:
    return replace(fixtures.nvidia(job_id=job_id), job_dir=str(job_dir), stage="completed")


def test_kept_jobs_are_stamped_once_every_few_refreshes_spread_over_the_jobs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dirs = {str(i): tmp_path / str(i) for i in range(10)}
    for d in dirs.values():
        d.mkdir()
    jobs = FrozenJobs(every=5)
    stamps, kept = jobs.split(dirs)
    assert list(stamps) == list(dirs) and not kept  # nothing kept yet: every job is read
    for j, d in dirs.items():
        jobs.keep(_ended(j, d), d, stamps[j], None)
    stamped: list[str] = []
    real = frozen.stamp

    def counted(job_dir: Path) -> frozen.Stamp:
        stamped.append(job_dir.name)
        return real(job_dir)

    monkeypatch.setattr(frozen, "stamp", counted)
    per_refresh = []
    for _ in range(5):
        stamped.clear()
        stamps, kept = jobs.split(dirs)
        assert not stamps and len(kept) == 10  # unchanged: nothing to read
        per_refresh.append(list(stamped))
    assert per_refresh[0][:1] == ["0"]  # the first job kept is checked at the very next refresh
    assert sorted(j for r in per_refresh for j in r) == sorted(dirs)  # each once in `every` refreshes
    assert max(len(r) for r in per_refresh) == 2  # spread: 10 jobs over 5 refreshes
    (dirs["3"] / "late.txt").write_text("results after the end\n")
    seen = {j for _ in range(5) for j in jobs.split(dirs)[0]}
    assert seen == {"3"} and len(jobs) == 9  # found on its slot, read again, no longer kept


def test_the_file_cache_forgets_only_untracked_jobs(tmp_path: Path) -> None:
    cache = FileCache()
    kept, gone = tmp_path / "kept", tmp_path / "gone"
    for d in (kept, gone):
        d.mkdir()
        (d / "job.json").write_text('{"job_id": "1"}')
        cache.doc(d / "job.json", parse_job_meta)
    cache.forget({kept})
    assert set(cache._docs) == {kept / "job.json"}
    assert stamp(kept) != stamp(tmp_path / "missing")
