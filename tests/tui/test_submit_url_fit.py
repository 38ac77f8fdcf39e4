"""Issue 21 polish: at 80 columns the Submit step folded its URL mid-way (`serving at http://<ip:node0` then
`>:8000`); the URL goes whole on a line of its own under its label when it does not fit beside it."""

from __future__ import annotations

from datetime import datetime

import pytest
from textual.geometry import Region

from srt_tui.tui.app import SrtTuiApp
from tests.tui.scenarios import SCENARIOS, Scenario, reach


async def request_lines(scenario: Scenario, size: tuple[int, int], strip: bool) -> list[str]:
    """The Submit step's request box for `scenario` at `size`, line by line (Slurm not found: nothing sent)."""
    app = SrtTuiApp(
        profile=scenario.profile,
        clock=lambda: datetime(2026, 1, 2, 3, 4, 5),
        slurm_probe=lambda: (False, "sinfo: command not found"),
        cursor_blink=False,
    )
    async with app.run_test(size=size) as pilot:
        await reach(pilot, scenario, "submit", typed=False)
        await pilot.pause()
        request = app.screen.query_one("#request")
        rows = request.render_lines(Region(0, 0, request.size.width, request.size.height))
        return [s.text.strip() if strip else s.text.rstrip() for s in rows]


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_the_submit_steps_url_is_shown_whole(size: tuple[int, int]) -> None:
    lines = await request_lines(SCENARIOS["nvidia"], size, strip=True)
    url = "http://<ip:node0>:8000"
    assert url in lines or f"serving at {url}" in [" ".join(line.split()) for line in lines], lines


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
@pytest.mark.parametrize(
    ("query", "says"),
    [
        # the demo profile runs here (Slurm not found): no time limit ends a job on this machine
        ("mocker-1p2d", "manual: none runs; the job serves until cancelled (c in the Monitor)"),
        ("mocker-1p1d", "sa-bench: the job ends when it finishes (its figures: R in the Monitor)"),
    ],
)
async def test_the_submit_step_says_whether_the_job_ends_by_itself(
    size: tuple[int, int], query: str, says: str
) -> None:
    """Operator pass (issue 21): nothing on Submit told mocker-1p2d (serves until cancelled, holding its nodes)
    from mocker-1p1d (ends after its benchmark). A `benchmark` row says it; and at 80 columns no value is
    folded mid-token (`--gpus-per-node=` / `8` was: the key column was as wide as `other directives`)."""
    lines = await request_lines(Scenario("local", "local", query), size, strip=False)
    text = " ".join(" ".join(line.split()) for line in lines)
    assert f"benchmark {says}" in text and "time limit" in text and "its time limit" not in text, lines
    lines = await request_lines(SCENARIOS["nvidia"], size, strip=False)  # what Slurm is asked, whole
    assert any("--gpus-per-node=8" in line for line in lines), lines


async def test_the_submit_step_names_nginx_and_its_routers() -> None:
    # a job behind nginx said `router sglang-router`, as if one router took its requests
    lines = await request_lines(Scenario("nginx", "local", "agg3-nginx"), (120, 36), strip=True)
    assert any(" ".join(line.split()).endswith("3 agg · front nginx → 2 sglang-router") for line in lines), lines
