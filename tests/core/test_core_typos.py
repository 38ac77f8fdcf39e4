"""Every typo of a recipe in one run, each with the nearest valid word (operator report: `benchmark.type:
manaul` got no "did you mean `manual`", and a file with misspelt keys hid its bad benchmark type until they
were fixed). Each problem is its own `file:line: field: message` line, in the file's order; exit 2 as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from srt_tui.cli.main import main
from srt_tui.core.benchmark import benchmark_problems
from srt_tui.core.engines import get_engine
from srt_tui.core.frontends.routers import get_router
from srt_tui.core.spec.recipe import BenchmarkSpec
from tests.conftest import REPO

RECIPE = (REPO / "recipes" / "mocker" / "mocker-1p2d.yaml").read_text()


def _errors(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    rc = main(list(argv))
    return rc, capsys.readouterr().err.splitlines()


def _line(text: str, words: str) -> int:
    """The 1-based line of `text` that holds `words`."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if words in line)


def test_two_unknown_keys_and_a_bad_benchmark_type_are_each_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        RECIPE.replace("profiles: [", "profile: [")
        .replace("    workers: 2\n", "    worker: 2\n")
        .replace("  type: manual", "  type: manaul")
    )
    recipe = tmp_path / "typos.yaml"
    recipe.write_text(text)
    rc, err = _errors(capsys, "dry-run", "-f", str(recipe), "-p", "local")
    assert rc == 2
    types = (
        "custom, gpqa, gsm8k, longbenchv2, manual, mmlu, mooncake-router, router, sa-bench, sglang-bench, trace-replay"
    )
    assert err == [
        f"srt-tui: error: {recipe}:{_line(text, 'profile:')}: profile: unknown key `profile` "
        "(fix: did you mean `profiles`?)",
        f"srt-tui: error: {recipe}:{_line(text, 'worker: 2')}: roles.decode.worker: unknown key `worker` "
        "(fix: did you mean `workers`?)",
        f"srt-tui: error: {recipe}:{_line(text, 'manaul')}: benchmark.type: unknown benchmark type `manaul` "
        f"(srtctl has no runner for it) (fix: did you mean `manual`? (one of: {types}))",
    ]


