"""Router registry: frontends declared by capability (see `base.Router`)."""

from __future__ import annotations

from .base import Router
from .dynamic import Direct, DynamoFrontend
from .static import AToMesh, SGLangRouter, VLLMRouter

ROUTERS: dict[str, Router] = {r.name: r for r in (SGLangRouter(), VLLMRouter(), AToMesh(), DynamoFrontend(), Direct())}


def get_router(name: str) -> Router:
    """The router adapter for a recipe's `frontend.type`."""
    return ROUTERS[name]
