"""The router choices the wizard offers: one per adapter that can front the engine and topology, the
recipe's own spelling first, and each one passes validation's `frontend.type` check."""

from __future__ import annotations

import pytest

from srt_tui.core.frontends.choice import frontend_choices, with_frontend
from srt_tui.core.plan.resolve import resolve
from srt_tui.core.plan.validate import validate
from srt_tui.core.spec.profile import load_profile
from srt_tui.core.spec.recipe import load_recipe
from tests.core.core_helpers import RECIPES_DIR


def _labels(recipe_file: str) -> list[str]:
    recipe, _ = load_recipe(str(RECIPES_DIR / recipe_file))
    return [c.label for c in frontend_choices(recipe)]


def test_choices_per_engine_and_topology() -> None:
    assert _labels("mocker/mocker-2p1d.yaml") == ["sglang → sglang-router", "smg", "vllm-router", "atomesh", "dynamo"]
    assert _labels("mocker/mocker-2p1d-vllm-router.yaml")[0] == "vllm-router"  # the written one first
    assert _labels("mocker/mocker-agg-direct.yaml")[:2] == ["no router: worker serves", "sglang-router"]
    # vLLM: no SGLang router, but the Shepherd Model Gateway detects vLLM workers
    assert _labels("nvidia/h100-2p1d-vllm-router.yaml") == ["vllm-router", "smg", "dynamo"]


def test_a_written_type_that_does_not_fit_is_listed_and_marked() -> None:
    recipe, _ = load_recipe(str(RECIPES_DIR / "mocker" / "mocker-2p1d.yaml"))
    choices = frontend_choices(with_frontend(recipe, "vllm"))  # serves one worker only
    assert choices[0].written == "vllm" and not choices[0].fits and choices[0].label.endswith("✗ does not fit")
    assert all(c.fits for c in choices[1:])


@pytest.mark.parametrize(
    "recipe_file", ["mocker/mocker-2p1d.yaml", "mocker/mocker-agg2.yaml", "nvidia/h100-agg-sglang.yaml"]
)
def test_every_offered_choice_passes_the_frontend_check(recipe_file: str) -> None:
    recipe, _ = load_recipe(str(RECIPES_DIR / recipe_file))
    profile = load_profile(recipe.profiles[0])
    for choice in frontend_choices(recipe):
        job = resolve(profile, with_frontend(recipe, choice.written))
        assert [p.render() for p in validate(job) if p.field == "frontend.type"] == [], choice
