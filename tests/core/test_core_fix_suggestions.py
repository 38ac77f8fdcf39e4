"""A fix the validator suggests must itself validate (issue 11, item 5: "set tp-size: 3" when 3 was
itself invalid). Every GPUs/TP shape on 8-GPU nodes: apply each suggested value, validate again, and
the role has no GPU or parallelism error left."""

from __future__ import annotations

import re

import pytest

from srt_tui.core.errors import Problem
from srt_tui.core.plan.resolve import resolve, with_roles
from srt_tui.core.plan.validate import validate
from srt_tui.core.spec.profile import load_profile
from srt_tui.core.spec.recipe import Recipe, load_recipe
from tests.core.core_helpers import RECIPES_DIR

RECIPE = RECIPES_DIR / "nvidia" / "h100-2p1d-sglang.yaml"
FIX = re.compile(r"roles\.prefill\.(gpus|args\.tp-size): (\d+)")
SHAPES = [(g, tp) for g in range(1, 17) for tp in range(1, 17)]


def _with_prefill(recipe: Recipe, gpus: int, tp: int) -> Recipe:
    spec = recipe.roles["prefill"]
    args = {**spec.args, "tp-size": tp}
    prefill = spec.model_copy(update={"gpus": gpus, "nodes": None, "args": args})
    return with_roles(recipe, {**recipe.roles, "prefill": prefill})


def _prefill_problems(recipe: Recipe) -> list[Problem]:
    job = resolve(load_profile("nvidia-h100"), recipe)
    return [p for p in validate(job) if p.field.startswith("roles.prefill.") and not p.field.endswith(".nodes")]


@pytest.mark.parametrize(("gpus", "tp"), SHAPES, ids=[f"gpus{g}-tp{t}" for g, t in SHAPES])
def test_every_suggested_gpu_or_tp_value_validates(gpus: int, tp: int) -> None:
    base, _ = load_recipe(str(RECIPE))
    recipe = _with_prefill(base, gpus, tp)
    for problem in _prefill_problems(recipe):
        for key, value in FIX.findall(problem.hint):
            fixed = _with_prefill(recipe, int(value), tp) if key == "gpus" else _with_prefill(recipe, gpus, int(value))
            left = [p for p in _prefill_problems(fixed) if p.severity == "error"]
            # the fix resolves what it was offered for; a TP change may leave a GPU-shape error it did not address
            if key == "gpus":
                assert not left, f"{problem.render()} → after the fix: {[p.render() for p in left]}"
            else:
                assert not [p for p in left if p.field == problem.field], f"{problem.render()} → {left}"


def test_the_divisor_hint_holds_the_worker_parallelism() -> None:
    base, _ = load_recipe(str(RECIPE))
    hints = {p.field: p.hint for p in _prefill_problems(_with_prefill(base, 3, 4))}
    assert hints["roles.prefill.gpus"] == "use a divisor of 8, e.g. 4"  # 2 would not hold TP 4
    assert hints["roles.prefill.args.tp-size"] == "give roles.prefill.gpus: 4"  # 3 GPUs is no fix to lower to
    warn = {p.field: p.hint for p in _prefill_problems(_with_prefill(base, 4, 3))}
    assert warn["roles.prefill.args.tp-size"] == "set roles.prefill.args.tp-size: 4 to use them"  # not gpus: 3
