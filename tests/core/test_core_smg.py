"""`frontend.type: smg`, the Shepherd Model Gateway, as the AMD fork launches it: `smg launch` over the static
worker URLs (PD with each prefill's bootstrap port, or `--worker-urls`), its Prometheus listener on a port
of its own, `frontend.args` after the managed flags (a list repeats the flag), started once the workers
are healthy; any engine with HTTP workers it detects (SGLang, vLLM), its own image under pyxis."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from srt_tui.core.api import prepare, prepare_job
from srt_tui.core.engines import ENGINES
from srt_tui.core.errors import SrtError
from srt_tui.core.frontends.routers import get_router, resolve_router
from srt_tui.core.frontends.routers.smg import repeated_flags
from srt_tui.core.plan.model import JobPlan
from srt_tui.core.spec.profile import load_profile
from srt_tui.core.spec.recipe import Recipe
from tests.conftest import REPO
from tests.core.core_helpers import flag_value, write_yaml


def _recipe(roles: dict[str, Any], engine: str = "sglang", **frontend: Any) -> Recipe:
    return Recipe.model_validate(
        {
            "name": "smg-job",
            "model": {"path": "/models/m", "container": "/c/img.sqsh"},
            "engine": {"type": engine},
            "roles": roles,
            "frontend": {"type": "smg", "enable_multiple_frontends": False, **frontend},
        }
    )


def _plan(recipe: Recipe, profile: str = "nvidia-h100") -> JobPlan:
    return prepare_job(recipe, load_profile(profile)).plan


PD = {"prefill": {"nodes": 1, "workers": 1, "gpus": 8}, "decode": {"nodes": 1, "workers": 1, "gpus": 8}}


def test_prefill_decode_is_smg_launch_in_pd_mode_with_each_prefill_bootstrap_port() -> None:
    plan = _plan(_recipe(PD, args={"policy": "cache_aware", "dp-aware": True}))
    assert plan.router is not None and plan.router.type == "smg"
    prefill = next(w for w in plan.workers if w.role == "prefill")
    decode = next(w for w in plan.workers if w.role == "decode")
    assert list(plan.router.process.command) == [
        "smg", "launch", "--pd-disaggregation",
        "--prefill", prefill.url, str(prefill.ports["bootstrap"]),
        "--decode", decode.url,
        "--host", "<bind>", "--port", "8000", "--prometheus-port", "29000",
        "--policy", "cache_aware", "--dp-aware",
    ]  # fmt: skip
    # its metrics listener is a port of its own, which the monitor reads; /workers is its registration
    assert plan.router.process.metrics_url == "http://<ip:node0>:29000/metrics"
    assert plan.router.process.ports == {"http": 8000, "metrics": 29000}
    assert plan.router.registration == "router-workers" and plan.router.waits_for_healthy_workers


def test_aggregated_workers_are_its_worker_urls_even_for_one_worker() -> None:
    """The fork's smg is a router whatever the topology: one aggregated worker is still routed."""
    one = _plan(_recipe({"agg": {"nodes": 1, "workers": 1, "gpus": 8}}))
    assert one.router is not None and one.router.type == "smg"
    (worker,) = one.workers
    argv = list(one.router.process.command)
    assert argv[:4] == ["smg", "launch", "--worker-urls", worker.url] and worker.port != 8000
    two = _plan(_recipe({"agg": {"nodes": 1, "workers": 2, "gpus": 4}}))
    argv = list(two.router.process.command)  # type: ignore[union-attr]
    assert argv[2 : 3 + len(two.workers)] == ["--worker-urls", *(w.url for w in two.workers)]
    assert "--pd-disaggregation" not in argv


def test_vllm_prefill_is_advertised_with_its_bootstrap_port_as_the_fork_does() -> None:
    plan = _plan(_recipe(PD, engine="vllm"))
    assert plan.router is not None
    argv = list(plan.router.process.command)
    prefill = next(w for w in plan.workers if w.role == "prefill")
    assert argv[argv.index("--prefill") + 1 : argv.index("--prefill") + 4] == [prefill.url, "7200", "--decode"]


def test_frontend_args_follow_the_managed_flags_and_a_list_repeats_its_flag() -> None:
    assert repeated_flags({"selector": ["a=1", "b=2"], "dp_aware": True, "x": False, "y": None, "n": 3}) == [
        "--selector", "a=1", "--selector", "b=2", "--dp-aware", "--n", "3",
    ]  # fmt: skip


def test_the_router_runs_from_frontend_container_image_under_pyxis(tmp_path: Path) -> None:
    recipe = _recipe(PD, container_image="smg")
    plan = _plan(recipe)
    assert plan.router is not None and plan.router.process.container_image == "smg"  # used as written
    profile = write_yaml(tmp_path / "p.yaml", {"gpus_per_node": 8, "containers": {"smg": "/images/smg-1.13.sqsh"}})
    data = recipe.model_dump(mode="json", exclude_unset=True)
    aliased = prepare(write_yaml(tmp_path / "r.yaml", data), str(profile)).plan
    assert aliased.router is not None and aliased.router.process.container_image == "/images/smg-1.13.sqsh"
    assert all(w.container_image is None for w in aliased.workers)  # the workers keep the job's image
    local = _plan(_recipe(PD, engine="mocker", container_image="smg"), "local")  # runs the node's smg
    assert local.router is not None and local.router.process.container_image is None
    assert any(p.field == "frontend.container_image" and p.severity == "warning" for p in local.warnings)


def test_smg_fronts_sglang_vllm_and_the_mocker_but_not_trtllm() -> None:
    router = get_router("smg")
    assert resolve_router("smg", False, 1) is router and resolve_router("smg", True, 2) is router
    assert {name for name, engine in ENGINES.items() if router.name in engine.frontends} == {"sglang", "vllm", "mocker"}
    with pytest.raises(SrtError, match=r"frontend.type: smg cannot front trtllm workers"):
        _plan(_recipe({"agg": {"nodes": 1, "workers": 1, "gpus": 8}}, engine="trtllm"))


def test_the_s5_twin_through_smg_is_dp_aware() -> None:
    plan = prepare(REPO / "recipes" / "mocker" / "mocker-dp-attention-1p1d-smg.yaml", "local-rocr").plan
    assert plan.router is not None and plan.router.type == "smg"
    argv = list(plan.router.process.command)
    assert argv[:2] == ["smg", "launch"] and "--dp-aware" in argv and "--pd-disaggregation" in argv
    assert all(flag_value(list(w.command), "--dp-size") == "8" for w in plan.workers)
