"""Container-less jobs need their programs on the host (issue 21, defect 10): with `container_runtime: none`
a job starting `nginx` (or Dynamo's `nats-server`/`etcd`) on a machine without it failed in 0 s with
exit 127. `dry-run` warns, `apply` on this machine refuses before anything runs, naming the program and
the fix; with a container nothing is asked of the host. The real CLI runs with a PATH lacking nginx."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from srt_tui.core.api import prepare
from srt_tui.core.plan import host_programs
from srt_tui.core.plan.host_programs import missing_programs
from tests.conftest import REPO

NGINX = str(REPO / "recipes" / "mocker" / "mocker-agg3-nginx.yaml")


@pytest.fixture
def bare_path(tmp_path: Path) -> str:
    """A PATH holding this Python as `python3` and the shell tools the local launcher uses — no nginx."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(Path(sys.executable).resolve())
    for tool in ("bash", "setsid", "env"):
        found = subprocess.run(["bash", "-c", f"command -v {tool}"], capture_output=True, text=True).stdout.strip()
        if found:
            (bin_dir / tool).symlink_to(found)
    return str(bin_dir)


def _srt(bare_path: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": bare_path, "PYTHONPATH": str(REPO), "SLURM_CONF": str(tmp_path / "none.conf")}
    return subprocess.run(
        [sys.executable, "-m", "srt_tui.cli", *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60
    )


def test_missing_programs_are_named_with_the_processes_and_the_fix(
    bare_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", bare_path)
    missing = missing_programs(prepare(NGINX, "local").plan)
    assert [m.program for m in missing] == ["nginx"]
    problem = missing[0].problem()
    assert "nginx" in problem.message and "apt-get install nginx" in problem.hint
    assert missing_programs(prepare(str(REPO / "recipes/mocker/mocker-agg2.yaml"), "local").plan) == []
    # a container brings its programs: nothing is asked of the login node
    assert missing_programs(prepare(str(REPO / "recipes/nvidia/h100-2p1d-sglang.yaml"), "nvidia-h100").plan) == []


def test_dry_run_warns_and_apply_refuses_before_anything_runs(bare_path: str, tmp_path: Path) -> None:
    dry = _srt(bare_path, tmp_path, "dry-run", "-f", NGINX, "-p", "local")
    assert dry.returncode == 0, dry.stderr
    warning = [line for line in dry.stderr.splitlines() if "nginx" in line]
    assert warning and warning[0].startswith("srt-tui: warning:") and "fix: apt-get install nginx" in warning[0]
    out = tmp_path / "out"
    applied = _srt(bare_path, tmp_path, "apply", "-y", "-f", NGINX, "-p", "local", "-o", str(out))
    assert applied.returncode != 0
    lines = applied.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("srt-tui: error:") and "`nginx` is not on" in lines[0], lines
    assert "Traceback" not in applied.stderr
    assert not out.exists() or not any(out.iterdir())  # nothing was started, no job directory


MOCKER = str(REPO / "recipes" / "mocker" / "mocker-1p1d.yaml")


@pytest.fixture
def other_python(tmp_path: Path) -> str:
    """A PATH whose `python3` is a Python without srt-tui's packages (no site-packages, no PYTHONPATH): the system
    Python a job finds when srt-tui runs from its own virtualenv, not activated."""
    bin_dir = tmp_path / "other-bin"
    bin_dir.mkdir()
    python = bin_dir / "python3"
    python.write_text(f'#!/bin/sh\nunset PYTHONPATH\nexec {Path(sys.executable).resolve()} -S "$@"\n')
    python.chmod(0o755)
    return f"{bin_dir}{os.pathsep}{os.environ['PATH']}"


def test_a_python_that_cannot_import_the_module_a_process_runs_is_named_with_the_fix(
    other_python: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21: `missing_programs` saw `python3` on PATH and passed, though `python3 -m srt_tui.mock` then failed
    with `No module named srt_tui`. Each `python3 -m MODULE` is asked of that Python (find_spec, nothing imported)."""
    monkeypatch.setenv("PATH", other_python)
    missing = missing_programs(prepare(MOCKER, "local").plan)
    interpreter = other_python.split(os.pathsep)[0] + "/python3"
    assert [(m.module, m.processes) for m in missing] == [
        ("srt_tui", ("prefill_0", "decode_0")),
        ("sglang_router", ("router",)),
    ]
    problem = missing[0].problem()
    assert problem.message == (
        f"`srt_tui` is not importable by `python3` ({interpreter}); prefill_0, decode_0 would fail at once"
    )
    assert problem.hint.startswith(f"`{interpreter} -m pip install srt-tui`, or put a Python that has it first")


def test_a_mocker_job_needs_srt_tuis_mock_and_not_the_engine_it_imitates(
    bare_path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mocker stands in for SGLang: its job asks for `srt_tui` (and its router's `sglang_router`), never `sglang`,
    which a job of the real engine asks for, with the environment its processes get (a recipe's PYTHONPATH)."""
    monkeypatch.setenv("PATH", bare_path)
    assert missing_programs(prepare(MOCKER, "local").plan) == []  # this Python has srt-tui and sglang-router
    recipe = tmp_path / "sgl.yaml"
    recipe.write_text(
        "name: sgl\nmodel: {path: mock-model}\nengine: sglang\nfrontend: {type: sglang}\n"
        "roles:\n  agg: {nodes: 1, workers: 1, args: {tp-size: 8}}\n"
    )
    missing = missing_programs(prepare(str(recipe), "local").plan)
    expected = [] if importlib.util.find_spec("sglang") else [("sglang", ("agg_0",))]
    assert [(m.module, m.processes) for m in missing] == expected
    stub = tmp_path / "site" / "sglang"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("")
    recipe.write_text(recipe.read_text() + f"environment: {{PYTHONPATH: {stub.parent}}}\n")
    assert missing_programs(prepare(str(recipe), "local").plan) == []  # found where the job will look


def test_apply_on_this_machine_refuses_a_module_its_python_lacks_and_dry_run_warns(
    other_python: str, tmp_path: Path
) -> None:
    dry = _srt(other_python, tmp_path, "dry-run", "-f", MOCKER, "-p", "local")
    assert dry.returncode == 0, dry.stderr
    assert [ln for ln in dry.stderr.splitlines() if ln.startswith("srt-tui: warning:") and "`srt_tui`" in ln]
    out = tmp_path / "out"
    applied = _srt(other_python, tmp_path, "apply", "-y", "-f", MOCKER, "-p", "local", "-o", str(out))
    assert applied.returncode != 0 and "Traceback" not in applied.stderr
    said = [ln for ln in applied.stderr.splitlines() if "`srt_tui` is not importable by `python3`" in ln]
    assert said and said[0].startswith("srt-tui: error: preflight programs:") and "pip install srt-tui" in said[0]
    assert not out.exists() or not any(out.iterdir())  # nothing was started, no job directory


@pytest.fixture
def dynamo_only_python(tmp_path: Path) -> tuple[str, Path]:
    """A PATH whose `python3` has ai-dynamo's `dynamo` package and no engine (as this machine's: `dynamo.vllm` is
    there, `vllm` is not), and the directory its packages are read from (add an engine there to install it)."""
    site = tmp_path / "dynamo-site"
    (site / "dynamo").mkdir(parents=True)
    (site / "dynamo" / "__init__.py").write_text("")
    bin_dir = tmp_path / "dynamo-bin"
    bin_dir.mkdir()
    python = bin_dir / "python3"
    python.write_text(f'#!/bin/sh\nPYTHONPATH={site} exec {Path(sys.executable).resolve()} -S "$@"\n')
    python.chmod(0o755)
    return f"{bin_dir}{os.pathsep}{os.environ['PATH']}", site


def _dynamo_recipe(tmp_path: Path, engine: str) -> str:
    recipe = tmp_path / f"dynamo-{engine}.yaml"
    recipe.write_text(
        f"name: dynamo-{engine}\nmodel: {{path: mock-model}}\nengine: {engine}\nfrontend: {{type: dynamo}}\n"
        "dynamo: {install: false}\nroles:\n  agg: {nodes: 1, workers: 1, gpus: 1}\n"
    )
    return str(recipe)


def test_a_dynamo_worker_needs_the_engine_its_module_wraps_and_the_mocker_none(
    dynamo_only_python: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21 (op11): `dynamo.vllm` is importable where ai-dynamo is installed, but it imports `vllm`; the check
    asked for `dynamo` alone and passed, and the job failed in a second with `No module named 'vllm'`. Each engine
    adapter declares the package its Dynamo module wraps; Dynamo's own mocker wraps none."""
    path, site = dynamo_only_python
    monkeypatch.setenv("PATH", path)
    found = {
        engine: [(m.module, m.needed_by, m.processes) for m in missing_programs(prepare(recipe, "local").plan)]
        for engine in ("vllm", "sglang", "trtllm", "mocker")
        for recipe in [_dynamo_recipe(tmp_path, engine)]
    }
    assert found["vllm"] == [("vllm", "dynamo.vllm", ("agg_0",))]
    assert found["sglang"] == [("sglang", "dynamo.sglang", ("agg_0",))]
    assert ("tensorrt_llm", "dynamo.trtllm", ("agg_0",)) in found["trtllm"]
    assert found["mocker"] == []
    problem = missing_programs(prepare(_dynamo_recipe(tmp_path, "vllm"), "local").plan)[0].problem()
    assert problem.message.startswith("`vllm`, which `dynamo.vllm` imports, is not importable by `python3` (")
    assert problem.hint.endswith(
        "-m pip install vllm`, or put a Python that has it first on PATH, or run the job in "
        "a container (container_runtime: pyxis)"
    )
    (site / "vllm").mkdir()
    (site / "vllm" / "__init__.py").write_text("")
    host_programs._ANSWERS.clear()  # a missing answer is kept a few seconds; ask the job's Python again
    assert missing_programs(prepare(_dynamo_recipe(tmp_path, "vllm"), "local").plan) == []


def test_dry_run_warns_and_apply_refuses_a_dynamo_engine_its_python_lacks(
    dynamo_only_python: tuple[str, Path], tmp_path: Path
) -> None:
    """The operator's case: `dry-run -p local` said nothing and `apply -p local -y` started a job that died at once."""
    path, _ = dynamo_only_python
    recipe = _dynamo_recipe(tmp_path, "vllm")
    dry = _srt(path, tmp_path, "dry-run", "-f", recipe, "-p", "local")
    assert dry.returncode == 0, dry.stderr
    said = [ln for ln in dry.stderr.splitlines() if "`vllm`, which `dynamo.vllm` imports," in ln]
    assert said and said[0].startswith("srt-tui: warning:") and "pip install vllm" in said[0], dry.stderr
    out = tmp_path / "out"
    applied = _srt(path, tmp_path, "apply", "-y", "-f", recipe, "-p", "local", "-o", str(out))
    assert applied.returncode != 0 and "Traceback" not in applied.stderr
    said = [ln for ln in applied.stderr.splitlines() if "`vllm`, which `dynamo.vllm` imports," in ln]
    assert said and said[0].startswith("srt-tui: error: preflight programs:"), applied.stderr
    assert not out.exists() or not any(out.iterdir())  # nothing was started, no job directory


def test_apply_with_slurm_refuses_a_module_the_login_node_lacks_as_the_wizard_does(
    dynamo_only_python: tuple[str, Path], tmp_path: Path
) -> None:
    """Operator pass op12: with Slurm the missing `vllm` was a note (`the nodes must have it`) and the wizard's Ctrl+N
    submitted the job, which failed in 11 s. Both faces refuse it now, each with its way past it for nodes that have
    it: `--no-preflight` here (on to Slurm, which does not answer in this test), Ctrl+N twice in the wizard."""
    path, _ = dynamo_only_python
    recipe = _dynamo_recipe(tmp_path, "vllm")
    out = tmp_path / "out"
    args = ("apply", "-y", "-f", recipe, "-p", "local", "--launcher", "slurm", "-o", str(out))
    applied = _srt(path, tmp_path, *args)
    assert applied.returncode == 2 and "Traceback" not in applied.stderr, applied.stderr
    said = [ln for ln in applied.stderr.splitlines() if "`vllm`, which `dynamo.vllm` imports," in ln]
    assert said and said[0].startswith("srt-tui: error: preflight programs:"), applied.stderr
    assert said[0].endswith("--no-preflight submits anyway when the job's nodes have it)"), said[0]
    past = _srt(path, tmp_path, *args, "--no-preflight")
    assert past.returncode == 3 and "preflight programs" not in past.stderr, past.stderr  # Slurm does not answer


def test_which_checks_the_operator_may_submit_past(dynamo_only_python: tuple[str, Path], tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """`host_checks` marks what Ctrl+N twice (`submit_prepared(waive_checks=True)`) goes past: with Slurm a module
    (the nodes may have it); with Local a module too (the job's own environment, its profile's bash preamble, may
    bring another Python), never a program missing here, which Local would start here."""
    from srt_tui.slurm.preflight import host_checks

    path, _ = dynamo_only_python
    monkeypatch.setenv("PATH", path)
    monkeypatch.setattr("srt_tui.slurm.preflight.check_paths", lambda job: [])
    prep = prepare(_dynamo_recipe(tmp_path, "vllm"), "local")
    for launcher in ("slurm", "local"):
        [check] = host_checks(prep, launcher, face="tui")
        assert (check.name, check.blocks, check.waivable) == ("programs", True, True), launcher
        when = "the job's nodes have it" if launcher == "slurm" else "the job's own environment brings it"
        assert check.fix.endswith(f"; Ctrl+N twice on the Submit step submits anyway when {when}"), check.fix
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "python3").symlink_to(Path(sys.executable).resolve())
    monkeypatch.setenv("PATH", str(tmp_path / "bare"))  # no nginx
    nginx = prepare(NGINX, "local")
    assert [(c.blocks, c.waivable) for c in host_checks(nginx, "local")] == [(True, False)]
    assert [(c.blocks, c.waivable) for c in host_checks(nginx, "slurm")] == [(True, True)]
