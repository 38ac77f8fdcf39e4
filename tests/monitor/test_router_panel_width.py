"""The job view's router panel at every width from 60 to 100 columns (new-operator pass, issue 21): from 60 to 79 it
had about 8 columns beside the GPU grid and split its words (`sglang-` / `router`, `registe` / `red P`), and with
a GPU exporter's readings it had none at all. It sits beside the grid only where the room left holds its widest
part, else under the grid at the panel's whole width."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from rich.console import Console

from srt_tui.monitor.model import JobSnapshot
from srt_tui.tui.monitor.router_panel import RouterPanel
from tests.monitor import frozen
from tests.monitor.test_job_view_80 import failed_1p2d, running_1p2d
from tests.monitor.test_monitor_frontends import _nginx_job
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import settle


def _jobs() -> list[JobSnapshot]:
    """A router job without GPU readings (the operator's), one with them (a wider grid), a router short of healthy
    workers (its widest part: `D 1/1 (0 healthy)`) and relayed, nginx in front of two routers (a line per router),
    an ended job and one without a router."""
    degraded = frozen.amd("degraded", "81240")
    assert degraded.router is not None
    return [
        running_1p2d("81251"),
        replace(frozen.frozen_job("81252", "mocker/mocker-1p2d.yaml", "local"), launcher="local"),
        replace(degraded, router=replace(degraded.router, source="relay", detail="relayed 3 s ago")),
        replace(_nginx_job(), job_id="81254"),
        failed_1p2d("81255"),
        frozen.frozen_job("81256", "amd/mi300x-agg-sglang-direct.yaml", "amd-mi300x"),
    ]


def _words(text: str) -> list[str]:
    """The words of a panel's text, but its URLs: a URL is shown whole or not at all, as the room allows."""
    return [word for word in text.split() if not word.startswith("http")]


@pytest.mark.parametrize("widths", [range(60, 74), range(74, 88), range(88, 101)], ids=["60-73", "74-87", "88-100"])
async def test_the_router_panel_shows_every_word_whole_from_60_to_100_columns(widths: range) -> None:
    jobs = _jobs()
    app = frozen_app(jobs)
    async with app.run_test(size=(widths[0], 50)) as pilot:
        screen = app.screen
        for width in widths:
            await pilot.resize_terminal(width, 50)
            for snap in jobs:
                screen.open_job(snap.job_id)  # type: ignore[attr-defined]
                await pilot.pause()
                panel = screen.query_one(RouterPanel)
                whole = Console(width=200, color_system=None, record=True, file=io.StringIO())
                whole.print(panel.render())
                full = whole.export_text()
                region = panel.region
                strips = app.screen._compositor.render_strips()
                shown = "\n".join(strips[y].crop(region.x, region.right).text for y in range(region.y, region.bottom))
                where = f"job {snap.job_id} at {width} columns: {region.width} wide\n{shown}"
                assert set(shown.split()) <= set(full.split()), where  # no word cut
                assert _words(shown) == _words(full), where  # every word there, in order
                assert region.width >= panel.needed_width(), where


async def test_the_router_panel_stays_beside_the_grid_where_it_has_room() -> None:
    """At 80 columns (the 80x24 screenshots) and wider the operator's router sits beside the GPUs, as before."""
    snap = running_1p2d("81251")
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        top = app.screen.query_one("#job-top")
        panel, grid = app.screen.query_one(RouterPanel), app.screen.query_one("#job-grid")
        assert not top.has_class("-stacked") and panel.region.x > grid.region.right
        await pilot.resize_terminal(70, 24)
        await settle(pilot)
        assert top.has_class("-stacked") and panel.region.y >= grid.region.bottom
        assert panel.region.width == top.content_region.width  # the panel's whole width, not what the grid left
