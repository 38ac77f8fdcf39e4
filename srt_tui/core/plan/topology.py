"""Roles → endpoints → processes: nodes, GPU indices, masks and ports (pure functions, srtctl's rules).

Workers are packed in prefill, decode, agg order along the node list; a worker with fewer GPUs than a
node takes a contiguous range, a larger one whole nodes. Prefill and decode never share a partially
used node unless decode is `colocate`. Ports follow srtctl's allocator so srtctl users recognise them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

from srt_tui.core.engines.base import Ports, flag_name
from srt_tui.core.errors import Problem, TopologyError
from srt_tui.core.spec.job_size import RoleShape
from srt_tui.core.spec.recipe import Role

HTTP_BASE, HTTP_STEP = 6100, 32
BOOTSTRAP_BASE = 7200
SYS_BASE = 7500
NCCL_BASE = 17500
KV_EVENTS_BASE = 5200
NIXL_BASE = 5400
DIST_INIT_PORT = 8300


@dataclass(frozen=True)
class Endpoint:
    """One worker: a role index, the nodes it spans, and the GPU indices it uses on each."""

    role: Role
    index: int
    nodes: tuple[int, ...]
    gpus: tuple[int, ...]

    @property
    def name(self) -> str:
        """Worker name such as `prefill_0`."""
        return f"{self.role}_{self.index}"


@dataclass(frozen=True)
class Placement:
    """One process of an endpoint (one per node it spans), with its mask decision inputs and ports."""

    name: str
    endpoint: Endpoint
    node_index: int
    node_rank: int
    gpus: tuple[int, ...]
    subset: bool
    ports: Ports

    @property
    def role(self) -> Role:
        """The endpoint's role."""
        return self.endpoint.role


def allocate(
    shapes: tuple[RoleShape, ...], gpn: int, total_nodes: int, spread: bool = False, first_node: int = 0
) -> list[Endpoint]:
    """Pack every role's workers onto nodes from `first_node` on (earlier nodes are reserved, e.g. for
    NATS/etcd); raises TopologyError when they do not fit."""
    endpoints: list[Endpoint] = []
    node, offset = first_node, 0
    for shape in shapes:
        if shape.role == "decode" and offset > 0 and not shape.colocate:
            node, offset = node + 1, 0
        for i in range(shape.workers):
            g = shape.gpus
            if g >= gpn:
                span = math.ceil(g / gpn)
                if offset > 0:
                    node, offset = node + 1, 0
                nodes = tuple(range(node, node + span))
                gpus = tuple(range(gpn))
                node += span
            else:
                if offset + g > gpn:
                    node, offset = node + 1, 0
                nodes, gpus = (node,), tuple(range(offset, offset + g))
                offset += g
                if offset >= gpn or spread:
                    node, offset = node + 1, 0
            if nodes[-1] >= total_nodes:
                raise TopologyError(
                    [
                        Problem(
                            field=f"roles.{shape.role}",
                            message=f"{shape.role} worker {i} does not fit: the job has {total_nodes} node(s) of "
                            f"{gpn} GPUs",
                            hint=f"give roles.{shape.role}.nodes more nodes or fewer workers",
                        )
                    ]
                )
            endpoints.append(Endpoint(shape.role, i, nodes, gpus))
    return endpoints


def place(endpoints: list[Endpoint], gpn: int, public_port: int | None = None) -> list[Placement]:
    """One process per node of each endpoint, with srtctl's port plan (never colliding on a node).

    `public_port`: a direct job's single worker binds the frontend port itself (as the fork does).
    """
    http_next: dict[int, int] = {}
    boot_next: dict[int, int] = {}
    out: list[Placement] = []
    k = 0
    leader_bootstrap = 0
    for ep in endpoints:
        for rank, node in enumerate(ep.nodes):
            http = bootstrap = 0
            if rank == 0 and public_port is not None:
                http = public_port
            elif rank == 0:
                http = http_next.get(node, HTTP_BASE)
                http_next[node] = http + HTTP_STEP
                if ep.role == "prefill":
                    bootstrap = boot_next.get(node, BOOTSTRAP_BASE)
                    boot_next[node] = bootstrap + 1
                leader_bootstrap = bootstrap
            else:
                bootstrap = leader_bootstrap  # shared by every rank of the endpoint (srtctl), never 0
            sys_port = SYS_BASE + k
            ports = Ports(
                http=http,
                bootstrap=bootstrap,
                sys=sys_port,
                nccl=NCCL_BASE + k,
                kv_events=KV_EVENTS_BASE + k,
                nixl=NIXL_BASE + k,
                dist_init=DIST_INIT_PORT if len(ep.nodes) > 1 and rank == 0 else 0,
            )
            name = ep.name if rank == 0 else f"{ep.name}_r{rank}"
            out.append(Placement(name, ep, node, rank, ep.gpus, len(ep.gpus) < gpn, ports))
            k += 1
    return out


