"""Adapters register themselves: a fake engine, a fake router and a fake benchmark type, one file each under
tests/fixtures and named nowhere in srt_tui, plan and render a job (the recipe validated against the
registries, not a fixed list)."""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from srt_tui.cli.main import main
from srt_tui.core import registry
from srt_tui.core.api import prepare
from srt_tui.core.errors import SrtError
from srt_tui.core.spec.frontend_types import FRONTEND_TYPES
from tests.core.core_helpers import REPO, need

RECIPE = """\
name: fake-2agg
model: {path: /models/fake}
engine: fake
frontend: {type: fake-router, enable_multiple_frontends: false}
roles:
  agg: {nodes: 1, workers: 2, gpus: 4, args: {shards: 4}}
"""


@pytest.fixture
def fakes() -> Iterator[None]:
    """The fake engine and router registered for one test, and gone after it (other tests list the registries)."""
    adapters: tuple[tuple[str, registry.Kind, str], ...] = (
        ("tests.fixtures.fake_engine", "engine", "fake"),
        ("tests.fixtures.fake_router", "router", "fake-router"),
        ("tests.fixtures.fake_benchmark", "benchmark", "fake-bench"),
    )
    for module, kind, name in adapters:
        loaded = importlib.import_module(module)  # its import registers it ...
        if name not in registry.names(kind):  # ... or, imported by an earlier test, its reload does
            importlib.reload(loaded)
    yield
    registry.unregister("engine", "fake")
    registry.unregister("router", "fake-router")
    registry.unregister("benchmark", "fake-bench")
    FRONTEND_TYPES.pop("fake-router", None)


def _recipe(tmp_path: Path, text: str = RECIPE) -> Path:
    path = tmp_path / "fake.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_fake_engine_and_router_plan_and_render_a_job(tmp_path: Path, fakes: None) -> None:
    prep = prepare(_recipe(tmp_path), "local")
    plan = prep.plan
    assert [p.command[0] for p in plan.workers] == ["fake-serve", "fake-serve"]
    assert all(("FAKE_ENGINE_SHARDS", "4") in p.env for p in plan.workers)
    assert all(p.health_url and p.health_url.endswith("/health") for p in plan.workers)
    (router,) = plan.routers()
    assert router.type == "fake-router" and router.registration == "worker-health"
    assert router.process.command[0] == "fake-route" and ("FAKE_ROUTER_MODE", "round-robin") in router.process.env
    assert sum(a == "--upstream" for a in router.process.command) == 2
    doc = json.loads(plan.to_json_text())
    assert doc["engine"] == "fake" and doc["router"]["registration"] == "worker-health"
    assert "fake-serve" in prep.script and "fake-route" in prep.script and "FAKE_ROUTER_MODE" in prep.script
    script = tmp_path / "sbatch.sh"
    script.write_text(prep.script, encoding="utf-8")
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0
    exe = shutil.which("shellcheck")
    need(exe is not None, "shellcheck not installed")
    assert exe is not None
    proc = subprocess.run([exe, "-S", "warning", str(script)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout


def test_the_dry_run_command_shows_the_fakes(tmp_path: Path, fakes: None) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["dry-run", "-f", str(_recipe(tmp_path)), "-p", "local"])
    assert rc == 0
    assert "fake-serve" in out.getvalue() and "fake-route" in out.getvalue()


def test_one_fake_worker_serves_alone_on_the_public_port(tmp_path: Path, fakes: None) -> None:
    text = RECIPE.replace("workers: 2", "workers: 1").replace("type: fake-router", "type: none")
    plan = prepare(_recipe(tmp_path, text), "local").plan
    assert plan.routers() == []
    (worker,) = plan.workers
    assert worker.command[0] == "fake-serve" and f"{plan.public_url}".endswith(f":{worker.ports['http']}")


def test_an_unregistered_engine_is_refused_with_the_registered_choices(tmp_path: Path) -> None:
    with pytest.raises(SrtError) as exc:
        prepare(_recipe(tmp_path), "local")
    (problem, *_) = exc.value.problems
    assert problem.field == "engine.type"
    assert all(f"'{name}'" in problem.message for name in registry.names("engine"))
    assert "fake" not in registry.names("engine")


def test_a_fake_benchmark_type_runs_after_the_router(tmp_path: Path, fakes: None) -> None:
    text = RECIPE + "benchmark: {type: fake-bench, num_requests: 3}\n"
    prep = prepare(_recipe(tmp_path, text), "local")
    step = prep.plan.benchmark
    assert step is not None and step.command[0] == "fake-load" and step.command[-2:] == ("--requests", "3")
    assert "SRT_AGG_ENDPOINTS" in dict(step.env)  # its declared worker_endpoints_env
    assert "fake-load" in prep.script


def test_a_fake_benchmark_types_own_check_and_keys_refuse(tmp_path: Path, fakes: None) -> None:
    text = RECIPE + "benchmark: {type: fake-bench, num_requests: 0, isl: 8}\n"
    with pytest.raises(SrtError) as exc:
        prepare(_recipe(tmp_path, text), "local")
    fields = {p.field for p in exc.value.problems}
    assert {"benchmark.num_requests", "benchmark.isl"} <= fields


def test_fakes_are_named_nowhere_in_srt_tui() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "srt_tui").rglob("*.py"))
    assert "fake-router" not in text and "fake-serve" not in text and "fake-bench" not in text


def test_a_second_adapter_under_a_taken_name_is_refused() -> None:
    from srt_tui.core.engines import ENGINES, register_engine
    from srt_tui.core.engines.mocker import Mocker

    assert register_engine(ENGINES["mocker"]) is ENGINES["mocker"]  # the same one again: nothing changes
    with pytest.raises(ValueError, match="already registered"):
        register_engine(Mocker())


@pytest.mark.parametrize(
    ("engine", "block", "field", "words"),
    [
        ("atom", "connector: nixl", "engine.connector", "atom moves KV over mooncake only"),
        ("vllm", "mooncake_protocol: tcp", "engine.mooncake_protocol", "for vllm choose the KV transport"),
    ],
)
def test_an_engine_refuses_what_its_block_cannot_run(
    tmp_path: Path, engine: str, block: str, field: str, words: str
) -> None:
    text = RECIPE.replace("engine: fake", f"engine: {{type: {engine}, {block}}}").replace("fake-router", "none")
    with pytest.raises(SrtError) as exc:
        prepare(_recipe(tmp_path, text), "local")
    (problem,) = exc.value.problems
    assert problem.field == field and words in problem.message and problem.line == 3
