"""Dynamo-fronted jobs as srtctl runs them: system-port health, NATS/etcd on the infra node (or a
reserved one), request/event planes, the ai-dynamo install at job start, and srtctl's mocker recipes
running the real `dynamo.mocker`. Rendered from srtctl's own recipes where one exists."""

from __future__ import annotations

import copy
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from srt_tui.core.api import Prepared, prepare
from srt_tui.core.errors import SrtError
from srt_tui.core.plan.topology import SYS_BASE
from srt_tui.core.spec.recipe import Recipe
from tests.core.core_helpers import REPO, flag_value, need, profile_data, raw_yaml, write_yaml

#: the project's shared folder beside the checkout (SRT_SHARED_DIR points elsewhere, e.g. from a worktree)
SHARED = Path(os.environ.get("SRT_SHARED_DIR") or REPO / ".." / "shared").resolve()
SRTCTL_MOCKER = SHARED / "reference" / "srtctl-recipes-all" / "recipes" / "mocker"

#: a schema 2 Dynamo recipe: 1 prefill + 2 decode SGLang workers of 4 GPUs on 8-GPU nodes
DISAGG: dict[str, Any] = {
    "name": "dyn-1p2d",
    "model": {"path": "/models/m", "container": "/images/dynamo.sqsh"},
    "engine": "sglang",
    "roles": {
        "prefill": {"workers": 1, "gpus": 4, "args": {"tp-size": 4}},
        "decode": {"workers": 2, "gpus": 4, "args": {"tp-size": 4}},
    },
    # one frontend on the head node (srtctl's nginx layout, its default, is tested in test_core_frontends.py)
    "frontend": {"type": "dynamo", "enable_multiple_frontends": False},
}


def _profile(tmp: Path, base: str = "local", **extra: Any) -> str:
    """A profile deriving from a shipped one, with srtctl's mocker recipes' aliases defined."""
    data = profile_data(base)
    data["model_paths"] = {**(data.get("model_paths") or {}), "hf:Qwen/Qwen3-0.6B": str(tmp / "model")}
    data["model_paths"]["kimi-k25-nvfp4"] = str(tmp / "model")
    data["containers"] = {"dynamo-sglang": "/images/dynamo.sqsh", "trtllm-runtime": "/images/trtllm.sqsh"}
    data.update(extra)
    return str(write_yaml(tmp / f"{base}-dynamo.yaml", data))


def _recipe(tmp: Path, data: dict[str, Any], name: str = "recipe.yaml") -> str:
    return str(write_yaml(tmp / name, data))


def _env(p: Any) -> dict[str, str]:
    return dict(p.env)


def _problems(exc: pytest.ExceptionInfo[SrtError]) -> dict[str, str]:
    return {p.field or "": p.message for p in exc.value.problems}


