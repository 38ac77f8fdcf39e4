"""Each `#SBATCH` directive names where it comes from (issue 11, item 5: the profile's account, time and
partition were attributed to srt-tui)."""

from __future__ import annotations

from srt_tui.core.plan.directive_origin import directive_origin
from srt_tui.core.plan.resolve import resolve
from srt_tui.core.spec.profile import load_profile
from srt_tui.core.spec.recipe import SlurmSpec, load_recipe
from tests.core.core_helpers import RECIPES_DIR

RECIPE = RECIPES_DIR / "nvidia" / "h100-2p1d-sglang.yaml"


def test_profile_defaults_are_the_profiles_and_recipe_values_the_recipes() -> None:
    recipe, _ = load_recipe(str(RECIPE))
    job = resolve(load_profile("nvidia-h100"), recipe)
    origins = {k: directive_origin(job, k) for k, _ in job.directives}
    assert origins["account"] == "profile (default_account)"
    assert origins["partition"] == "profile (default_partition)"
    assert origins["time"] == "profile (default_time_limit)"
    assert origins["gpus-per-node"] == "profile (use_gpus_per_node_directive)"
    assert origins["nodes"] == "srt-tui (topology)"
    assert origins["job-name"] == "recipe (name)"

    mine = recipe.model_copy(
        update={
            "slurm": SlurmSpec(time_limit="00:30:00"),
            "sbatch_directives": {"partition": "debug", "comment": "x"},
        }
    )
    job = resolve(load_profile("nvidia-h100"), mine)
    origins = {k: directive_origin(job, k) for k, _ in job.directives}
    assert origins["time"] == "recipe (slurm.time_limit)"
    assert origins["partition"] == "recipe (sbatch_directives)"
    assert origins["comment"] == "recipe (sbatch_directives)"
    assert origins["account"] == "profile (default_account)"


def test_a_job_name_renamed_for_a_new_topology_says_so() -> None:
    """`h100-2p1d-sglang` run as 1P2D is named `h100-1p2d-sglang`: not the recipe's `name:` (issue 21)."""
    from srt_tui.core.plan.resolve import apply_topology
    from srt_tui.core.spec.topology_string import parse_topology

    recipe, _ = load_recipe(str(RECIPE))
    renamed = apply_topology(recipe, parse_topology("1P2D"), 8)
    job = resolve(load_profile("nvidia-h100"), renamed)
    assert dict(job.directives)["job-name"] == renamed.name != recipe.name
    assert directive_origin(job, "job-name", recipe.name) == (
        f"srt-tui (the recipe's name `{recipe.name}`, renamed for the topology)"
    )
    assert directive_origin(job, "job-name", renamed.name) == "recipe (name)"
