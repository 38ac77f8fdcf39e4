"""The job view's GPU grid at narrow widths (issue 21, leftovers of the new-operator passes): at 44 columns the
router's label (`router:8000`, the grid's service trailer) wrapped onto a line of its own between the grid's node
rows and the legend split `not` / `healthy`; with a GPU exporter's readings the grid's `util%` line wrapped at 60
columns (`67°C` alone on the next line) and at 44 every node row wrapped. The grid fits the width it has: its
service trailer only where it fits, its legend's items whole, its readings dropped least important first (the
temperature, then the power) with their units, and where a cell per GPU does not fit, a node's utilisation as one
figure; the router panel comes whole after it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from srt_tui.monitor.model import JobSnapshot
from srt_tui.tui.monitor.live_grid import LiveGpuGrid
from srt_tui.tui.monitor.router_panel import RouterPanel
from tests.monitor import frozen
from tests.monitor.test_job_view_80 import _lines, running_1p2d
from tests.monitor.tui_apps import frozen_app
from tests.tui.scenarios import settle

#: a reading with its unit, as the util line's trailer shows them (`3.4 kW`, `3.4kW`, `90 W`, `67°C`, `67°C max`)
READING = re.compile(r"\d+(?:\.\d)? ?k?W|\d+°C(?: max)?")


def _exporter_jobs() -> list[JobSnapshot]:
    """Jobs whose GPU exporter gives readings: an H100 2P1D on two nodes, an MI300X 1P1D on one (longer host
    names), and the H100 job with its last node's exporter silent (stale cells, no totals)."""
    return [frozen.nvidia("healthy", "81234"), frozen.amd("healthy", "81240"), frozen.nvidia("exporter-down", "81235")]


def _kinds(snap: JobSnapshot, lines: list[str]) -> list[str]:
    """Each grid line's kind (header, node, util, legend), or the line itself when it is none: a line of its own
    that is the tail of a wrapped one (`router:8000`, `healthy`, `6   7`, `67°C`)."""
    hosts = tuple(snap.hostnames)
    out = []
    for line in lines:
        text = line.strip()
        if text.startswith("GPU "):
            out.append("header")
        elif text.startswith(hosts):
            out.append("node")
        elif text.startswith("util% "):
            out.append("util")
        elif text.startswith("■"):
            out.append("legend")
        elif text:
            out.append(text)
    return out


def _readings(snap: JobSnapshot, line: str) -> list[str]:
    """The readings after a util line's cells (or after its node's one figure, `62% avg`), each with its unit: a
    figure left without one (`3.4` whose `kW` wrapped) fails."""
    cells = rf"^\s*util%(?:\s+(?:\d+|[?-])){{{snap.gpus_per_node}}}(?!\S)"
    node = r"^\s*util%\s+(?:\d+% avg|[?-])(?!\S)"
    rest = re.sub(cells, "", line) if re.match(cells, line) else re.sub(node, "", line)
    assert rest != line, line
    readings = READING.findall(rest)
    assert not READING.sub("", rest).replace("·", "").strip(), line
    return readings


async def _grid_at(app: Any, pilot: Any, snap: JobSnapshot, width: int) -> list[str]:
    await pilot.resize_terminal(width, 50)
    app.screen.open_job(snap.job_id)
    await settle(pilot)
    return _lines(app.screen.query_one(LiveGpuGrid))


@pytest.mark.parametrize("make", [running_1p2d, lambda: frozen.nvidia("healthy")], ids=["operator", "exporter"])
async def test_at_44_columns_the_router_panel_comes_whole_after_the_grid(make: Callable[[], JobSnapshot]) -> None:
    """Every grid line is whole (a header, a node, its util line, the legend), nothing of the router inside it, and
    the router panel starts under the grid's last line with its name."""
    snap = make()
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(44, 50)) as pilot:
        await settle(pilot)
        grid, panel = app.screen.query_one(LiveGpuGrid), app.screen.query_one(RouterPanel)
        lines = _lines(grid)
        kinds = _kinds(snap, lines)
        assert set(kinds) <= {"header", "node", "util", "legend"}, "\n".join(lines)
        assert kinds.count("node") == snap.nodes and not any("router" in line for line in lines), "\n".join(lines)
        assert lines[0].split()[1:] == [str(g) for g in range(snap.gpus_per_node)], lines[0]  # every GPU's index
        assert all(len(line.split()) == 1 + snap.gpus_per_node for line in lines if line.startswith(snap.hostnames))
        assert "not healthy" in "\n".join(lines)  # the legend's items whole
        assert panel.region.y >= grid.region.bottom, (panel.region, grid.region)
        assert _lines(panel)[0].startswith(f"{snap.router.type if snap.router else ''} ● up"), _lines(panel)


@pytest.mark.parametrize("widths", [range(44, 60), range(60, 111, 2)], ids=["44-59", "60-110"])
async def test_the_util_line_fits_its_width_with_units_from_44_to_110_columns(widths: range) -> None:
    """No grid line wraps at any width: each node's util line holds a cell per GPU where they fit (else the node's
    utilisation as one figure), then the readings that fit, each with its unit."""
    jobs = _exporter_jobs()
    app = frozen_app(jobs)
    async with app.run_test(size=(widths[0], 50)) as pilot:
        for width in widths:
            for snap in jobs:
                lines = await _grid_at(app, pilot, snap, width)
                where = f"job {snap.job_id} at {width} columns:\n" + "\n".join(lines)
                kinds = _kinds(snap, lines)
                assert set(kinds) <= {"header", "node", "util", "legend"}, where
                assert kinds.count("util") == snap.nodes, where
                for line in (x for x in lines if x.strip().startswith("util% ")):
                    _readings(snap, line)


async def test_at_60_columns_the_util_line_drops_the_temperature_and_keeps_the_power() -> None:
    """The least important reading goes first: the hottest GPU's temperature (the cells say the load, the node's
    power whether it does real work), never a figure without its unit."""
    snap = frozen.nvidia("healthy")
    app = frozen_app([snap])
    async with app.run_test(size=(60, 50)) as pilot:
        lines = await _grid_at(app, pilot, snap, 60)
        util = [line for line in lines if line.strip().startswith("util% ")]
        assert set(_kinds(snap, lines)) <= {"header", "node", "util", "legend"}, "\n".join(lines)  # `67°C` wrapped
        assert [_readings(snap, line) for line in util] == [["3.4kW"], ["3.4kW"]], "\n".join(lines)
        assert all(len(line.split()) == 2 + snap.gpus_per_node for line in util), "\n".join(lines)  # every cell


SIZES = [
    pytest.param(running_1p2d, (44, 40), id="operator-44x40"),
    pytest.param(lambda: frozen.nvidia("healthy"), (44, 40), id="exporter-44x40"),
    pytest.param(lambda: frozen.nvidia("healthy"), (60, 30), id="exporter-60x30"),
]


@pytest.mark.parametrize(("make", "size"), SIZES)
def test_job_view_narrow_snapshot(snap_compare: Any, make: Callable[[], JobSnapshot], size: tuple[int, int]) -> None:
    snap = make()
    assert snap_compare(frozen_app([snap], open_job=snap.job_id), terminal_size=size)
