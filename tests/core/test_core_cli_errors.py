"""Bad profiles and recipes: the real `srt-tui` exits 2 with one clear message naming file, line, field
and a fix — never a traceback. A broken profile is listed as INVALID without breaking the listing.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.core.core_helpers import PROFILES_DIR, cli

GOOD_RECIPE = """\
name: good
model: {path: mock-model}
engine: mocker
roles:
  agg: {nodes: 1, workers: 1}
frontend: {type: none}
"""


@dataclass(frozen=True)
class Case:
    """A broken input and what its one error line must say."""

    id: str
    recipe: str | None  # recipe text (None: use GOOD_RECIPE)
    profile: str | None  # profile text written to bad-profile.yaml (None: the shipped `local`)
    args: tuple[str, ...]
    must: tuple[str, ...]  # substrings of the error line
    located: str | None  # "recipe" / "profile": the line must start with that file and a line number


CASES = [
    Case(
        "recipe-unknown-key",
        GOOD_RECIPE.replace("agg: {nodes: 1, workers: 1}", "agg: {nodes: 1, wokers: 1}"),
        None,
        (),
        ("roles.agg.wokers", "unknown key", "did you mean `workers`"),
        "recipe:5",
    ),
    Case(
        "recipe-unknown-top-level-key",
        GOOD_RECIPE + "enviroment: {A: b}\n",
        None,
        (),
        ("enviroment", "did you mean `environment`"),
        "recipe:7",
    ),
    Case(
        "recipe-wrong-type",
        GOOD_RECIPE.replace("workers: 1", "workers: lots"),
        None,
        (),
        ("roles.agg.workers", "'lots'", "fix: use an integer"),
        "recipe:5",
    ),
    Case(
        "recipe-wrong-enum",
        GOOD_RECIPE.replace("engine: mocker", "engine: mockr"),
        None,
        (),
        ("engine.type", "did you mean `mocker`"),
        "recipe:3",
    ),
    Case(
        "impossible-topology",
        GOOD_RECIPE.replace("agg: {nodes: 1, workers: 1}", "agg: {nodes: 1, workers: 3, gpus: 4}").replace(
            "type: none", "type: sglang-router"
        ),
        None,
        (),
        ("roles.agg.nodes", "3 worker(s)", "fix: set roles.agg.nodes: 2"),
        "recipe:5",
    ),
    Case(
        "tp-mismatch",
        GOOD_RECIPE.replace("engine: mocker", "engine: sglang")
        .replace("agg: {nodes: 1, workers: 1}", "agg: {nodes: 1, workers: 2, gpus: 4, args: {tp-size: 8}}")
        .replace("type: none", "type: sglang-router"),
        None,
        (),
        ("roles.agg.args.tp-size", "TP 8 = 8 GPUs", "fix: give roles.agg.gpus: 8, or lower"),
        "recipe:5",
    ),
    Case(
        "pd-missing-decode",
        GOOD_RECIPE.replace("agg: {nodes: 1, workers: 1}", "prefill: {nodes: 1, workers: 1}").replace(
            "type: none", "type: sglang-router"
        ),
        None,
        (),
        ("roles.decode", "decode workers too", "fix:"),
        "recipe",
    ),
    Case(
        "router-engine-mismatch",
        GOOD_RECIPE.replace("engine: mocker", "engine: vllm").replace("type: none", "type: sglang-router"),
        None,
        (),
        ("frontend.type", "sglang-router cannot front vllm", "fix: use one of"),
        "recipe:6",
    ),
    Case(
        "duplicate-managed-flag",
        GOOD_RECIPE.replace("engine: mocker", "engine: sglang").replace(
            "agg: {nodes: 1, workers: 1}", "agg: {nodes: 1, workers: 1, args: {port: 9999}}"
        ),
        None,
        (),
        ("roles.agg.args.port", "managed by srt-tui", "fix: remove `port`"),
        "recipe:5",
    ),
    Case("invalid-yaml", "name: x\nmodel: {path: [\n", None, (), ("invalid YAML", "fix:"), "recipe:3"),
    Case(
        "recipe-name-pattern",
        GOOD_RECIPE.replace("name: good", "name: 'bad name; rm -rf /'"),
        None,
        (),
        ("name", "pattern", "fix:"),
        "recipe:1",
    ),
    Case("missing-file", None, None, ("-f", "no-such-recipe.yaml"), ("no-such-recipe.yaml", "not found", "fix:"), None),
    Case(
        "unknown-profile-name",
        GOOD_RECIPE,
        None,
        ("-p", "locall"),
        ("--profile", "no profile named `locall`", "did you mean `local`"),
        None,
    ),
    Case("missing-profile-file", GOOD_RECIPE, None, ("-p", "./nope.yaml"), ("nope.yaml", "not found", "fix:"), None),
    Case(
        "profile-unknown-key",
        GOOD_RECIPE,
        "gpus_per_node: 8\ncontainer_runtime: none\nnetwork_interfce: eth0\n",
        (),
        ("network_interfce", "did you mean `network_interface`"),
        "profile:3",
    ),
    Case(
        "profile-wrong-type",
        GOOD_RECIPE,
        "gpus_per_node: eight\ncontainer_runtime: none\n",
        (),
        ("gpus_per_node", "'eight'", "fix: use an integer"),
        "profile:1",
    ),
    Case(
        "profile-bad-runtime",
        GOOD_RECIPE,
        "gpus_per_node: 8\ncontainer_runtime: docker\n",
        (),
        ("container_runtime", "'docker'", "fix:"),
        "profile:2",
    ),
    Case(
        "malformed-extra-mount",
        GOOD_RECIPE.replace("{path: mock-model}", "{path: /models/m, container: /c/img.sqsh}")
        + "extra_mount:\n  - /data:/data:ro\n  - /x:y:/z\n",
        "gpus_per_node: 8\n",
        (),
        ("extra_mount.1", "/x:y:/z", "fix:"),
        "recipe:9",
    ),
    Case("bad-topology-string", GOOD_RECIPE, None, ("-t", "3X"), ("--topology", "3X", "fix:"), None),
    Case(
        "topology-mode-change",
        GOOD_RECIPE,
        None,
        ("-t", "1P1D"),
        ("--topology", "aggregated", "fix:"),
        None,
    ),
]


def _run_case(case: Case, folder: Path) -> tuple[Path, subprocess.CompletedProcess[str]]:
    recipe = folder / "bad-recipe.yaml"
    recipe.write_text(case.recipe if case.recipe is not None else GOOD_RECIPE, encoding="utf-8")
    args = ["dry-run", "-f", str(recipe)]
    if case.profile is not None:
        (folder / "bad-profile.yaml").write_text(case.profile, encoding="utf-8")
        args += ["-p", str(folder / "bad-profile.yaml")]
    elif "-p" not in case.args:
        args += ["-p", "local"]
    if "-f" in case.args:
        args = ["dry-run", *case.args, "-p", "local"]
    else:
        args += list(case.args)
    return folder, cli(*args, cwd=folder)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, subprocess.CompletedProcess[str]]]:
    """Every case through the console script, a few at a time (each is a fresh process)."""
    folders = [tmp_path_factory.mktemp(case.id) for case in CASES]
    with ThreadPoolExecutor(max(2, os.cpu_count() or 2)) as pool:
        done = list(pool.map(_run_case, CASES, folders))
    return {case.id: result for case, result in zip(CASES, done)}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_exits_2_with_one_clear_message(
    case: Case, outcomes: dict[str, tuple[Path, subprocess.CompletedProcess[str]]]
) -> None:
    folder, proc = outcomes[case.id]
    recipe = folder / "bad-recipe.yaml"
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, f"expected one message, got:\n{proc.stderr}"
    line = lines[0]
    assert line.startswith("srt-tui: error: ")
    for part in case.must:
        assert part in line, f"{part!r} missing from: {line}"
    assert "(fix: " in line and line.endswith(")"), f"no fix hint: {line}"
    if case.located:
        kind, _, number = case.located.partition(":")
        path = recipe if kind == "recipe" else folder / "bad-profile.yaml"
        m = re.match(r"srt-tui: error: (.+?):(\d+): ", line)
        assert m, f"no file:line in {line}"
        assert Path(m.group(1)).name == path.name
        if number:
            assert m.group(2) == number, f"wrong line in {line}"


def test_several_problems_each_get_one_line(tmp_path: Path) -> None:
    recipe = tmp_path / "two.yaml"
    recipe.write_text(GOOD_RECIPE.replace("engine: mocker", "engine: mockr").replace("workers: 1", "wokers: 1"))
    proc = cli("dry-run", "-f", str(recipe), "-p", "local", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 2 and all(line.startswith("srt-tui: error: ") for line in lines)
    assert any("engine.type" in line for line in lines) and any("roles.agg.wokers" in line for line in lines)


def _user_profiles(tmp_path: Path) -> Path:
    folder = tmp_path / ".srt-tui-config" / "profiles"
    folder.mkdir(parents=True)
    (folder / "broken-key.yaml").write_text("gpus_per_node: 8\nnetwork_interfce: eth0\n")
    (folder / "broken-yaml.yaml").write_text("gpus_per_node: [8\n")
    return folder


def test_profiles_lists_broken_profiles_as_invalid(tmp_path: Path) -> None:
    _user_profiles(tmp_path)
    proc = cli("profiles", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    rows = {line.split()[0]: line for line in proc.stdout.splitlines()[1:] if line.strip()}
    assert "INVALID" in rows["broken-key"] and "INVALID" in rows["broken-yaml"]
    shipped = {p.stem for p in PROFILES_DIR.glob("*.yaml")}
    assert shipped <= set(rows), "a broken user profile hid the shipped ones"
    assert all("INVALID" not in rows[name] for name in shipped)
    listed = json.loads(cli("profiles", "--json", cwd=tmp_path).stdout)
    broken = {row["name"]: row for row in listed if row["gpus_per_node"] == "INVALID"}
    assert set(broken) == {"broken-key", "broken-yaml"}
    assert "did you mean `network_interface`" in broken["broken-key"]["description"]


def test_profiles_show_of_a_broken_profile_is_a_clean_error(tmp_path: Path) -> None:
    _user_profiles(tmp_path)
    proc = cli("profiles", "show", "broken-key", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert re.match(r"srt-tui: error: .*broken-key\.yaml:2: network_interfce: .*\(fix: ", proc.stderr)


def test_user_profile_shadows_shipped_one_and_dry_run_uses_it(tmp_path: Path) -> None:
    folder = tmp_path / ".srt-tui-config" / "profiles"
    folder.mkdir(parents=True)
    text = (PROFILES_DIR / "local.yaml").read_text().replace("default_partition: gpu", "default_partition: mine")
    (folder / "local.yaml").write_text(text)
    recipe = tmp_path / "r.yaml"
    recipe.write_text(GOOD_RECIPE)
    proc = cli("dry-run", "-f", str(recipe), "-p", "local", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert ["partition", "mine"] in json.loads(proc.stdout)["sbatch_directives"]
