"""Router registry and the one resolver from a recipe's `frontend.type` (as written) to its adapter.

The built-ins are registered in the one table below; another router's module calls `register_router` for itself.

Adapters are keyed by what runs (`sglang-router`, `smg`, `vllm-router`, `atomesh`, `dynamo`, `direct`); the
written type is the fork's spelling (`sglang`, `vllm`, `atom`, ...) or an srt-tui alias, and
`resolve_router` alone decides, from the topology, which adapter it means. Callers read the adapter's
declared capabilities (`worker_launch`, `worker_api`, `worker_port`, ...) instead of its name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from srt_tui.core import registry
from srt_tui.core.frontends.routers.base import Router
from srt_tui.core.frontends.routers.dynamic import Direct, DynamoFrontend
from srt_tui.core.frontends.routers.smg import SMG
from srt_tui.core.frontends.routers.static import AToMesh, SGLangRouter, VLLMRouter
from srt_tui.core.spec.frontend_types import FRONTEND_TYPES, FrontendType, add_frontend_type

if TYPE_CHECKING:
    from srt_tui.core.spec.resolved import ResolvedJob

#: every registered router by its adapter name (a live view of the registry: later registrations appear)
ROUTERS: dict[str, Router] = registry.table("router", Router)


def register_router(router: Router) -> Router:
    """Make a router available under its `name`; a router process is also a `frontend.type` spelling of itself."""
    registry.register("router", router.name, router)
    if not router.serves_directly and router.name not in FRONTEND_TYPES:
        add_frontend_type(FrontendType(router.name, router.name, direct_single=False))
    return router


for _builtin in (SGLangRouter(), SMG(), VLLMRouter(), AToMesh(), DynamoFrontend(), Direct()):
    register_router(_builtin)


def get_router(name: str) -> Router:
    """The router adapter of that name (`sglang-router`, `smg`, `vllm-router`, `atomesh`, `dynamo`, `direct`)."""
    return ROUTERS[name]


def resolve_router(written: str, disaggregated: bool, workers: int) -> Router:
    """The adapter a written `frontend.type` means for this topology.

    One aggregated worker under a type that serves directly (`sglang`, `vllm`, `atom`, `trtllm_serve`,
    `none`) runs no router; several workers or prefill/decode take the type's router. A type without
    a router (`vllm`, `atom`, ...) stays direct, and validation refuses the topology with its hint.
    """
    ft = FRONTEND_TYPES[written]
    single = not disaggregated and workers == 1
    if ft.routed is None or (ft.direct_single and single):
        return ROUTERS["direct"]
    return ROUTERS[ft.routed]


def job_router(job: ResolvedJob) -> Router:
    """The adapter of a resolved job: its written `frontend.type` and its topology."""
    return resolve_router(job.recipe.frontend.type, job.topology.disaggregated, job.worker_count)
