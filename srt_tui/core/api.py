"""The one entry point both faces use: load, resolve, plan and render a recipe on a profile."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from srt_tui.core.errors import SrtError
from srt_tui.core.plan.build import build_plan
from srt_tui.core.plan.model import JobPlan
from srt_tui.core.plan.resolve import resolve
from srt_tui.core.render.script import render_script
from srt_tui.core.spec.discovery import find_srtslurm
from srt_tui.core.spec.locate import locate
from srt_tui.core.spec.profile import LoadedProfile, load_profile
from srt_tui.core.spec.recipe import Recipe, RecipeSource, load_recipe
from srt_tui.core.spec.resolved import ResolvedJob
from srt_tui.core.spec.topology_string import TopologySpec


@dataclass(frozen=True)
class Prepared:
    """A job ready to preview or submit: resolved inputs, the plan, and the exact script text."""

    job: ResolvedJob
    plan: JobPlan
    script: str


def prepare_job(
    recipe: Recipe,
    profile: LoadedProfile,
    source: RecipeSource | None = None,
    topology: str | TopologySpec | None = None,
) -> Prepared:
    """Resolve, plan and render an already-loaded recipe (the wizard edits recipes in memory)."""
    try:
        job = resolve(profile, recipe, source, topology)
        plan = build_plan(job)
    except SrtError as exc:
        exc.problems = [locate(p, source) for p in exc.problems]
        raise
    return Prepared(job, plan, render_script(plan))


def choose_profile(recipe: Recipe, profile_spec: str | None, cwd: Path | None = None) -> LoadedProfile:
    """`-p` wins; else a discovered srtslurm.yaml; else the recipe's first declared profile; else `local`."""
    return profile_choice(recipe, profile_spec, cwd)[0]


#: what chose a job's profile (`profile_choice`): `-p`, srtctl's discovery (`$SRTSLURM_CONFIG`, or an
#: srtslurm.yaml in ./, ../, ../../), the recipe's first `profiles:` entry, or the default (`local`)
ProfileOrigin = Literal["-p", "SRTSLURM_CONFIG", "srtslurm.yaml", "recipe", "default"]


def profile_choice(
    recipe: Recipe | None, profile_spec: str | None, cwd: Path | None = None
) -> tuple[LoadedProfile, ProfileOrigin]:
    """`choose_profile`'s profile and what chose it; ``recipe`` None: the choice for a recipe naming no profile."""
    if profile_spec is not None:
        return load_profile(profile_spec, cwd), "-p"
    found = find_srtslurm(cwd)
    if found is not None:
        origin: ProfileOrigin = "SRTSLURM_CONFIG" if os.environ.get("SRTSLURM_CONFIG") else "srtslurm.yaml"
        return load_profile(str(found), cwd), origin
    if recipe is not None and recipe.profiles:
        return load_profile(recipe.profiles[0], cwd), "recipe"
    return load_profile(None, cwd), "default"


def prepare(
    recipe_spec: str | Path,
    profile_spec: str | None = None,
    topology: str | None = None,
    cwd: Path | None = None,
) -> Prepared:
    """Load a recipe file (`file.yaml[:variant]`) and a profile (name, path or discovery) and prepare it."""
    recipe, source = load_recipe(recipe_spec)
    profile = choose_profile(recipe, profile_spec, cwd)
    return prepare_job(recipe, profile, source, topology)