def _shellcheck(tmp: Path, prep: Prepared) -> None:
    script = tmp / "sbatch.sh"
    script.write_text(prep.script, encoding="utf-8")
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0
    exe = shutil.which("shellcheck")
    need(exe is not None, "shellcheck not installed")
    assert exe is not None
    proc = subprocess.run([exe, "-S", "warning", str(script)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout


def test_srtctl_mocker_recipe_plans_dynamo_mocker_behind_the_frontend(tmp_path: Path) -> None:
    need(SRTCTL_MOCKER.is_dir(), f"srtctl's recipes not found at {SRTCTL_MOCKER}")
    prep = prepare(SRTCTL_MOCKER / "agg.yaml", _profile(tmp_path))
    plan = prep.plan
    assert [p.name for p in plan.infra] == ["nats", "etcd"] and {p.node_index for p in plan.infra} == {0}
    (worker,) = plan.workers
    assert list(worker.command[:7]) == ["python3", "-m", "dynamo.mocker", "--model-path", str(tmp_path / "model"),
                                        "--model-name", "model"]  # fmt: skip
    # srtctl's backend keys (speedup_ratio: 100, a float field there: 100.0; engine_type: vllm) and its defaults
    for flag, value in (("--engine-type", "vllm"), ("--speedup-ratio", "100.0"), ("--max-num-seqs", "256"),
                        ("--num-gpu-blocks-override", "16384"), ("--max-num-batched-tokens", "8192")):  # fmt: skip
        assert flag_value(worker.command, flag) == value, flag
    env = _env(worker)
    assert env["DYN_SYSTEM_PORT"] == str(SYS_BASE) and env["DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS"] == '["generate"]'
    assert env["DYN_REQUEST_PLANE"] == "nats"  # the recipe's dynamo.request_plane
    assert env["DYN_LOG"].startswith("info,")  # srtctl's worker log filter, overridable by the recipe
    assert env["ETCD_ENDPOINTS"] == "http://<ip:node0>:2379" and env["NATS_SERVER"] == "nats://<ip:node0>:4222"
    # readiness: the worker's system server, and the frontend's registrations
    assert worker.health_url == f"http://<ip:node0>:{SYS_BASE}/health"
    assert worker.metrics_url == f"http://<ip:node0>:{SYS_BASE}/metrics"
    assert plan.router is not None and plan.router.registration == "dynamo-health"
    doc = plan.to_json()
    assert doc["router"]["worker_health"] == "system-port" and doc["router"]["worker_launch"] == "dynamo"
    assert doc["processes"][0]["metrics"]["total"].startswith("dynamo_component_requests_total{")
    assert doc["router"]["metrics_url"] == "http://<ip:node0>:8000/metrics"
    # the worker gate polls the system port, after NATS and etcd accept connections
    assert f"SRT_HEALTH_PORTS=({SYS_BASE})" in prep.script and "SRT_INFRA_PORTS=(4222 2379)" in prep.script
    assert prep.script.index("srt_wait_infra\n") < prep.script.index('srt_event "workers starting"')
    # dynamo.version 0.8.0 (install: true by default) is not pip-installed into the host's Python
    assert all(p.install is None for p in plan.processes())
    warned = {w.field: w.message for w in plan.warnings}
    assert "srt-tui does not pip-install" in warned["dynamo.install"] and "0.8.0" in warned["dynamo.install"]
    _shellcheck(tmp_path, prep)


def test_mocker_config_flags_follow_srtctls_simulation_flags(tmp_path: Path) -> None:
    """kimi-trace-agg's per-mode `mocker_config` comes after the always-passed defaults (last one wins)."""
    need(SRTCTL_MOCKER.is_dir(), f"srtctl's recipes not found at {SRTCTL_MOCKER}")
    data = raw_yaml(SRTCTL_MOCKER / "kimi-trace-agg.yaml")
    data["benchmark"] = {"type": "manual"}  # trace-replay is the benchmarks issue's; this is about the worker
    data.pop("extra_mount")
    prep = prepare(_recipe(tmp_path, data), _profile(tmp_path))
    argv = list(prep.plan.workers[0].command)
    assert argv[argv.index("--num-gpu-blocks-override", argv.index("--num-gpu-blocks-override") + 1) + 1] == "8192"
    assert argv[-6:] == ["--max-num-batched-tokens", "16384", "--max-num-seqs", "128", "--num-gpu-blocks-override",
                         "8192"]  # fmt: skip
    assert "dynamo.install" not in {w.field for w in prep.plan.warnings}  # install: false, nothing to warn


def test_disaggregated_dynamo_workers_get_planes_flags_and_their_own_system_ports(tmp_path: Path) -> None:
    recipe = copy.deepcopy(DISAGG)
    recipe["dynamo"] = {"version": "1.6.1", "request_plane": "nats", "event_plane": "zmq"}
    prep = prepare(_recipe(tmp_path, recipe), _profile(tmp_path, "nvidia-h100"))
    workers = prep.plan.workers
    assert [_env(w)["DYN_SYSTEM_PORT"] for w in workers] == [str(SYS_BASE + k) for k in range(3)]
    for w in workers:
        assert w.command[2] == "dynamo.sglang" and flag_value(w.command, "--request-plane") == "nats"
        assert _env(w)["DYN_EVENT_PLANE"] == "zmq"
        assert w.health_url is not None and w.health_url.endswith(f":{_env(w)['DYN_SYSTEM_PORT']}/health")
    router = prep.plan.router
    assert router is not None and router.expected == {"prefill": 1, "decode": 2}
    assert _env(router.process)["DYN_REQUEST_PLANE"] == "nats"


def test_dynamo_install_runs_in_every_dynamo_step_of_a_container_job(tmp_path: Path) -> None:
    recipe = copy.deepcopy(DISAGG)
    recipe["dynamo"] = {"version": "1.6.1"}
    prep = prepare(_recipe(tmp_path, recipe), _profile(tmp_path, "nvidia-h100"))
    plan = prep.plan
    assert plan.router is not None
    dynamo_steps = [*plan.workers, plan.router.process]
    for p in dynamo_steps:
        assert p.install is not None
        assert "python3 -m pip install --quiet --extra-index-url https://pypi.nvidia.com " in p.install
        assert "ai-dynamo-runtime==1.6.1 ai-dynamo==1.6.1" in p.install and "flock -x 9" in p.install
    assert all(p.install is None for p in [*plan.infra, *plan.telemetry])
    # the rendered steps run the install before exec'ing the worker; a failed install ends the step
    assert prep.script.count("srt-install") == len(dynamo_steps)
    # as root inside the container (enroot), which pip needs for the image's site-packages
    assert prep.script.count("SRT_STEP_EXPORT=ALL,ENROOT_REMAP_ROOT=yes srt_step") == len(dynamo_steps)
    _shellcheck(tmp_path, prep)
    recipe["dynamo"] = {"hash": "81d0555ee23519cea80a42b4fe824e30368b7300"}
    install = prepare(_recipe(tmp_path, recipe), _profile(tmp_path, "nvidia-h100")).plan.workers[0].install
    assert install is not None and "git clone --quiet https://github.com/ai-dynamo/dynamo.git" in install
    assert "checkout --quiet 81d0555ee23519cea80a42b4fe824e30368b7300" in install and "maturin build" in install
    recipe["dynamo"] = {"install": False}
    plan = prepare(_recipe(tmp_path, recipe), _profile(tmp_path, "nvidia-h100")).plan
    assert all(p.install is None for p in plan.processes())


@pytest.mark.parametrize(
    ("dynamo", "field", "words"),
    [
        ({"wheel": "1.2.0.dev20260426"}, "dynamo.wheel", "srtctl's wheelhouse/dynamo"),
        ({"version": "1.6.1", "hash": "81d0555e"}, "dynamo", "one Dynamo install source"),
        ({"hash": "81d0555e", "top_of_tree": True}, "dynamo", "not hash and top_of_tree"),
        ({"request_plane": "grpc"}, "dynamo.request_plane", "nats"),
    ],
)
def test_dynamo_block_refusals_name_the_key(tmp_path: Path, dynamo: dict[str, Any], field: str, words: str) -> None:
    recipe = copy.deepcopy(DISAGG)
    recipe["dynamo"] = dynamo
    with pytest.raises(SrtError) as exc:
        prepare(_recipe(tmp_path, recipe), _profile(tmp_path, "nvidia-h100"))
    found = _problems(exc)
    assert field in found and words in found[field], found


def test_dedicated_infra_node_reserves_node_zero(tmp_path: Path) -> None:
    recipe = copy.deepcopy(DISAGG)
    recipe["infra"] = {"etcd_nats_dedicated_node": True, "nats_max_payload_mb": 24}
    plain = prepare(_recipe(tmp_path, DISAGG, "plain.yaml"), _profile(tmp_path, "nvidia-h100")).plan
    prep = prepare(_recipe(tmp_path, recipe), _profile(tmp_path, "nvidia-h100"))
    plan = prep.plan
    assert plan.nodes == plain.nodes + 1 and f"#SBATCH --nodes={plain.nodes + 1}" in prep.script
    assert {p.node_index for p in plan.infra} == {0}
    # every worker one node on, same GPUs and ports; router and benchmark on the first worker node
    assert [(w.node_index, w.gpus, w.ports) for w in plan.workers] == [
        (w.node_index + 1, w.gpus, w.ports) for w in plain.workers
    ]
    assert plan.router is not None and plan.router.process.node_index == 1 and "SRT_ROUTER_NODE=1" in prep.script
    assert _env(plan.workers[0])["NATS_SERVER"] == "nats://<ip:node0>:4222"
    nats = plan.infra[0]
    assert list(nats.command[:3]) == ["nats-server", "-c", "<logs>/config/nats.conf"]
    assert dict(nats.config_files) == {"nats.conf": f"max_payload: {24 * 1024 * 1024}\n"}
    _shellcheck(tmp_path, prep)


def test_infra_keys_without_discovery_services_are_refused(tmp_path: Path) -> None:
    recipe = copy.deepcopy(DISAGG)  # vllm-router: srtctl has no such frontend; it starts no NATS/etcd
    recipe["engine"], recipe["frontend"] = "vllm", {"type": "vllm-router"}
    for role in recipe["roles"].values():
        role["args"] = {"tensor-parallel-size": 4}
    recipe["infra"] = {"etcd_nats_dedicated_node": True}
    with pytest.raises(SrtError) as exc:
        prepare(_recipe(tmp_path, recipe), _profile(tmp_path, "nvidia-h100"))
    assert "needs no NATS/etcd" in _problems(exc)["infra.etcd_nats_dedicated_node"]
    recipe.pop("infra")
    recipe["dynamo"] = {"version": "1.6.1"}
    plan = prepare(_recipe(tmp_path, recipe), _profile(tmp_path, "nvidia-h100")).plan
    assert "has no effect" in {w.field: w.message for w in plan.warnings}["dynamo"]
    assert not plan.infra and all(p.install is None for p in plan.processes())
    # srtctl's worker-stage variables reach every worker; the health gate's only Dynamo workers
    assert all("DYN_SYSTEM_PORT" in _env(w) and "DYN_SYSTEM_ENABLED" not in _env(w) for w in plan.workers)


def test_dynamo_and_infra_blocks_survive_the_wizards_round_trip() -> None:
    """A recipe written back (`to_yaml_dict`, as the wizard saves it) loads to the same recipe."""
    data = copy.deepcopy(DISAGG)
    data |= {"dynamo": {"hash": "81d0555e", "event_plane": "zmq"}, "infra": {"nats_max_payload_mb": 4}}
    recipe = Recipe.model_validate(data)
    again = Recipe.model_validate(recipe.to_yaml_dict())
    assert again == recipe and again.dynamo.source == "hash 81d0555e" and again.infra.nats_max_payload_mb == 4
