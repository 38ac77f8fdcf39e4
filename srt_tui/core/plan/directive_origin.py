"""Where each `#SBATCH` directive of a resolved job comes from: the recipe, the profile, or srt-tui.

The preview's sbatch tab shows it so the operator edits the right file: the profile's default account
is the profile's, not srt-tui's. Follows the precedence `resolve._directives` applies (recipe's
`sbatch_directives` over the profile's `default_sbatch_directives` over the planned values).
"""

from __future__ import annotations

from srt_tui.core.spec.resolved import ResolvedJob

#: directives srt-tui plans itself (from the topology)
_PLANNED = {"nodes", "ntasks", "ntasks-per-node"}
#: directives a profile switch turns on
_PROFILE_SWITCHES = {
    "gpus-per-node": "use_gpus_per_node_directive",
    "segment": "use_segment_sbatch_directive",
    "exclusive": "use_exclusive_sbatch_directive",
}


def directive_origin(job: ResolvedJob, key: str, loaded_name: str | None = None) -> str:
    """`recipe (slurm.account)`, `profile (default_account)`, `srt-tui (topology)`... for one directive.

    ``loaded_name``: the `name:` of the recipe as it was read, before the wizard's changes; a job name that
    differs from it was renamed by srt-tui for a new topology (`mocker-2p1d` run as 1P2D: `mocker-1p2d`)."""
    recipe, profile = job.recipe, job.profile
    if key in recipe.sbatch_directives:
        return "recipe (sbatch_directives)"
    if key in (profile.default_sbatch_directives or {}):
        return "profile (default_sbatch_directives)"
    if key == "job-name":
        if loaded_name and loaded_name != recipe.name:
            return f"srt-tui (the recipe's name `{loaded_name}`, renamed for the topology)"
        return "recipe (name)"
    if key in _PLANNED:
        return "srt-tui (topology)"
    if key in _PROFILE_SWITCHES:
        return f"profile ({_PROFILE_SWITCHES[key]})"
    chosen: dict[str, tuple[object, str, object, str]] = {
        "account": (recipe.slurm.account, "slurm.account", profile.default_account, "default_account"),
        "partition": (recipe.slurm.partition, "slurm.partition", profile.default_partition, "default_partition"),
        "time": (recipe.slurm.time_limit, "slurm.time_limit", profile.default_time_limit, "default_time_limit"),
    }
    if key in chosen:
        in_recipe, recipe_key, in_profile, profile_key = chosen[key]
        if in_recipe:
            return f"recipe ({recipe_key})"
        if in_profile:
            return f"profile ({profile_key})"
    return "srt-tui (default)"