def with_recipe_ports(
    placements: list[Placement], port_flags: dict[str, str], role_args: Mapping[str, Mapping[str, object]]
) -> tuple[list[Placement], dict[str, dict[str, str]]]:
    """Move ports a recipe sets through a managed port flag (srtctl: the recipe's flag wins).

    Only processes that listen on that port move; returns the placements and, per role, the
    flag keys that were honoured this way (so the engine does not pass them twice).
    """
    moved: dict[str, dict[str, str]] = {}
    for role, args in role_args.items():
        for key, value in args.items():
            port_field = port_flags.get(flag_name(key))
            if port_field is not None and str(value).strip().isdigit():
                moved.setdefault(role, {})[port_field] = key
    out = []
    for pl in placements:
        fields = moved.get(pl.role, {})
        change = {f: int(str(role_args[pl.role][k]).strip()) for f, k in fields.items() if getattr(pl.ports, f)}
        out.append(replace(pl, ports=replace(pl.ports, **change)) if change else pl)
    return out, moved


def port_collisions(placements: list[Placement], moved: dict[str, dict[str, str]]) -> list[Problem]:
    """Two processes on one node listening on the same port, named, with the recipe flag that caused it."""
    problems: list[Problem] = []
    seen: dict[tuple[int, int], Placement] = {}
    for pl in placements:
        for port_field, port in pl.ports.listening().items():
            if port_field == "bootstrap" and pl.node_rank > 0:
                continue  # followers share the leader's bootstrap port; they do not bind it
            other = seen.setdefault((pl.node_index, port), pl)
            if other is pl:
                continue
            key = moved.get(pl.role, {}).get(port_field) or moved.get(other.role, {}).get(port_field)
            role = pl.role if port_field in moved.get(pl.role, {}) else other.role
            problems.append(
                Problem(
                    field=f"roles.{role}.args.{key}" if key else f"roles.{pl.role}",
                    message=f"{other.name} and {pl.name} would both listen on port {port} on node {pl.node_index}",
                    hint=f"remove `{key}` so srt-tui gives each worker its own port" if key else "report this",
                )
            )
    return problems


def dp_port_blocks(placements: list[Placement], ranks: Mapping[str, tuple[int, int]]) -> list[Placement]:
    """srtctl's ports for an engine that offsets them by the DP rank (vLLM): in placement order, a DP endpoint
    whose replica fits a node takes one NIXL block of its DP size (shared by its nodes) and, per node, a block
    of KV-event ports of its local DP size; every other process one port of each.

    `ranks`: per role, (DP size, TP x PP replica size); roles absent or with DP 1 are not data parallel.
    """
    kv, nixl, nixl_of = KV_EVENTS_BASE, NIXL_BASE, {}
    out = []
    for pl in placements:
        dp, replica = ranks.get(pl.role, (1, 1))
        if dp > 1 and replica <= len(pl.gpus):
            if pl.endpoint.name not in nixl_of:
                nixl_of[pl.endpoint.name], nixl = nixl, nixl + dp
            ports = replace(pl.ports, kv_events=kv, nixl=nixl_of[pl.endpoint.name])
            kv += len(pl.gpus) // replica
        else:
            ports = replace(pl.ports, kv_events=kv, nixl=nixl)
            kv, nixl = kv + 1, nixl + 1
        out.append(replace(pl, ports=ports))
    return out
