"""Roles → endpoints → processes: nodes, GPU indices, masks and ports (pure functions, srtctl's rules).

Workers are packed in prefill, decode, agg order along the node list; a worker with fewer GPUs than a
node takes a contiguous range, a larger one whole nodes. Prefill and decode never share a partially
used node unless decode is `colocate`. Ports follow srtctl's allocator so srtctl users recognise them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .engines.base import Ports
from .errors import Problem, TopologyError
from .recipe import Role
from .resolve import RoleShape

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


def allocate(shapes: tuple[RoleShape, ...], gpn: int, total_nodes: int, spread: bool = False) -> list[Endpoint]:
    """Pack every role's workers onto nodes; raises TopologyError when they do not fit."""
    endpoints: list[Endpoint] = []
    node, offset = 0, 0
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


def place(endpoints: list[Endpoint], gpn: int) -> list[Placement]:
    """One process per node of each endpoint, with srtctl's port plan (never colliding on a node)."""
    http_next: dict[int, int] = {}
    boot_next: dict[int, int] = {}
    out: list[Placement] = []
    k = 0
    leader_bootstrap = 0
    for ep in endpoints:
        for rank, node in enumerate(ep.nodes):
            http = bootstrap = 0
            if rank == 0:
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