def test_a_bad_benchmark_type_alone_names_the_nearest_type(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recipe = tmp_path / "manaul.yaml"
    recipe.write_text(RECIPE.replace("  type: manual", "  type: manaul"))
    rc, err = _errors(capsys, "dry-run", "-f", str(recipe), "-p", "local")
    assert rc == 2 and len(err) == 1, err
    assert (
        err[0].startswith(f"srt-tui: error: {recipe}:") and "benchmark.type: unknown benchmark type `manaul`" in err[0]
    )
    assert "(fix: did you mean `manual`? (one of: custom, " in err[0]


def test_a_refused_type_keeps_its_reason_beside_other_typos(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recipe = tmp_path / "lm.yaml"
    recipe.write_text(RECIPE.replace("  type: manual", "  type: lm-eval").replace("profiles: [", "profile: ["))
    rc, err = _errors(capsys, "dry-run", "-f", str(recipe), "-p", "local")
    assert rc == 2 and len(err) == 2, err
    assert "benchmark.type: `lm-eval` is not run by srt-tui" in err[1] and "INFMAX_WORKSPACE" in err[1]


def test_a_variant_reports_its_bad_type_under_its_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recipe = tmp_path / "ov.yaml"
    recipe.write_text(
        "base:\n  name: ov\n  model: {path: mock-model, contaner: x}\n  engine: mocker\n"
        "  roles: {agg: {nodes: 1, workers: 1}}\noverride_a:\n  benchmark: {type: sa-bnech}\n"
    )
    rc, err = _errors(capsys, "dry-run", "-f", f"{recipe}:override_a", "-p", "local")
    assert rc == 2 and len(err) == 2, err
    assert "override_a.model.contaner: unknown key `contaner`" in err[0]
    assert err[1].startswith(f"srt-tui: error: {recipe}:7: override_a.benchmark.type: unknown benchmark type")
    assert "did you mean `sa-bench`?" in err[1]


def test_a_closed_value_in_a_union_names_the_nearest_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`roles.decode.nodes` is a count or `colocate`: a misspelt `colocate` was only told "an integer or one of"."""
    recipe = tmp_path / "colocat.yaml"
    recipe.write_text(RECIPE.replace("    nodes: 2\n", "    nodes: colocat\n"))
    rc, err = _errors(capsys, "dry-run", "-f", str(recipe), "-p", "local")
    assert rc == 2 and len(err) == 1 and err[0].endswith("(fix: did you mean `colocate`?)"), err


def test_a_bad_item_in_a_list_or_string_union_is_reported_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Operator: `concurrencies: [2, x]` (a list of integers or a `2x8` string) gave the item's integer error and
    then `benchmark.concurrencies: Input should be a valid string`, the union's other branch, which only misled."""
    recipe = tmp_path / "conc.yaml"
    assert "benchmark:\n  type: manual\n" in RECIPE
    text = RECIPE.replace("benchmark:\n  type: manual\n", "benchmark:\n  type: sa-bench\n  concurrencies: [2, x]\n")
    recipe.write_text(text)
    rc, err = _errors(capsys, "dry-run", "-f", str(recipe), "-p", "local")
    at = f"srt-tui: error: {recipe}:{_line(text, 'concurrencies')}: "
    assert rc == 2 and err == [
        at + "benchmark.concurrencies.1: Input should be a valid integer, unable to parse string as an integer "
        "(got 'x') (fix: use an integer)"
    ], err
    recipe.write_text(text.replace("[2, x]", "{a: 1}"))  # neither branch takes a mapping: both are said
    rc, err = _errors(capsys, "dry-run", "-f", str(recipe), "-p", "local")
    assert rc == 2 and err == [at + "benchmark.concurrencies: invalid value (fix: use a list or a string)"], err


def test_a_profile_lists_its_typos_in_file_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        (REPO / "profiles" / "local.yaml")
        .read_text()
        .replace("gpus_per_node: 8", "gpu_per_node: 8")
        .replace("container_runtime: none", "container_runtime: nonee")
    )
    profile = tmp_path / "typos.yaml"
    profile.write_text(text)
    rc, err = _errors(capsys, "profiles", "show", str(profile))
    assert rc == 2
    assert err == [
        f"srt-tui: error: {profile}:{_line(text, 'gpu_per_node')}: gpu_per_node: unknown key `gpu_per_node` "
        "(fix: did you mean `gpus_per_node`?)",
        f"srt-tui: error: {profile}:{_line(text, 'nonee')}: container_runtime: Input should be 'pyxis' or 'none' "
        "(got 'nonee') (fix: did you mean `none`?)",
    ]


@pytest.mark.parametrize(
    ("bench", "field", "hint"),
    [
        ({"type": "mooncake-router", "mooncake_workload": "mooncak"}, "benchmark.mooncake_workload", "`mooncake`"),
        ({"type": "sa-bench", "dataset_name": "custm"}, "benchmark.dataset_name", "`custom`"),
    ],
    ids=["mooncake_workload", "dataset_name"],
)
def test_a_benchmark_types_own_closed_values_name_the_nearest_one(bench: dict[str, str], field: str, hint: str) -> None:
    problems = benchmark_problems(
        BenchmarkSpec.model_validate(bench), get_engine("sglang"), get_router("sglang-router"), True
    )
    mine = [p for p in problems if p.field == field]
    assert len(mine) == 1 and mine[0].hint.startswith(f"did you mean {hint}?"), problems


def test_a_misspelt_dynamo_mocker_parameter_names_the_nearest_one() -> None:
    problems = get_engine("mocker").dynamo_config_problems({"speedup_rato": 2.0})
    assert [p.field for p in problems] == ["engine.config.speedup_rato"]
    assert problems[0].hint.startswith("did you mean `speedup_ratio`? (use one of: ")
