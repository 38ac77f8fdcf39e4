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
