"""The resolved job: profile + recipe + overrides decided once, as one immutable model.

It sits below the engines, frontends and benchmarks that read it; building it (`plan/resolve.py`) sits
above them, since resolving asks the engine adapters how they launch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from srt_tui.core.errors import Problem
from srt_tui.core.spec.job_size import RoleShape, worker_nodes_of
from srt_tui.core.spec.profile import GpuExporter, HealthCheck, Profile
from srt_tui.core.spec.recipe import Recipe, Role
from srt_tui.core.spec.secrets import KNOWN_SECRETS
from srt_tui.core.spec.topology_string import TopologySpec


@dataclass(frozen=True)
class Mount:
    """One container mount and where it came from (built-in, profile or recipe)."""

    host: str
    container: str
    source: str
    readonly: bool = False


@dataclass(frozen=True)
class ResolvedJob:
    """Everything needed to plan and render one job, decided once."""

    recipe: Recipe
    profile: Profile
    profile_name: str
    profile_path: Path | None
    recipe_path: Path | None
    variant: str | None
    topology: TopologySpec
    shapes: tuple[RoleShape, ...]
    gpus_per_node: int
    visible_devices_env: str
    interface: str
    container_runtime: str
    model_path: str
    model_in_step: str
    container_image: str | None
    account: str | None
    partition: str | None
    time_limit: str
    directives: tuple[tuple[str, str | None], ...]
    mounts: tuple[Mount, ...]
    env_scopes: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]
    srun_options: tuple[tuple[str, str | None], ...]
    gpu_exporter: GpuExporter | None
    exporter_source: str
    health_check: HealthCheck
    output_dir: str | None
    bash_preamble: str | None
    #: srtctl's `setup_script` as the steps see it: `/configs/<name>`, then `/configs/patches/<name>`
    setup_script: tuple[str, ...] = ()
    #: variable names whose values are secrets (known names plus the profile's `secret_env`)
    secret_names: frozenset[str] = KNOWN_SECRETS
    warnings: tuple[Problem, ...] = field(default=())
    #: nodes reserved before the worker nodes (1 with `infra.etcd_nats_dedicated_node`)
    reserved_nodes: int = 0
    #: nginx in front of several routers: its image (pyxis; alias or literal, as srtctl) and ulimit choice
    nginx_image: str | None = None
    nginx_raise_ulimit: bool = False

    @property
    def worker_count(self) -> int:
        """Worker processes of every role (what decides whether a direct frontend can serve them)."""
        return sum(s.workers for s in self.shapes)

    @property
    def worker_nodes(self) -> int:
        """Nodes the workers are packed onto."""
        return worker_nodes_of(self.shapes)

    @property
    def total_nodes(self) -> int:
        """Nodes asked of Slurm: the reserved ones, then the workers'."""
        return self.reserved_nodes + self.worker_nodes

    def shape(self, role: Role) -> RoleShape | None:
        """Shape of one role, or None when the job has no such workers."""
        return next((s for s in self.shapes if s.role == role), None)

    def env(self, scope: str) -> dict[str, str]:
        """Environment of a scope: global, prefill, decode, agg, frontend, benchmark."""
        for name, pairs in self.env_scopes:
            if name == scope:
                return dict(pairs)
        return {}


def topology_of(recipe: Recipe) -> TopologySpec:
    """The recipe's own topology string."""
    roles = recipe.roles
    agg = roles.get("agg")
    if agg is not None and agg.workers > 0:
        return TopologySpec(agg=agg.workers)
    p, d = roles.get("prefill"), roles.get("decode")
    return TopologySpec(prefill=p.workers if p else 0, decode=d.workers if d else 0)
