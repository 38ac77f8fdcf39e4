"""How many nodes a recipe's job takes, from its roles alone: what resolving builds the role shapes from, and what the
recipe list checks against a profile's `max_nodes` for every row of srtctl's library (plain numbers, kept with a
row's facts: no recipe model is needed to check a row against the profile chosen later)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from srt_tui.core.spec.recipe import Recipe, Role, RoleSpec

#: GPUs per node when neither the recipe nor the profile says (srtctl's default)
DEFAULT_GPUS_PER_NODE = 8


def gpus_per_worker(spec: RoleSpec | RoleSize, gpn: int, fallback: int | None = None) -> int:
    """A worker's GPUs: as written, else its role's nodes shared among its workers, else ``fallback`` (decode takes
    prefill's), else one whole node."""
    if spec.gpus is not None:
        return spec.gpus
    if isinstance(spec.nodes, int) and spec.nodes > 0 and spec.workers > 0:
        return max(1, spec.nodes * gpn // spec.workers)
    return fallback or gpn


def nodes_for(workers: int, gpus: int, gpn: int, spread: bool) -> int:
    """Nodes a role needs when the recipe does not say: packed, or one per partial worker with `spread_workers`."""
    if spread and gpus < gpn:
        return workers
    return math.ceil(workers * gpus / gpn)


@dataclass(frozen=True)
class RoleSize:
    """One role as written: workers, GPUs per worker (None: derived), nodes (None: derived; or `colocate`)."""

    role: Role
    workers: int
    gpus: int | None
    nodes: int | str | None


@dataclass(frozen=True)
class RoleShape:
    """A role's resolved shape: workers, GPUs per worker, the nodes it asks for (0 when colocated)."""

    role: Role
    workers: int
    gpus: int
    nodes: int
    colocate: bool


def worker_nodes_of(shapes: tuple[RoleShape, ...]) -> int:
    """Nodes the workers are packed onto: every non-colocated role's nodes, at least one."""
    return sum(s.nodes for s in shapes if not s.colocate) or 1


@dataclass(frozen=True)
class JobSize:
    """What a job's node count follows from: its roles with workers, the recipe's own GPUs per node (None: the
    profile's), `spread_workers`, and the node a dedicated etcd/NATS takes."""

    roles: tuple[RoleSize, ...]
    gpus_per_node: int | None = None
    spread_workers: bool = False
    reserved: int = 0

    @classmethod
    def of(cls, recipe: Recipe) -> JobSize:
        """The size of ``recipe`` as written (roles with no worker left out)."""
        from srt_tui.core.spec.recipe import ROLES

        roles = tuple(
            RoleSize(role, spec.workers, spec.gpus, spec.nodes)
            for role in ROLES
            if (spec := recipe.roles.get(role)) is not None and spec.workers > 0
        )
        reserved = 1 if recipe.infra.etcd_nats_dedicated_node else 0
        return cls(roles, recipe.resources.gpus_per_node, recipe.resources.spread_workers, reserved)

    def node_gpus(self, profile_gpus: int | None) -> int:
        """GPUs per node: the recipe's, else the profile's, else srtctl's default."""
        return self.gpus_per_node or profile_gpus or DEFAULT_GPUS_PER_NODE

    def shapes(self, gpn: int) -> tuple[RoleShape, ...]:
        """Each role's shape on nodes of ``gpn`` GPUs (decode's GPUs default to prefill's, as srtctl's)."""
        out: list[RoleShape] = []
        prefill_g: int | None = None
        for spec in self.roles:
            colocate = spec.nodes == "colocate"
            g = gpus_per_worker(spec, gpn, prefill_g if spec.role == "decode" else None)
            if spec.role == "prefill":
                prefill_g = g
            if colocate:
                nodes = 0
            elif isinstance(spec.nodes, int):
                nodes = spec.nodes
            else:
                nodes = nodes_for(spec.workers, g, gpn, self.spread_workers)
            out.append(RoleShape(spec.role, spec.workers, g, nodes, colocate))
        return tuple(out)

    def nodes(self, profile_gpus: int | None) -> int:
        """Nodes the job takes with a profile of ``profile_gpus`` GPUs per node: its workers' (at least one) and a
        dedicated etcd/NATS node."""
        return self.reserved + worker_nodes_of(self.shapes(self.node_gpus(profile_gpus)))

    def facts(self) -> list[Any]:
        """The size as JSON (kept with a recipe row's facts in the cache and sent by the reader process)."""
        roles = [[r.role, r.workers, r.gpus, r.nodes] for r in self.roles]
        return [roles, self.gpus_per_node, self.spread_workers, self.reserved]

    @classmethod
    def from_facts(cls, data: Any) -> JobSize:
        """The size `facts` described (ValueError when ``data`` is not such a description)."""
        try:
            roles, gpn, spread, reserved = data
            sizes = tuple(RoleSize(*_role(*r)) for r in roles)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"not a job size: {exc}") from exc
        if not (_count(gpn, none=True) and isinstance(spread, bool) and _count(reserved)):
            raise ValueError("not a job size: a count that is not a number")
        return cls(sizes, gpn, spread, reserved)


def _count(value: object, none: bool = False) -> bool:
    return (value is None and none) or (isinstance(value, int) and not isinstance(value, bool) and value >= 0)


def _role(role: object, workers: object, gpus: object, nodes: object) -> tuple[Role, int, int | None, int | str | None]:
    """A role's facts checked (ValueError when one is off)."""
    if role not in ("prefill", "decode", "agg") or not _count(workers) or not _count(gpus, none=True):
        raise ValueError("a role that is not one")
    if not (_count(nodes, none=True) or nodes == "colocate"):
        raise ValueError("a role's nodes that are not a count")
    return role, cast(int, workers), cast("int | None", gpus), cast("int | str | None", nodes)


def too_big(size: JobSize, max_nodes: int | None, profile_gpus: int | None) -> str | None:
    """Why a job of ``size`` does not fit a cluster of ``max_nodes`` (`needs 7 nodes; this cluster has 3
    (max_nodes)`), or None when it fits or the profile sets no limit."""
    if max_nodes is None:
        return None
    nodes = size.nodes(profile_gpus)
    if nodes <= max_nodes:
        return None
    return f"needs {nodes} nodes; this cluster has {max_nodes} (max_nodes)"


def gpu_misfit(size: JobSize, profile_gpus: int | None) -> str | None:
    """Why a job of ``size`` is not written for nodes of ``profile_gpus`` GPUs: the recipe's own GPUs per node differ
    (`written for nodes of 4 GPUs; this cluster's have 8`), or a role's workers do not tile a node (`prefill workers of
    3 GPUs do not divide a node's 8`); None when they fit or the profile does not say."""
    if profile_gpus is None:
        return None
    if size.gpus_per_node is not None and size.gpus_per_node != profile_gpus:
        return f"written for nodes of {size.gpus_per_node} GPUs; this cluster's have {profile_gpus}"
    for shape in size.shapes(profile_gpus):
        g = shape.gpus
        if g < 1:  # refused as the recipe is read: no such row is checked here
            continue
        if g < profile_gpus and profile_gpus % g:
            return f"{shape.role} workers of {g} GPUs do not divide a node's {profile_gpus}"
        if g > profile_gpus and g % profile_gpus:
            return f"{shape.role} workers of {g} GPUs are not whole nodes of {profile_gpus}"
    return None
