"""A job read back for the wizard ("clone"): its recipe, profile and topology from its directory.

The recipe is the one the job ran (`recipe.yaml`, with every wizard edit) unless the job has secrets, whose
values that copy masks: then it is the recipe file `job.json` names, at the job's topology. The profile is
the one `job.json` names, else the directory's `profile.yaml`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from srt_tui.core.errors import Problem, SrtError
from srt_tui.core.jobdir.contract import JobDirError, read_job_meta, read_plan
from srt_tui.core.plan.resolve import apply_topology
from srt_tui.core.spec.profile import LoadedProfile, load_profile
from srt_tui.core.spec.recipe import Recipe, RecipeSource, load_recipe
from srt_tui.core.spec.resolved import topology_of
from srt_tui.core.spec.topology_string import parse_topology


@dataclass(frozen=True)
class ClonedJob:
    """What the wizard starts from: the recipe (at the job's topology), where it came from, the profile."""

    job_id: str
    recipe: Recipe
    source: RecipeSource
    profile: LoadedProfile
    #: which recipe was read, for the operator (`the job's recipe.yaml`, `recipes/x.yaml (its secrets…)`)
    origin: str


def _shape(job_dir: Path) -> tuple[str, bool]:
    """(the job's topology, whether it has secrets) from plan.json: the one read of it here."""
    plan = read_plan(job_dir)
    return plan.topology, bool(plan.secret_env)


def read_clone(job_dir: Path) -> ClonedJob:
    """The job in ``job_dir`` as the wizard's starting point; SrtError saying what cannot be read."""
    try:
        meta = read_job_meta(job_dir)
        topology, has_secrets = _shape(job_dir)
    except JobDirError as exc:
        raise SrtError([Problem("JOB", f"{exc.path} is unreadable: {exc.problem}", exc.fix)]) from None
    ran = job_dir / "recipe.yaml"
    named = f"{meta.recipe_path}:{meta.variant}" if meta.recipe_path and meta.variant else meta.recipe_path
    if ran.is_file() and not has_secrets:
        recipe, source = load_recipe(ran)
        origin = "the recipe the job ran (its recipe.yaml)"
    elif named:
        recipe, source = load_recipe(named)
        origin = f"{named} (the job's recipe.yaml masks its secrets)" if has_secrets else named
    else:
        hint = "open the recipe in the wizard yourself"
        raise SrtError([Problem("JOB", f"job {meta.job_id} names no recipe file it came from", hint)])
    profile = _profile(job_dir, meta.profile)
    if topology and str(topology_of(recipe)).lower() != topology.lower():
        gpn = recipe.resources.gpus_per_node or profile.profile.gpus_per_node or 8
        recipe = apply_topology(recipe, parse_topology(topology), gpn)
    return ClonedJob(meta.job_id, recipe, source, profile, origin)


def _profile(job_dir: Path, name: str) -> LoadedProfile:
    """The profile by the name the job recorded, else the copy in its directory."""
    try:
        return load_profile(name or None)
    except SrtError:
        if not (job_dir / "profile.yaml").is_file():
            raise
        return load_profile(str(job_dir / "profile.yaml"))
