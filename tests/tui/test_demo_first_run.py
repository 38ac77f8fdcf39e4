"""Issue 21 polish: the demo's first recipe finishes in seconds, so the README's first run names a recipe of the
embedded `local` profile that keeps serving until cancelled (benchmark `manual`), and says the first one ends."""

from __future__ import annotations

import re
from pathlib import Path

from srt_tui.core.spec.recipe import load_recipe

REPO = Path(__file__).resolve().parents[2]


def test_the_readmes_first_run_names_a_demo_recipe_that_keeps_serving() -> None:
    readme = (REPO / "README.md").read_text()
    first_run = next(p for p in readme.split("\n\n") if p.startswith("First run"))  # its lead line and steps
    named = re.findall(r"`(mocker-[\w-]+)`", first_run)
    assert len(named) == 2, first_run  # the one highlighted first, and the one that keeps serving
    ends, serves = (load_recipe(REPO / "recipes" / "mocker" / f"{n}.yaml")[0] for n in named)
    assert ends.benchmark.type != "manual" and "ends the job" in first_run
    assert serves.benchmark.type == "manual" and "local" in serves.profiles, named
