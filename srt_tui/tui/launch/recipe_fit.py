"""Whether a recipe of the list fits the chosen profile as written, from its row's facts alone (no recipe model): its
nodes within `max_nodes`, its GPUs per node and GPU type those of the profile's nodes, and its engine installed here
when the profile runs engines on the host (`container_runtime: none`). The list marks the rows that fit and puts its
cursor on the first of them, so a profile Setup has just written shows which recipes run there (issue 21, op11:
none was marked, and the cursor sat on an AMD SGLang recipe of a cluster of fake GPUs)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from srt_tui.core.spec.aliases import container_known
from srt_tui.core.spec.job_size import gpu_misfit

if TYPE_CHECKING:
    from collections.abc import Mapping

    from srt_tui.core.spec.profile import LoadedProfile
    from srt_tui.tui.launch.recipe_catalog import RecipeEntry


@dataclass(frozen=True)
class ProfileFit:
    """What each row is checked against: the chosen profile's name and the facts of its cluster."""

    name: str
    max_nodes: int | None = None
    gpus_per_node: int | None = None
    gpu_type: str | None = None
    #: engines run on the host (`container_runtime: none`): their packages must be importable here; else in the
    #: container a recipe names, by one of the profile's aliases (`containers`) or written out
    on_host: bool = False
    containers: frozenset[str] = frozenset()

    @classmethod
    def of(cls, loaded: LoadedProfile) -> ProfileFit:
        """The facts of ``loaded``'s cluster."""
        profile = loaded.profile
        return cls(
            loaded.name,
            profile.max_nodes,
            profile.gpus_per_node,
            profile.default_gpu_type,
            profile.container_runtime == "none",
            frozenset(profile.containers or {}),
        )


@dataclass(frozen=True)
class Fit:
    """A row against the profile: why the job as written needs more nodes than it has (a ✗ row), else why it does
    not fit otherwise (no mark), else None for both (it fits); ``pending`` while the engine's packages are being
    looked for (neither said yet)."""

    too_big: str | None = None
    misfit: str | None = None
    pending: bool = False

    @property
    def fits(self) -> bool:
        """It fits as written (and is not still being checked)."""
        return self.too_big is None and self.misfit is None and not self.pending


def fit_of(entry: RecipeEntry, fit: ProfileFit, importable: Mapping[str, bool]) -> Fit:
    """How ``entry`` fits the cluster of ``fit``, ``importable`` saying which Python packages this machine's `python3`
    imports (a package not in it yet: `pending`). A broken row fits nothing."""
    if entry.broken or entry.size is None:
        return Fit(misfit=entry.error or "cannot be read")
    big = entry.too_big(fit.max_nodes, fit.gpus_per_node)
    if big:
        return Fit(too_big=big)
    gpus = gpu_misfit(entry.size, fit.gpus_per_node)
    if gpus:
        return Fit(misfit=gpus)
    if entry.gpu_type and entry.gpu_type.lower() != (fit.gpu_type or "").lower():
        has = f"{fit.name}'s are {fit.gpu_type}" if fit.gpu_type else f"{fit.name} names none (default_gpu_type)"
        return Fit(misfit=f"written for {entry.gpu_type} GPUs; {has}")
    if not fit.on_host:  # the container brings the engine: one the profile knows
        if entry.container is None:
            return Fit(misfit=f"names no container (model.container), which {fit.name}'s pyxis needs")
        if not container_known(entry.container, fit.containers):
            return Fit(misfit=f"its container `{entry.container}` is not one of {fit.name}'s (containers:)")
        return Fit()
    if entry.host_modules is None:
        return Fit(misfit="its engine does not say what it needs without a container (container_runtime: none)")
    if any(m not in importable for m in entry.host_modules):
        return Fit(pending=True)
    missing = [m for m in entry.host_modules if not importable[m]]
    if missing:
        names = ", ".join(f"`{m}`" for m in missing)
        return Fit(misfit=f"{names} not importable by python3 here (container_runtime: none runs engines on the host)")
    return Fit()
