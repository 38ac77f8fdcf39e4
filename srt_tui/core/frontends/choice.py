"""The frontends a recipe could be served by: what the wizard offers when the engine and topology allow several.

Decided by the same rule validation applies (`fronts`: engine pairing, then `resolve_router` on the
topology), so a listed choice never fails on `frontend.type`. Spellings that run the same adapter
are offered once: the recipe's own spelling when it is one of them, else the fork's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from srt_tui.core.engines import get_engine
from srt_tui.core.engines.base import Engine
from srt_tui.core.frontends.routers import resolve_router
from srt_tui.core.frontends.routers.base import Router
from srt_tui.core.spec.frontend_types import FRONTEND_TYPES
from srt_tui.core.spec.recipe import Recipe
from srt_tui.core.spec.resolved import topology_of

Misfit = Literal["engine", "topology"]


@dataclass(frozen=True)
class FrontendChoice:
    """One `frontend.type` to write, the adapter it runs for this topology, and whether it fits."""

    written: str
    runs: str
    fits: bool
    #: the adapter it runs serves directly: no router process, the single worker owns the public port
    direct: bool = False

    @property
    def label(self) -> str:
        """`vllm-router`, `sglang → sglang-router`, `no router: worker serves` (its two words first: the Topology
        step's row is some 20 columns wide at 80, and `sglang (the worker serves, no` read as a router)."""
        if self.direct:
            text = "no router: worker serves"
        elif self.runs == self.written:
            text = self.written
        else:
            text = f"{self.written} → {self.runs}"
        return text if self.fits else f"{text} ✗ does not fit"


def misfit(written: str, router: Router, engine: Engine, disagg: bool, workers: int) -> Misfit | None:
    """Why a written `frontend.type`, running `router`, cannot serve these workers: `engine` (the type or
    its router does not pair with the engine), `topology` (it serves one aggregated worker directly but
    the job has more), None when it fits. The one rule behind the wizard's choices and validation."""
    ft = FRONTEND_TYPES[written]
    if (ft.engines and engine.name not in ft.engines) or router.name not in engine.frontends:
        return "engine"
    if router.serves_directly and (disagg or workers > 1):
        return "topology"
    return None


def fronts(written: str, engine: Engine, disagg: bool, workers: int) -> bool:
    """Can this written `frontend.type` serve these workers (engine pairing and topology)?"""
    return misfit(written, resolve_router(written, disagg, workers), engine, disagg, workers) is None


def frontend_choices(recipe: Recipe) -> list[FrontendChoice]:
    """Every adapter that can front this recipe's workers, once each, the written type first.

    The written type is listed even when it does not fit (marked), so the choice starts from what the
    file says; srt-tui's `none` alias is never offered (it is spelled by the adapter it means).
    """
    engine = get_engine(recipe.engine.type)
    topo = topology_of(recipe)
    workers = topo.prefill + topo.decode + topo.agg
    written = recipe.frontend.type

    def choice(name: str) -> FrontendChoice:
        runs = resolve_router(name, topo.disaggregated, workers)
        return FrontendChoice(name, runs.name, fronts(name, engine, topo.disaggregated, workers), runs.serves_directly)

    mine = choice(written)
    out = [mine]
    seen = {mine.runs} if mine.fits else set()
    for name in FRONTEND_TYPES:
        if name in (written, "none"):
            continue
        candidate = choice(name)
        if candidate.fits and candidate.runs not in seen:
            seen.add(candidate.runs)
            out.append(candidate)
    return out


def with_frontend(recipe: Recipe, written: str) -> Recipe:
    """The recipe with another `frontend.type` (everything else of its frontend block kept)."""
    if written == recipe.frontend.type:
        return recipe
    return recipe.model_copy(update={"frontend": recipe.frontend.model_copy(update={"type": written})})
