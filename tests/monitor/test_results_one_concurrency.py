"""The Results view's latency plot of one concurrency (issue 21, op12 item 3): a sweep whose members each ran one
concurrency drew the `latency vs concurrency` frame empty (a line of one point is one braille dot). Each point is
marked `●`, clear of the legend, and the title says there is no curve and how to get one."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from textual_plotext import PlotextPlot

from srt_tui.monitor.model import JobSnapshot
from srt_tui.tui.monitor.results_view import latency_title
from tests.monitor import frozen, resultdirs
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import settle

RECIPE = ("nvidia/h100-2p1d-sglang.yaml", "nvidia-h100")


async def _latency_plot(snaps: list[JobSnapshot], job: str, size: tuple[int, int]) -> list[str]:
    """`R` on ``job``: the latency plot's lines as drawn."""
    app = frozen_app(snaps, open_job=job)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("R")
        await settle(pilot)
        plot = app.screen.query_one("#results-latency", PlotextPlot)
        console = Console(width=plot.size.width, record=True, file=io.StringIO())
        console.print(plot.render())
        return console.export_text().splitlines()


def _points(lines: list[str]) -> int:
    """The points marked in the canvas, the legend's `●●` markers left out."""
    return sum(line.replace("●●", "").count("●") for line in lines)


@pytest.mark.parametrize("size", [pytest.param((120, 36), id="120x36"), pytest.param((80, 24), id="80x24")])
async def test_a_sweep_of_one_concurrency_shows_each_members_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    monkeypatch.setattr(resultdirs, "CONCURRENCIES", (8,))
    snaps = [frozen.frozen_job(job, *RECIPE, job_dir=path) for job, path in resultdirs.sweep(tmp_path)]
    lines = await _latency_plot(snaps, "81301", size)
    assert _points(lines) == 3, "\n".join(lines)  # TPOT p50 of each member (15.2, 11.6, 10.4 ms): none hidden
    wide = "one concurrency (8): sweep more than one to see a curve"
    assert (wide if size[0] == 120 else "one concurrency (8): no curve") in lines[0], lines[0]


async def test_one_job_of_one_concurrency_shows_its_tpot_and_ttft_points(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(resultdirs, "CONCURRENCIES", (8,))
    snap = frozen.frozen_job("81234", *RECIPE, job_dir=resultdirs.single(tmp_path))
    lines = await _latency_plot([snap], "81234", (120, 36))
    assert _points(lines) == 2, "\n".join(lines)
    assert "one concurrency (8): sweep more than one to see a curve" in lines[0]


async def test_several_concurrencies_keep_their_curves_and_title(tmp_path: Path) -> None:
    snap = frozen.frozen_job("81234", *RECIPE, job_dir=resultdirs.single(tmp_path))
    lines = await _latency_plot([snap], "81234", (120, 36))
    assert "latency (ms) vs concurrency" in lines[0] and _points(lines) == 0, "\n".join(lines)


def test_the_title_takes_the_longest_wording_that_fits() -> None:
    assert latency_title("concurrency", {4, 8}, {4, 8}, 20) == "latency (ms) vs concurrency"
    assert latency_title("concurrency", {8}, {8}, 80) == "one concurrency (8): sweep more than one to see a curve"
    assert latency_title("concurrency", {8}, {8}, 44) == "one concurrency (8): sweep more for a curve"
    assert latency_title("concurrency", {8}, {8}, 10) == "one concurrency (8)"
    assert latency_title("osl", {128, 1024}, {8}, 80) == "latency (ms) vs osl (concurrency 8)"
    assert latency_title("osl", {128, 1024}, {8}, 20) == "latency (ms) vs osl"
    assert latency_title("osl", {128, 1024}, {8}, 10) == "ms vs osl"
