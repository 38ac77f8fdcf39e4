"""`dry-run` and `apply` of a file holding several jobs (a sweep) through the real console script."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import REPO
from tests.core.core_helpers import cli

AGG = REPO / "recipes" / "mocker" / "mocker-agg-direct.yaml"


def sweep(tmp_path: Path, block: str, extra: str = "") -> Path:
    text = AGG.read_text().replace("name: mocker-agg-direct", f"name: msweep\nsweep:\n{block}\n{extra}")
    path = tmp_path / "msweep.yaml"
    for key, value in (("osl", 4), ("isl", 32)):  # filled from the sweep when it sweeps them
        if f"  {key}:" in block:
            text = text.replace(f"  {key}: {value}", f'  {key}: "{{{key}}}"')
    path.write_text(text)
    return path


def test_dry_run_prints_the_expansion_with_the_values_that_differ(tmp_path: Path) -> None:
    recipe = sweep(tmp_path, "  isl: [32, 64]\n  osl: [4, 8]")
    proc = cli("dry-run", "-f", str(recipe), "-p", "local", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"{recipe}: 4 jobs"
    assert lines[1].split() == ["JOB", "NAME", "benchmark.isl", "benchmark.osl", "CHECK"]
    assert [ln.split()[:4] for ln in lines[2:6]] == [
        ["sweep[0]", "msweep_isl32_osl4", "32", "4"],
        ["sweep[1]", "msweep_isl32_osl8", "32", "8"],
        ["sweep[2]", "msweep_isl64_osl4", "64", "4"],
        ["sweep[3]", "msweep_isl64_osl8", "64", "8"],
    ]
    assert all("ok: agg1 on 1 node(s)" in ln for ln in lines[2:6])
    doc = json.loads(cli("dry-run", "-f", str(recipe), "-p", "local", "--json", cwd=tmp_path).stdout)
    assert [d["values"] for d in doc][1] == {"benchmark.isl": "32", "benchmark.osl": "8"}
    assert all(d["valid"] and d["plan"]["name"] == d["name"] for d in doc)


def test_a_parameter_filled_in_two_places_is_one_column(tmp_path: Path) -> None:
    recipe = sweep(tmp_path, "  n: [4, 8]")
    recipe.write_text(recipe.read_text().replace("  osl: 4", '  osl: "{n}"').replace("  isl: 32", '  isl: "{n}"'))
    lines = cli("dry-run", "-f", str(recipe), "-p", "local", cwd=tmp_path).stdout.splitlines()
    assert lines[1].split() == ["JOB", "NAME", "benchmark.isl", "(+1)", "CHECK"]


def test_an_invalid_member_is_named_and_nothing_is_submitted(tmp_path: Path) -> None:
    recipe = sweep(tmp_path, "  osl: [4, -1]")
    proc = cli("dry-run", "-f", str(recipe), "-p", "local", cwd=tmp_path)
    assert proc.returncode == 2
    assert "sweep[1]  msweep_osl-1" in proc.stdout and "INVALID (below)" in proc.stdout
    assert any(ln.startswith("sweep[1]: ") and "osl" in ln for ln in proc.stdout.splitlines())
    out = tmp_path / "out"
    proc = cli("apply", "-f", str(recipe), "-p", "local", "-y", "-o", str(out), cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "sweep[1] (msweep_osl-1)" in proc.stderr and "nothing submitted" in proc.stderr
    assert not out.exists() or not any(out.iterdir())


def test_dry_run_output_dir_needs_one_member(tmp_path: Path) -> None:
    recipe = sweep(tmp_path, "  osl: [4, 8]")
    proc = cli("dry-run", "-f", str(recipe), "-p", "local", "-o", str(tmp_path / "o"), cwd=tmp_path)
    assert proc.returncode == 2
    assert f"holds 2 jobs; -o writes the files of one (fix: pick one: -f {recipe}:sweep[0] -o DIR)" in proc.stderr


ONE_P_ONE_D = REPO / "recipes" / "mocker" / "mocker-1p1d.yaml"


def test_a_parameter_no_placeholder_uses_is_refused_with_the_field_to_fill(tmp_path: Path) -> None:
    """Operator pass (op9, 1): `sweep: {osl: [8, 16]}` on a copy of mocker-1p1d that keeps `benchmark.osl: 8` listed
    `…_osl8` and `…_osl16` as ok, both running `--osl 8`, and apply would have submitted two copies."""
    recipe = tmp_path / "msw.yaml"
    recipe.write_text(ONE_P_ONE_D.read_text() + "sweep:\n  osl: [8, 16]\n")
    line = len(recipe.read_text().splitlines())
    proc = cli("dry-run", "-f", str(recipe), "-p", "local", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "") and "Traceback" not in proc.stderr
    assert proc.stderr == (
        f"srt-tui: error: {recipe}:{line}: sweep.osl: no `{{osl}}` in the recipe uses this parameter: every member "
        "(osl8, osl16) would be the same job under another name (fix: write `{osl}` in the field it should set, "
        'e.g. `benchmark.osl: "{osl}"`, or remove `osl` from `sweep:`)\n'
    )
    out = tmp_path / "out"
    proc = cli("apply", "-f", str(recipe), "-p", "local", "-y", "-o", str(out), cwd=tmp_path)
    assert proc.returncode == 2 and "sweep.osl: no `{osl}`" in proc.stderr and "Traceback" not in proc.stderr
    assert not out.exists() or not any(out.iterdir())
    # written unquoted, `{osl}` is a YAML mapping srtctl does not fill either: the fix says to quote it
    recipe.write_text(recipe.read_text().replace("  osl: 8\n", "  osl: {osl}\n"))
    proc = cli("dry-run", "-f", str(recipe), "-p", "local", cwd=tmp_path)
    assert proc.returncode == 2
    assert '(fix: quote it: `osl: "{osl}"` (YAML reads `benchmark.osl: {osl}` unquoted as a mapping))' in proc.stderr
    recipe.write_text(recipe.read_text().replace("  osl: {osl}\n", '  osl: "{osl}"\n'))
    assert cli("dry-run", "-f", str(recipe), "-p", "local", cwd=tmp_path).returncode == 0


def test_members_that_would_run_one_job_are_refused(tmp_path: Path) -> None:
    """A value listed twice, two parameters filled alike (`{a}{b}`: 1|11 and 11|1), and a parameter only a field no
    launch reads uses (`description:`): each would submit one job twice under two names."""
    recipe = sweep(tmp_path, "  osl: [4, 8, 4]")
    proc = cli("dry-run", "-f", str(recipe), "-p", "local", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "sweep.osl: lists 4 twice: two members would run the same job (fix: list each value once)" in proc.stderr
    recipe = sweep(tmp_path, "  a: [1, 11]\n  b: [11, 1]")
    recipe.write_text(recipe.read_text().replace("  osl: 4", '  osl: "{a}{b}"'))
    proc = cli("dry-run", "-f", str(recipe), "-p", "local", cwd=tmp_path)
    assert proc.returncode == 2
    assert "sweep: sweep[3] (msweep_a11_b1) would run the same job as sweep[0] (msweep_a1_b11)" in proc.stderr
    recipe = sweep(tmp_path, "  osl: [4, 8]")
    recipe.write_text(recipe.read_text().replace('  osl: "{osl}"', "  osl: 4") + 'description: "osl {osl}"\n')
    proc = cli("dry-run", "-f", str(recipe), "-p", "local", cwd=tmp_path)
    assert proc.returncode == 2 and "sweep[1]  msweep_osl8" in proc.stdout and "INVALID (below)" in proc.stdout
    assert (
        "sweep[1]: sweep: runs the same launch script as sweep[0] (msweep_osl4), only the name differs" in proc.stdout
    )
    out = tmp_path / "out"
    proc = cli("apply", "-f", str(recipe), "-p", "local", "-y", "-o", str(out), cwd=tmp_path)
    assert proc.returncode == 2 and "sweep[1] (msweep_osl8)" in proc.stderr and "nothing submitted" in proc.stderr
    assert not out.exists() or not any(out.iterdir())
