"""`dry-run -f DIR` and several `-f` (issue 22): every job of every file checked in one process, one line each,
a tally, `--json` for tools, exit 2 when any job is refused — through the real console script."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from tests.conftest import REPO
from tests.core.core_helpers import cli

AGG = (REPO / "recipes" / "mocker" / "mocker-agg-direct.yaml").read_text(encoding="utf-8")
OVERRIDE = """\
base:
  name: ovr
  profiles: [local]
  model: {path: mock-model}
  frontend: {type: sglang, enable_multiple_frontends: false}
  engine: mocker
  roles: {agg: {nodes: 1, workers: 1, args: {tp-size: 8}}}
override_two:
  roles: {agg: {nodes: 2, workers: 2}}
override_bad:
  roles: {agg: {gpus: 3}}
"""


def library(root: Path) -> Path:
    """Two good recipes in nested folders, an override file with one bad variant, and a broken file."""
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "one.yaml").write_text(AGG.replace("name: mocker-agg-direct", "name: one"), encoding="utf-8")
    (root / "a" / "b" / "two.yml").write_text(AGG.replace("name: mocker-agg-direct", "name: two"), encoding="utf-8")
    (root / "a" / "ovr.yaml").write_text(OVERRIDE, encoding="utf-8")
    (root / "broken.yaml").write_text("name: x\nmodel: [unclosed\n", encoding="utf-8")
    (root / "notes.txt").write_text("not a recipe", encoding="utf-8")
    return root


def test_a_directory_is_checked_job_by_job_with_a_tally(tmp_path: Path) -> None:
    root = library(tmp_path / "lib")
    proc = cli("dry-run", "-f", str(root), "-p", "local", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    head, *lines = proc.stdout.splitlines()
    assert head.startswith("profile: local (-p local: ") and head.endswith(", every job"), head
    verdicts = [(ln.split()[0], ln.split()[1].removeprefix(str(root) + "/")) for ln in lines if ln.strip()][:-1]
    assert verdicts == [
        ("ok", "a/b/two.yml"),
        ("ok", "a/one.yaml"),
        ("ok", "a/ovr.yaml:override_two"),
        ("refused", "a/ovr.yaml:override_bad"),
        ("refused", "broken.yaml"),
    ]
    assert "one: agg1 on 1 node(s)" in lines[1]
    assert "invalid YAML" in lines[4] and "  line " in lines[4] and str(root / "broken.yaml:") not in lines[4]
    assert "roles.agg.gpus" in lines[3]
    assert lines[-1] == "5 jobs in 4 files: 3 ok, 2 refused"


def test_json_says_the_same_for_tools(tmp_path: Path) -> None:
    root = library(tmp_path / "lib")
    proc = cli("dry-run", "-f", str(root), "-p", "local", "--json", cwd=tmp_path)
    assert proc.returncode == 2
    doc = json.loads(proc.stdout)
    assert (doc["files"], doc["jobs"], doc["ok"], doc["refused"]) == (4, 5, 3, 2)
    bad = [r for r in doc["results"] if not r["ok"]]
    assert [Path(r["spec"]).name for r in bad] == ["ovr.yaml:override_bad", "broken.yaml"]
    assert all(r["problems"] for r in bad)
    good = [r for r in doc["results"] if r["ok"]]
    assert all(r["topology"] and r["nodes"] >= 1 and not r["problems"] for r in good)


def test_several_files_and_a_clean_library_exit_zero(tmp_path: Path) -> None:
    root = library(tmp_path / "lib")
    proc = cli("dry-run", "-f", str(root / "a" / "one.yaml"), "-f", str(root / "a" / "b"), "-p", "local", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "2 jobs in 2 files: 2 ok, 0 refused"


def test_output_dir_and_a_missing_path_are_refused_in_one_line(tmp_path: Path) -> None:
    root = library(tmp_path / "lib")
    proc = cli("dry-run", "-f", str(root), "-o", str(tmp_path / "out"), cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.startswith("srt-tui: error: -o/--output:")
    proc = cli("dry-run", "-f", str(root), "-f", str(tmp_path / "nope.yaml"), cwd=tmp_path)
    assert proc.returncode == 2 and "nope.yaml" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()


#: srtctl's `examples/enable-profiling.yaml` in short: three keys its `profiling:` block does not take
THREE_WRONG = AGG + "profiling:\n  type: torch\n  isl: 1024\n  osl: 128\n  concurrency: 1\n"


def test_a_job_refused_for_several_reasons_says_how_to_see_them_all(tmp_path: Path) -> None:
    """Operator pass: srtctl's `enable-profiling` example read `… unknown key `isl` (…) (+2 more)`, with no way to
    the other two. The line stays one line, and names the command that shows them all (quoted for the shell,
    with the `-p` this run was given); that command does show all three."""
    root = tmp_path / "lib"
    (root / "odd dir").mkdir(parents=True)
    (root / "odd dir" / "prof.yaml").write_text(THREE_WRONG, encoding="utf-8")
    (root / "ok.yaml").write_text(AGG, encoding="utf-8")
    proc = cli("dry-run", "-f", str(root), "-p", "local", cwd=tmp_path)
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("refused"))
    again = f"srt-tui dry-run -f '{root / 'odd dir' / 'prof.yaml'}' -p local"
    assert "profiling.isl: unknown key" in line and line.endswith(f" (+2 more: {again})"), line
    proc = cli(*shlex.split(again)[1:], cwd=tmp_path)
    assert proc.returncode == 2 and all(
        f"profiling.{k}: unknown key" in proc.stderr for k in ("isl", "osl", "concurrency")
    )


def test_which_profile_each_job_was_checked_against_is_said(tmp_path: Path) -> None:
    """Operator pass: `dry-run -f DIR` tallied `657 ok, 26 refused` without srtslurm.yaml and `667 ok, 4 refused`
    with one, without saying which profile either run checked. It says so once at the top (and where it came
    from), and on a job's line when that job's profile is another (a recipe's own `profiles:`); --json too."""
    root = library(tmp_path / "lib")
    own = AGG.replace("name: mocker-agg-direct", "name: rocr")
    own = own.replace("profiles: [local, local-rocr]", "profiles: [local-rocr]")
    assert "profiles: [local-rocr]" in own
    (root / "a" / "rocr.yaml").write_text(own, encoding="utf-8")
    here = tmp_path / "here"
    here.mkdir()

    lines = cli("dry-run", "-f", str(root), cwd=here).stdout.splitlines()
    assert lines[0].startswith("profile: local (the default: no -p and no srtslurm.yaml found"), lines[0]
    rows = {ln.split()[1].removeprefix(str(root) + "/"): ln for ln in lines if ln.startswith(("ok ", "refused "))}
    assert rows["a/rocr.yaml"].endswith("· profile local-rocr (the recipe's profiles:)"), rows["a/rocr.yaml"]
    assert "· profile" not in rows["a/one.yaml"] and "· profile" not in rows["broken.yaml"]

    given = cli("dry-run", "-f", str(root), "-p", "local-rocr", cwd=here).stdout.splitlines()
    assert given[0] == f"profile: local-rocr (-p local-rocr: {REPO / 'profiles' / 'local-rocr.yaml'}), every job"
    assert not [ln for ln in given if ln.startswith(("ok ", "refused ")) and "· profile" in ln]

    (here / "srtslurm.yaml").write_text((REPO / "profiles" / "local.yaml").read_text(), encoding="utf-8")
    found = cli("dry-run", "-f", str(root), "--json", cwd=here)
    doc = json.loads(found.stdout)
    srtslurm = {"name": "here", "path": str(here / "srtslurm.yaml"), "from": "srtslurm.yaml"}
    assert doc["profile"] == srtslurm, doc["profile"]
    assert {r["spec"]: r["profile"] for r in doc["results"]}[str(root / "a" / "rocr.yaml")] == srtslurm
    assert {r["spec"]: r["profile"] for r in doc["results"]}[str(root / "broken.yaml")] is None
    text = cli("dry-run", "-f", str(root), cwd=here).stdout.splitlines()
    assert text[0] == f"profile: here (srtslurm.yaml found at {here / 'srtslurm.yaml'}), every job", text[0]


def _with_model(root: Path, model: Path) -> Path:
    """An sglang recipe whose model directory is a path this node can check."""
    text = (
        f"name: paths\nmodel: {{path: {model}}}\nengine: sglang\n"
        "roles: {agg: {nodes: 1, workers: 1, args: {tp-size: 8}}}\nfrontend: {type: sglang-router}\n"
    )
    path = root / "z" / "paths.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_preflight_takes_a_directory_and_several_files_as_dry_run_does(tmp_path: Path) -> None:
    """Operator pass (op9, 13): `preflight -f DIR` was refused as "a directory, not a YAML file" while `dry-run -f
    DIR` checked a library; now a line per job (ok, missing, refused) and a tally, in dry-run's shape."""
    root = library(tmp_path / "lib")
    model = tmp_path / "models" / "m"
    recipe = _with_model(root, model)
    proc = cli("preflight", "-f", str(root), "-p", "local", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    head, *lines = proc.stdout.splitlines()
    assert head.startswith("profile: local (-p local: ") and head.endswith(", every job"), head
    verdicts = [(ln.split()[0], ln.split()[1].removeprefix(str(root) + "/")) for ln in lines if ln.strip()][:-1]
    assert verdicts == [
        ("ok", "a/b/two.yml"),
        ("ok", "a/one.yaml"),
        ("ok", "a/ovr.yaml:override_two"),
        ("ok", "a/ovr.yaml:override_bad"),  # its GPUs are dry-run's business; its paths are fine
        ("refused", "broken.yaml"),
        ("missing", "z/paths.yaml"),
    ]
    assert lines[1].endswith("one: model-unused") and "invalid YAML" in lines[4]
    assert f"paths: model.path [model-not-available]: {model} does not exist" in lines[5]
    assert lines[-1] == "6 jobs in 5 files: 4 ok, 1 missing paths, 1 refused"
    # several -f, none refused: 1 while a path is missing, 0 once it is there; -v lists every check
    proc = cli("preflight", "-f", str(root / "a" / "one.yaml"), "-f", str(recipe), "-p", "local", cwd=tmp_path)
    assert (
        proc.returncode == 1 and proc.stdout.splitlines()[-1] == "2 jobs in 2 files: 1 ok, 1 missing paths, 0 refused"
    )
    model.mkdir(parents=True)
    proc = cli("preflight", "-f", str(root / "a"), "-f", str(recipe), "-p", "local", "-v", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert f"- model.path [model-available]: {model} exists" in proc.stdout
    assert proc.stdout.splitlines()[-1] == "5 jobs in 4 files: 5 ok, 0 missing paths, 0 refused"
