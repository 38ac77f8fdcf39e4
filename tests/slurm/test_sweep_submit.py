"""`sweep_submit`, the one way a whole sweep is submitted (`apply -f sweep.yaml`, the wizard's whole-sweep row): each
member checked, submitted in order and marked with its group and swept values; a member refused midway stops the
rest (`apply`), or is said while the others go on (`keep_going`, the wizard)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from srt_tui.core.api import Prepared
from srt_tui.core.errors import Problem
from srt_tui.core.jobdir.contract import JobMeta, read_job_meta, write_job_meta
from srt_tui.slurm import submit
from srt_tui.slurm.submit import Submission, SubmitError
from srt_tui.slurm.sweep_submit import check_sweep, submit_sweep
from tests.conftest import REPO

AGG = REPO / "recipes" / "mocker" / "mocker-agg-direct.yaml"


def _sweep(tmp_path: Path) -> Path:
    text = AGG.read_text().replace("name: mocker-agg-direct", "name: msw\nsweep:\n  osl: [4, 8, 16]")
    path = tmp_path / "msw.yaml"
    path.write_text(text.replace("  osl: 4", '  osl: "{osl}"'))
    return path


@pytest.fixture
def refusing_second(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """`submit_prepared` writing a job directory (its job.json) for each member but the `_osl8` one, which Slurm
    refuses; the names tried, in order."""
    tried: list[str] = []

    def fake(prep: Prepared, *args: Any, **kwargs: Any) -> Submission:
        tried.append(prep.plan.name)
        if prep.plan.name.endswith("_osl8"):
            raise SubmitError([Problem("slurm", "sbatch: invalid partition", "pick another")])
        job_dir = tmp_path / "out" / str(len(tried))
        job_dir.mkdir(parents=True)
        write_job_meta(job_dir, JobMeta(job_id=f"local-{len(tried)}", name=prep.plan.name))
        return Submission(f"local-{len(tried)}", job_dir, "local")

    monkeypatch.setattr(submit, "submit_prepared", fake)
    return tried


def test_a_refused_member_stops_the_rest_or_with_keep_going_only_itself(
    tmp_path: Path, refusing_second: list[str]
) -> None:
    check = check_sweep(str(_sweep(tmp_path)), "local")
    assert check.refusal() is None and [m.selector for m, _ in check.ready] == ["sweep[0]", "sweep[1]", "sweep[2]"]
    assert check.values["sweep[2]"] == {"osl": 16}
    seen: list[str] = []
    stopped = submit_sweep(check.ready, "msw-1", check.values, on_failed=lambda m, exc: seen.append(m.selector))
    assert stopped.status == "partial" and seen == ["sweep[1]"]
    assert [m.selector for m, *_ in stopped.submitted] == ["sweep[0]"]
    assert [(m.selector, str(exc)) for m, exc in stopped.failed] == [
        ("sweep[1]", "slurm: sbatch: invalid partition (fix: pick another)")
    ]
    assert [m.selector for m in stopped.not_submitted] == ["sweep[2]"]
    assert refusing_second == ["msw_osl4", "msw_osl8"]  # the third was never tried
    meta = read_job_meta(stopped.submitted[0][2].job_dir)
    assert (meta.group, meta.group_member, dict(meta.group_values or {})) == ("msw-1", "sweep[0]", {"osl": 4})

    went_on = submit_sweep(check.ready, "msw-2", check.values, keep_going=True)
    assert went_on.status == "partial" and not went_on.not_submitted
    assert [m.selector for m, *_ in went_on.submitted] == ["sweep[0]", "sweep[2]"]
    assert [m.selector for m, _ in went_on.failed] == ["sweep[1]"]
    last = read_job_meta(went_on.submitted[1][2].job_dir)
    assert (last.group, last.group_member, dict(last.group_values or {})) == ("msw-2", "sweep[2]", {"osl": 16})
