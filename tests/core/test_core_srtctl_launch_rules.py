"""Launch rules srtctl applies from its cluster config and frontends, one test each (issue 19's remainder).

The parity corpus (test_core_srtctl_parity.py) checks them over srtctl's library; these say which rule
broke when it fails: mount host paths as srtctl names them, the cluster preamble (not on nginx), the setup
script only on the Dynamo frontend, and a recipe's own worker port reaching the router.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from srt_tui.core.api import prepare
from tests.core.core_helpers import write_yaml


def _recipe(tmp_path: Path, frontend: dict[str, Any], roles: dict[str, Any], **extra: Any) -> Path:
    data = {
        "name": "rules",
        "model": {"path": "/models/m", "container": "/c/img.sqsh"},
        "engine": "sglang",
        "roles": roles,
        "frontend": frontend,
        **extra,
    }
    return write_yaml(tmp_path / "r.yaml", data)


STEP = re.compile(r"\bsrt_step (\S+) \S+ \d+ .* -- \\$")
AGG = {"agg": {"nodes": 1, "workers": 2, "gpus": 4, "args": {"tp-size": 4}}}


def test_mount_host_paths_are_expanded_and_resolved_as_srtctl_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARITY_DATA", str(tmp_path / "data"))
    root = tmp_path / "srt-slurm"
    profile = {
        "gpus_per_node": 8,
        "srtctl_root": str(root),
        # srtctl: os.path.expandvars, then Path.resolve() from its checkout (where its orchestrator runs)
        "default_mounts": {"$PARITY_DATA/../data": "/data", "cache": "/root/.cache"},
    }
    recipe = _recipe(tmp_path, {"type": "sglang-router"}, AGG, extra_mount=["~/work:/work:ro"])
    mounts = {m.container: m for m in prepare(recipe, str(write_yaml(tmp_path / "p.yaml", profile))).plan.mounts}
    assert mounts["/data"].host == str(tmp_path / "data")
    assert mounts["/root/.cache"].host == str(root / "cache")
    assert mounts["/work"].host == str(Path.home() / "work") and mounts["/work"].readonly


def test_the_cluster_preamble_runs_in_every_step_but_nginx(tmp_path: Path) -> None:
    profile = write_yaml(tmp_path / "p.yaml", {"gpus_per_node": 8, "default_bash_preamble": "ulimit -n 4096"})
    fe = {"type": "sglang-router", "enable_multiple_frontends": True, "num_additional_frontends": 1}
    roles = {"agg": {"nodes": 2, "workers": 2, "args": {"tp-size": 8}}}
    prep = prepare(_recipe(tmp_path, fe, roles), str(profile))
    assert prep.plan.nginx is not None
    lines = prep.script.splitlines()
    # each step: `srt_step NAME KIND NODE LOG -- \` and its argv on the next line (STEP_WRAP runs the preamble)
    steps = {m.group(1): lines[i + 1] for i, line in enumerate(lines) if (m := STEP.search(line))}
    assert {"nginx", "router", "agg_0", "agg_1"} <= set(steps)
    assert "srt-step" not in steps.pop("nginx")  # srtctl's own `bash -c`, which bypasses the preamble
    assert all("srt-step" in argv for argv in steps.values())


def test_only_the_dynamo_frontend_runs_the_setup_script(tmp_path: Path) -> None:
    root = tmp_path / "srt-slurm"
    (root / "configs").mkdir(parents=True)
    (root / "configs" / "fix.sh").write_text("true\n")
    profile = str(write_yaml(tmp_path / "p.yaml", {"gpus_per_node": 8, "srtctl_root": str(root)}))
    plan = prepare(_recipe(tmp_path, {"type": "sglang-router"}, AGG, setup_script="fix.sh"), profile).plan
    assert all(w.setup_script for w in plan.workers)
    assert [r.process.setup_script for r in plan.routers()] == [()]
    plan = prepare(_recipe(tmp_path, {"type": "dynamo"}, AGG, setup_script="fix.sh"), profile).plan
    assert all(r.process.setup_script for r in plan.routers())


def test_a_bootstrap_port_the_recipe_sets_reaches_the_router_and_says_so(tmp_path: Path) -> None:
    prefill_args: dict[str, Any] = {"tp-size": 8, "disaggregation-bootstrap-port": 31000}
    roles = {
        "prefill": {"nodes": 1, "workers": 1, "args": prefill_args},
        "decode": {"nodes": 1, "workers": 1, "args": {"tp-size": 8}},
    }
    profile = str(write_yaml(tmp_path / "p.yaml", {"gpus_per_node": 8}))
    plan = prepare(_recipe(tmp_path, {"type": "sglang-router"}, roles), profile).plan
    [router] = plan.routers()
    argv = list(router.process.command)
    assert argv[argv.index("--prefill") + 2] == "31000"
    assert "recipe-port" in router.process.differs_from_srtctl
    del prefill_args["disaggregation-bootstrap-port"]
    [router] = prepare(_recipe(tmp_path, {"type": "sglang-router"}, roles), profile).plan.routers()
    assert "recipe-port" not in router.process.differs_from_srtctl


def test_worker_env_templating_is_srtctls_node_id_counts_worker_nodes(tmp_path: Path) -> None:
    env = {"WHERE": "{node}/{node_id}"}
    profile = str(write_yaml(tmp_path / "p.yaml", {"gpus_per_node": 8}))
    roles = {"agg": {"nodes": 2, "workers": 2, "args": {"tp-size": 8}}}
    recipe = _recipe(tmp_path, {"type": "dynamo"}, roles, environment=env, infra={"etcd_nats_dedicated_node": True})
    plan = prepare(recipe, profile).plan
    # node 0 holds NATS/etcd: srtctl's {node_id} is the index among worker nodes
    assert [dict(w.env)["WHERE"].split("/")[1] for w in plan.workers] == ["0", "1"]
    assert [w.node_index for w in plan.workers] == [1, 2]


def test_stage_dir_is_a_warning_and_a_declared_difference(tmp_path: Path) -> None:
    profile = str(write_yaml(tmp_path / "p.yaml", {"gpus_per_node": 8}))
    recipe = write_yaml(
        tmp_path / "s.yaml",
        {
            "name": "s",
            "model": {"path": "/models/m", "container": "/c/img.sqsh", "stage_dir": "/raid/models"},
            "engine": "sglang",
            "roles": AGG,
            "frontend": {"type": "dynamo"},
        },
    )
    prep = prepare(recipe, profile)
    assert "model.stage_dir" in {w.field for w in prep.plan.warnings}
    assert "model-not-staged" in prep.plan.differs_from_srtctl
    assert "/raid" not in {m.container for m in prep.plan.mounts}
