"""Planning stage 1: where each worker rank runs, its node, GPUs and ports (the recipe's own port flags
honoured, data-parallel port blocks, srtctl's DP RPC ports); colliding ports stop the plan here."""

from __future__ import annotations

from typing import Any

from srt_tui.core.engines.base import DP_RPC_PORT, Engine, arg_int
from srt_tui.core.errors import TopologyError
from srt_tui.core.frontends.routers.base import Router
from srt_tui.core.plan.topology import (
    Placement,
    allocate,
    dp_port_blocks,
    place,
    port_collisions,
    with_recipe_ports,
)
from srt_tui.core.spec.recipe import Recipe
from srt_tui.core.spec.resolved import ResolvedJob


def placed(job: ResolvedJob, engine: Engine, router_kind: Router) -> tuple[list[Placement], dict[str, dict[str, str]]]:
    """Every worker rank placed, and per role the port flags honoured through its placement's ports."""
    recipe, gpn = job.recipe, job.gpus_per_node
    public_port = recipe.frontend.port if router_kind.worker_port == "public" else None
    endpoints = allocate(
        job.shapes, gpn, job.total_nodes, recipe.resources.spread_workers, first_node=job.reserved_nodes
    )
    placements, moved = with_recipe_ports(
        place(endpoints, gpn, public_port),
        engine.port_flags,
        {r: recipe.roles[r].args for r in recipe.active_roles()},
    )
    if engine.ports_per_dp_rank:
        ranks: dict[str, tuple[int, int]] = {
            r: (arg_int(recipe.roles[r].args, engine.dp_flags) or 1, _replica(engine, recipe.roles[r].args))
            for r in recipe.active_roles()
        }
        placements = dp_port_blocks(placements, ranks)
    collisions = port_collisions(placements, moved)
    if collisions:
        raise TopologyError(collisions)
    return placements, moved


def _replica(engine: Engine, args: dict[str, Any]) -> int:
    """GPUs of one data-parallel replica: TP x PP."""
    return (arg_int(args, engine.tp_flags) or 1) * (arg_int(args, engine.pp_flags) or 1)


def dp_rpc_ports(engine: Engine, recipe: Recipe, placements: list[Placement]) -> dict[str, int]:
    """srtctl's data-parallel RPC ports: 8400 upwards on each leader node, one per endpoint whose role runs
    data parallel (only engines that take the port read it)."""
    out: dict[str, int] = {}
    per_node: dict[int, int] = {}
    for pl in placements:
        if pl.node_rank or (arg_int(recipe.roles[pl.role].args, engine.dp_flags) or 1) <= 1:
            continue
        out[pl.endpoint.name] = per_node.get(pl.node_index, DP_RPC_PORT)
        per_node[pl.node_index] = out[pl.endpoint.name] + 1
    return out
