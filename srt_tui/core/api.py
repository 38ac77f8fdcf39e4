"""The one entry point both faces use: load, resolve, plan and render a recipe on a profile."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .plan import JobPlan, build_plan
from .profile import LoadedProfile, find_srtslurm, load_profile
from .recipe import Recipe, RecipeSource, load_recipe
from .render import render_script
from .resolve import ResolvedJob, resolve
from .topology_string import TopologySpec


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
    job = resolve(profile, recipe, source, topology)
    plan = build_plan(job)
    return Prepared(job, plan, render_script(plan))


def choose_profile(recipe: Recipe, profile_spec: str | None, cwd: Path | None = None) -> LoadedProfile:
    """`-p` wins; else a discovered srtslurm.yaml; else the recipe's first declared profile; else `local`."""
    if profile_spec is not None:
        return load_profile(profile_spec, cwd)
    found = find_srtslurm(cwd)
    if found is not None:
        return load_profile(str(found), cwd)
    return load_profile(recipe.profiles[0] if recipe.profiles else None, cwd)


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
