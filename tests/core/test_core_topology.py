"""Topology: GPU placement, masks, ports and nodes for the seed scenarios, topology overrides,
multi-node endpoints, and a property check that ports and GPUs never collide on a node.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from srt_tui.core.api import Prepared, prepare, prepare_job
from srt_tui.core.errors import SrtError
from srt_tui.core.plan.model import JobPlan, ProcessPlan
from srt_tui.core.spec.profile import load_profile
from srt_tui.core.spec.recipe import Recipe
from tests.core.core_helpers import RECIPES_DIR, cli, flag_value

NV, AMD, MOCK = RECIPES_DIR / "nvidia", RECIPES_DIR / "amd", RECIPES_DIR / "mocker"


def _workers(prep: Prepared) -> dict[str, ProcessPlan]:
    return {p.name: p for p in prep.plan.workers}


def _listening(p: ProcessPlan) -> list[int]:
    return [v for v in p.ports.values() if v]


@pytest.mark.parametrize(
    ("recipe", "profile"),
    [
        (NV / "h100-2p1d-sglang.yaml", "nvidia-h100"),
        (MOCK / "mocker-2p1d.yaml", "local"),
        (MOCK / "mocker-2p1d.yaml", "local-rocr"),
    ],
)
def test_2p1d_tp4_prefill_shares_node0_decode_on_node1(recipe: Path, profile: str) -> None:
    prep = prepare(recipe, profile)
    w = _workers(prep)
    var = prep.plan.visible_devices_env
    assert prep.plan.nodes == 2
    p0, p1, d0 = w["prefill_0"], w["prefill_1"], w["decode_0"]
    assert (p0.node_index, p1.node_index, d0.node_index) == (0, 0, 1)
    assert (p0.visible_devices, p1.visible_devices) == ("0,1,2,3", "4,5,6,7")
    assert (dict(p0.env)[var], dict(p1.env)[var]) == ("0,1,2,3", "4,5,6,7")
    assert d0.gpus == tuple(range(8)) and d0.visible_devices is None and var not in dict(d0.env)
    assert not set(_listening(p0)) & set(_listening(p1)), "prefill workers on node 0 share a port"
    assert p0.port != p1.port and p0.ports["bootstrap"] != p1.ports["bootstrap"]
    router = prep.plan.router
    assert router is not None and router.expected == {"prefill": 2, "decode": 1}


@pytest.mark.parametrize(
    ("recipe", "profile"),
    [
        (NV / "h100-1p2d-sglang.yaml", "nvidia-h100"),
        (AMD / "mi355x-1p2d-sglang-mori.yaml", "amd-mi355x"),
        (MOCK / "mocker-1p2d.yaml", "local"),
    ],
)
def test_1p2d_tp8_three_nodes_no_masks(recipe: Path, profile: str) -> None:
    prep = prepare(recipe, profile)
    assert prep.plan.nodes == 3
    assert [(p.name, p.node_index) for p in prep.plan.workers] == [("prefill_0", 0), ("decode_0", 1), ("decode_1", 2)]
    for p in prep.plan.workers:
        assert p.gpus == tuple(range(8))
        assert p.visible_devices is None and prep.plan.visible_devices_env not in dict(p.env)
    assert "#SBATCH --nodes=3" in prep.script.splitlines()


@pytest.mark.parametrize(
    ("recipe", "profile"),
    [(AMD / "mi300x-vllm-moriio-colocated.yaml", "amd-mi300x"), (MOCK / "mocker-colocated.yaml", "local")],
)
def test_colocated_tp4_tp4_on_one_node(recipe: Path, profile: str) -> None:
    prep = prepare(recipe, profile)
    w = _workers(prep)
    var = prep.plan.visible_devices_env
    assert prep.plan.nodes == 1
    p0, d0 = w["prefill_0"], w["decode_0"]
    assert p0.node_index == d0.node_index == 0
    assert (p0.visible_devices, d0.visible_devices) == ("0,1,2,3", "4,5,6,7")
    assert (dict(p0.env)[var], dict(d0.env)[var]) == ("0,1,2,3", "4,5,6,7")
    assert p0.port != d0.port
    assert not set(_listening(p0)) & set(_listening(d0))
    assert "#SBATCH --nodes=1" in prep.script.splitlines()


def test_topology_override_keeps_gpus_per_worker_and_recomputes_nodes() -> None:
    base = prepare(NV / "h100-1p1d-sglang.yaml", "nvidia-h100")
    over = prepare(NV / "h100-1p1d-sglang.yaml", "nvidia-h100", "2P1D")
    assert base.plan.nodes == 2 and over.plan.nodes == 3
    assert over.plan.topology == "2P1D"
    assert [(p.name, p.node_index, len(p.gpus)) for p in over.plan.workers] == [
        ("prefill_0", 0, 8),
        ("prefill_1", 1, 8),
        ("decode_0", 2, 8),
    ]
    assert over.plan.router is not None and over.plan.router.expected == {"prefill": 2, "decode": 1}
    assert over.plan.router.process.command.count("--prefill") == 2
    assert "#SBATCH --nodes=3" in over.script.splitlines()


def test_topology_override_of_subset_workers_packs_them() -> None:
    over = prepare(NV / "h100-2p1d-sglang.yaml", "nvidia-h100", "4P2D")
    w = _workers(over)
    assert over.plan.nodes == 4  # 4 TP4 prefill on 2 nodes, 2 TP8 decode on 2 nodes
    assert [(w[f"prefill_{i}"].node_index, w[f"prefill_{i}"].visible_devices) for i in range(4)] == [
        (0, "0,1,2,3"),
        (0, "4,5,6,7"),
        (1, "0,1,2,3"),
        (1, "4,5,6,7"),
    ]
    assert (w["decode_0"].node_index, w["decode_1"].node_index) == (2, 3)


def test_topology_override_from_the_command_line(tmp_path: Path) -> None:
    proc = cli("dry-run", "-f", str(MOCK / "mocker-1p1d.yaml"), "-p", "local", "-t", "1P2D", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)
    assert plan["nodes"] == 3 and plan["topology"] == "1P2D"
    assert plan["router"]["expected_prefill"] == 1 and plan["router"]["expected_decode"] == 2
    assert plan["name"] == "mocker-1p2d"  # the recipe's name spelled 1p1d: the job is not named after a shape it lacks


@pytest.mark.parametrize(
    ("name", "old", "new", "renamed"),
    [
        ("mocker-1p1d", "1P1D", "2P1D", "mocker-2p1d"),
        ("h100-1P1D-sglang", "1P1D", "4P8D", "h100-4P8D-sglang"),
        ("mocker-agg2", "agg2", "agg4", "mocker-agg4"),
        ("dsv4-1p2d-dep8", "1P1D", "2P1D", "dsv4-1p2d-dep8"),  # srtctl names sometimes count nodes: kept
        ("x-11p1dz", "1P1D", "2P1D", "x-11p1dz"),  # not a token of its own
        ("mocker-1p1d", "1P1D", "1P1D", "mocker-1p1d"),
    ],
)
def test_a_name_that_spells_the_topology_follows_it(name: str, old: str, new: str, renamed: str) -> None:
    from srt_tui.core.spec.topology_string import parse_topology, rename_for

    assert rename_for(name, parse_topology(old), parse_topology(new)) == renamed


def test_topology_override_cannot_change_the_serving_mode() -> None:
    with pytest.raises(SrtError) as info:
        prepare(NV / "h100-agg-sglang.yaml", "nvidia-h100", "1P1D")
    assert info.value.problems[0].field == "--topology"


def test_multinode_sglang_endpoints_on_gb200() -> None:
    prep = prepare(NV / "gb200-1p1d-sglang.yaml", "nvidia-gb200")
    w = _workers(prep)
    assert prep.plan.nodes == 4
    for leader, follower, node in (("prefill_0", "prefill_0_r1", 0), ("decode_0", "decode_0_r1", 2)):
        lead, fol = w[leader], w[follower]
        assert (lead.node_index, fol.node_index) == (node, node + 1)
        for p, rank in ((lead, 0), (fol, 1)):
            assert flag_value(p.command, "--dist-init-addr") == f"<ip:node{node}>:8300"
            assert flag_value(p.command, "--nnodes") == "2"
            assert flag_value(p.command, "--node-rank") == str(rank)
            assert p.visible_devices is None and p.gpus == (0, 1, 2, 3)
        assert lead.port and flag_value(lead.command, "--port") == str(lead.port)
        # followers serve no HTTP; srtctl still passes them --host 0.0.0.0 --port 0
        assert fol.port == 0 and flag_value(fol.command, "--port") == "0"
    # every rank of a prefill endpoint gets the leader's bootstrap port (srtctl), never 0
    assert flag_value(w["prefill_0_r1"].command, "--disaggregation-bootstrap-port") == str(
        w["prefill_0"].ports["bootstrap"]
    )
    router = prep.plan.router
    assert router is not None
    assert router.expected == {"prefill": 1, "decode": 1}
    assert "http://<ip:node0>:6100" in router.process.command and "http://<ip:node2>:6100" in router.process.command
    assert '--dist-init-addr "${SRT_NODE_IPS[2]}:8300"' in prep.script


def test_multinode_vllm_endpoint_uses_master_addr_and_headless_followers(tmp_path: Path) -> None:
    recipe = Recipe.model_validate(
        {
            "name": "vllm-tp8-gb200",
            "model": {"path": "/models/m", "container": "/c/vllm.sqsh"},
            "engine": {"type": "vllm"},
            "roles": {"agg": {"workers": 1, "gpus": 8, "args": {"tensor-parallel-size": 8}}},
            "frontend": {"type": "vllm-router"},
        }
    )
    prep = prepare_job(recipe, load_profile("nvidia-gb200"))
    lead, fol = prep.plan.workers
    assert (lead.node_index, fol.node_index, prep.plan.nodes) == (0, 1, 2)
    assert flag_value(fol.command, "--master-addr") == flag_value(lead.command, "--master-addr") == "<ip:node0>"
    assert (flag_value(lead.command, "--node-rank"), flag_value(fol.command, "--node-rank")) == ("0", "1")
    assert "--headless" in fol.command and "--headless" not in lead.command


# ---- property-style: many topologies, no port or GPU collisions -------------------------------------------------


def _node_ports(plan: JobPlan) -> dict[int, list[tuple[str, int]]]:
    """Every port a process listens on, per node (worker ports, router/infra ports, engine env ports)."""
    out: dict[int, list[tuple[str, int]]] = {}
    for p in plan.processes():
        ports = [(f"{p.name}.{k}", v) for k, v in p.ports.items() if v]
        if "VLLM_PORT" in dict(p.env):  # vLLM's internal port base, per process
            ports.append((f"{p.name}.VLLM_PORT", int(dict(p.env)["VLLM_PORT"])))
        if "--vllm-discovery-address" in p.command:  # vllm-router's MoRI-IO discovery listener
            address = p.command[p.command.index("--vllm-discovery-address") + 1]
            ports.append((f"{p.name}.discovery", int(address.rsplit(":", 1)[1])))
        out.setdefault(p.node_index, []).extend(ports)
    return out


def _random_recipe(rng: random.Random, gpn: int) -> dict[str, Any]:
    engine = rng.choice(["sglang", "vllm", "mocker"])
    frontend = {
        "sglang": "sglang-router",
        "vllm": "vllm-router",
        "mocker": rng.choice(["sglang-router", "vllm-router"]),
    }[engine]
    sizes = [g for g in (1, 2, 4, 8, 16) if gpn % g == 0 or g % gpn == 0]
    if engine == "mocker":
        sizes = [g for g in sizes if g <= gpn]
    roles: dict[str, Any]
    if rng.random() < 0.25:
        roles = {"agg": {"workers": rng.randint(1, 8), "gpus": rng.choice(sizes)}}
    else:
        pg, dg = rng.choice(sizes), rng.choice(sizes)
        roles = {
            "prefill": {"workers": rng.randint(1, 6), "gpus": pg},
            "decode": {"workers": rng.randint(1, 6), "gpus": dg},
        }
        if pg < gpn and dg < gpn and rng.random() < 0.3:
            roles["prefill"]["nodes"] = (roles["prefill"]["workers"] * pg + gpn - 1) // gpn + 1
            roles["decode"]["nodes"] = "colocate"
    return {
        "name": "prop",
        "model": {"path": "/models/m"},
        "engine": {
            "type": engine,
            "set_visible_devices": rng.random() < 0.5,
            "connector": rng.choice(["nixl", "moriio"]) if engine == "vllm" else None,
        },
        "resources": {"gpus_per_node": gpn, "spread_workers": rng.random() < 0.1},
        "roles": roles,
        "frontend": {"type": frontend},
    }


def test_ports_and_gpus_never_collide_on_a_node() -> None:
    rng = random.Random(20240601)
    profile = load_profile("local")
    checked = Counter[str]()
    for _ in range(400):
        gpn = rng.choice([4, 8])
        data = _random_recipe(rng, gpn)
        try:
            prep = prepare_job(Recipe.model_validate(data), profile)
        except SrtError:
            checked["rejected"] += 1
            continue
        checked["planned"] += 1
        plan = prep.plan
        for node, ports in _node_ports(plan).items():
            counts = Counter(port for _, port in ports)
            clashes = sorted(name for name, port in ports if counts[port] > 1)
            assert not clashes, f"port clash on node {node}: {clashes} in {data}"
        used: dict[tuple[int, int], str] = {}
        for p in plan.workers:
            assert p.node_index < plan.nodes
            for g in p.gpus:
                assert 0 <= g < gpn
                assert (p.node_index, g) not in used, f"GPU {g} of node {p.node_index} used twice in {data}"
                used[(p.node_index, g)] = p.name
            subset = len(p.gpus) < gpn
            takes = data["engine"]["type"] != "vllm" or data["engine"]["set_visible_devices"]
            assert (p.visible_devices is not None) == (subset and takes), f"mask rule broken for {p.name} in {data}"
        leaders = [p for p in plan.workers if p.node_rank == 0]
        assert plan.router is not None
        assert sum(plan.router.expected.values()) == len(leaders)
    assert checked["planned"] >= 150, checked
