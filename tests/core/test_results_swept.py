"""What a sweep varies, recorded at `apply` (job.json's `group_values`) and read back by Results: the columns it
shows, the order of its members and the latency plot's x axis (`core/results/swept.py`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from srt_tui.core.jobdir.contract import JOB_FILE, JobDirError, JobMeta, parse_job_meta, read_job_meta
from srt_tui.core.results.model import BenchmarkRun, JobResults, Latency, LevelResult
from srt_tui.core.results.swept import CONCURRENCY, latency_axis, order_key, varied
from srt_tui.core.results.table import LabelledResults
from srt_tui.core.spec.recipe import file_sweep_values
from srt_tui.state.jobindex import record_group
from tests.conftest import REPO


def _job(job: str, *concurrencies: int) -> LabelledResults:
    levels = tuple(LevelResult(c, 10, 0, 1.0, 1.0, 1.0, 1.0, 2.0, 8, tpot=Latency(p50=float(c))) for c in concurrencies)
    return LabelledResults(job, job, JobResults(Path(job), (BenchmarkRun("run", levels),)))


def test_what_varies_is_the_parameters_whose_values_differ() -> None:
    values = [{"osl": 1024, "isl": 128}, {"osl": 128, "isl": 128}]
    assert varied(values) == ("osl",)
    assert varied([{}, {}]) == ()  # no values kept (an older job.json, an override file): nothing to show


def test_members_are_ordered_by_value_numbers_by_size_before_text() -> None:
    values: list[dict[str, str | int | float]] = [{"osl": 1024}, {"osl": "fp8"}, {"osl": 128}, {"osl": "512"}]
    assert sorted(values, key=lambda v: order_key(v, ("osl",))) == [
        {"osl": 128},
        {"osl": "512"},
        {"osl": 1024},
        {"osl": "fp8"},
    ]


def test_a_concurrency_sweep_keeps_latency_against_concurrency_one_line_per_member() -> None:
    axis = latency_axis([(_job("1", 4, 16), {"osl": 128}), (_job("2", 4, 16), {"osl": 1024})])
    assert axis.name == CONCURRENCY and axis.per_job
    assert [(s.label, [x for x, _ in s.points]) for s in axis.series] == [("1", [4.0, 16.0]), ("2", [4.0, 16.0])]


def test_an_osl_sweep_at_one_concurrency_is_drawn_against_osl_in_order() -> None:
    axis = latency_axis([(_job("1", 64), {"osl": 1024}), (_job("2", 64), {"osl": 128}), (_job("3", 64), {"osl": 512})])
    assert axis.name == "osl" and not axis.per_job
    assert [(s.label, [x for x, _ in s.points]) for s in axis.series] == [("", [128.0, 512.0, 1024.0])]


def test_a_grid_at_one_concurrency_draws_one_line_per_value_of_the_other_parameter() -> None:
    grid = [(_job(str(i), 8), {"isl": isl, "osl": osl}) for i, (isl, osl) in enumerate(((1, 20), (2, 10), (1, 10)))]
    axis = latency_axis(grid)
    assert axis.name == "isl"
    assert [(s.label, [x for x, _ in s.points]) for s in axis.series] == [("osl=10", [1.0, 2.0]), ("osl=20", [1.0])]


def test_a_sweep_of_text_values_at_one_concurrency_keeps_concurrency() -> None:
    axis = latency_axis([(_job("1", 8), {"quant": "fp8"}), (_job("2", 8), {"quant": "bf16"})])
    assert axis.name == CONCURRENCY


def test_apply_records_each_members_swept_values_in_job_json(tmp_path: Path) -> None:
    text = (REPO / "recipes" / "mocker" / "mocker-agg-direct.yaml").read_text()
    recipe = tmp_path / "osl.yaml"
    recipe.write_text(text.replace("name: mocker-agg-direct", "name: osl\nsweep:\n  osl: [8, 4]\n  isl: [[1, 2]]")
                      .replace("osl: 4", 'osl: "{osl}"').replace("isl: 32", 'isl: "{isl}"'))  # fmt: skip
    swept = file_sweep_values(recipe)
    assert swept == {"sweep[0]": {"osl": 8, "isl": [1, 2]}, "sweep[1]": {"osl": 4, "isl": [1, 2]}}
    job = tmp_path / "job"
    job.mkdir()
    (job / JOB_FILE).write_text(json.dumps(JobMeta("1").to_json()))
    record_group(job, "osl-1", "sweep[1]", None, swept["sweep[1]"])
    assert read_job_meta(job).group_values == {"osl": 4, "isl": "[1, 2]"}  # a list kept as its text


def test_a_damaged_group_values_is_named() -> None:
    with pytest.raises(JobDirError, match="group_values"):
        parse_job_meta(Path("/x") / JOB_FILE, json.dumps({"job_id": "1", "group_values": {"osl": [1]}}))


def test_apply_of_a_sweep_hands_each_member_its_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`apply -f sweep.yaml` (submission stood in for): each member's job.json gets its own swept values."""
    from types import SimpleNamespace

    from srt_tui.cli import sweep as cli_sweep
    from srt_tui.slurm import submit

    recipe = tmp_path / "osl.yaml"
    text = (REPO / "recipes" / "mocker" / "mocker-agg-direct.yaml").read_text()
    recipe.write_text(
        text.replace("name: mocker-agg-direct", "name: osl\nsweep:\n  osl: [8, 4]").replace("osl: 4", 'osl: "{osl}"')
    )
    dirs: list[Path] = []

    def submitted(prep: object, *_: object) -> SimpleNamespace:
        job = tmp_path / f"job{len(dirs)}"
        job.mkdir()
        (job / JOB_FILE).write_text(json.dumps(JobMeta(str(len(dirs))).to_json()))
        dirs.append(job)
        return SimpleNamespace(
            job_dir=job, job_id=str(len(dirs)), launcher="local", notes=(), submit_note="", client=None
        )

    monkeypatch.setattr(submit, "submit_prepared", submitted)
    args = SimpleNamespace(file=str(recipe), profile="local", topology=None, no_preflight=True, yes=True, json=False,
                           output=None, launcher="local", transport=None)  # fmt: skip
    jobs = cli_sweep.file_members(str(recipe))
    assert jobs is not None
    assert cli_sweep.apply_members(args, jobs, None) == 0  # type: ignore[arg-type]
    assert [read_job_meta(d).group_values for d in dirs] == [{"osl": 8}, {"osl": 4}]
