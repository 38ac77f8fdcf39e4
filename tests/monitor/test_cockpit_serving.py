"""The job view's serving faces after the new-operator pass of issue 21 ("the operator's cockpit"): a hung worker's
requests read unknown and its TREND goes blank (items 1, 5), the worker table's Q and the Serving panel's `waiting`
are one reading and a `-` says why once (item 2), and Help says the sparklines' window. Frozen snapshots at fixed
sizes on the injected clock."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from textual.widgets import DataTable

from srt_tui.monitor.model import JobSnapshot
from srt_tui.tui.monitor.screen import MonitorScreen
from srt_tui.tui.monitor.serving_panel import ServingPanel
from srt_tui.tui.monitor.worker_table import WorkerTable
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app, highlighted_worker_detail

#: the figures' minute in 12 slots: 8 read, then 4 since decode_1 stopped answering
HUNG_SPARK = (3.0, 4.0, 5.0, 5.0, 6.0, 5.0, 5.0, 4.0, None, None, None, None)


def hung_decode() -> JobSnapshot:
    """An H100 1P2D job under load whose decode_1 hung 20 s ago (SIGSTOP): as the Monitor now builds it, its
    requests unknown (`unread`), its trend blank since, the job's running and waiting the others' sum."""
    snap = frozen.with_serving(frozen.frozen_job("81251", "nvidia/h100-1p2d-sglang.yaml", "nvidia-h100"))
    assert snap.serving is not None
    workers = []
    for w in snap.workers:
        if w.name == "decode_1":
            assert w.serving is not None
            blank = (None,) * 4
            serving = replace(
                w.serving,
                running=None,
                waiting=None,
                kv_usage=None,
                unread=("decode_1 hung",),
                age_s=20.0,  # its figures: the minute up to its last reading
                spark_ttft_s=w.serving.spark_ttft_s[-8:] + blank,
                spark_itl_s=w.serving.spark_itl_s[-8:] + blank,
                spark_output_tok=w.serving.spark_output_tok[-8:] + blank,
            )
            w = replace(
                w,
                health="hung",
                detail="not answering (stopped or overloaded?): no answer for 24 s; decode_0 (h100-018) answers "
                "from here",
                stale=True,
                rate_per_s=None,
                running=None,
                queued=None,
                unread="hung",
                spark=HUNG_SPARK,
                serving=serving,
            )
        else:
            w = replace(w, spark=tuple(float(v) for v in range(2, 14)))
        workers.append(w)
    serving = replace(snap.serving, running=8.0, waiting=2.0, unread=("decode_1 hung",))
    return replace(snap, workers=tuple(workers), serving=serving)


def _cell(table: DataTable[Any], row: str, column: str) -> str:
    return str(table.get_cell(row, column))


def _panel_text(app: Any) -> str:
    panel = app.screen.query_one(ServingPanel)
    return " ".join("".join(seg.text for seg in strip) for strip in panel.render_lines(panel.region.reset_offset))


async def test_a_hung_workers_row_says_unknown_and_its_trend_goes_blank() -> None:
    snap = hung_decode()
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(140, 36)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(WorkerTable)
        assert _cell(table, "decode_1", "run") == "?" and _cell(table, "decode_1", "q") == "?"
        assert _cell(table, "decode_0", "q") == "0" and _cell(table, "decode_0", "run") != "?"
        trend = _cell(table, "decode_1", "trend")
        assert trend.endswith(" " * 4) and trend[:8].strip() and " " not in trend[:8], repr(trend)
        assert "running 8+?  waiting 2+? (decode_1 hung)" in _panel_text(app)
    detail = await _detail_of(snap, "decode_1")
    assert "running ?  waiting ? (decode_1 hung)" in detail
    # s34: its latencies and token rates are its last minute's, said so (they read `last minute` as current)
    assert "serving  (not current: read 20 s ago, before it hung)" in detail and "last minute" not in detail, detail
    assert "(over the 60 s up to its last reading, 20 s ago)" in detail, detail
    assert "(last minute, from its own metrics)" in await _detail_of(snap, "decode_0")  # its neighbour's: current


async def _detail_of(snap: JobSnapshot, name: str) -> str:
    """The worker detail of ``name`` (the cursor put on it first)."""
    order = [w.name for w in snap.workers]
    first = snap.workers[order.index(name)]
    moved = replace(snap, workers=(first, *(w for w in snap.workers if w.name != name)))
    return await highlighted_worker_detail(moved)


@pytest.mark.parametrize("size", [pytest.param((120, 36), id="120x36"), pytest.param((80, 24), id="80x24")])
def test_hung_worker_job_view_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    snap = hung_decode()
    assert snap_compare(frozen_app([snap], open_job=snap.job_id), terminal_size=size)


async def test_a_q_dash_says_why_once_under_the_table() -> None:
    """A worker whose engine exports requests running but no queue length: its Q is `-`, and the table says why
    once, not a `-` beside a panel's `waiting 0` with nothing said."""
    snap = frozen.nvidia()
    first = replace(snap.workers[0], queued=None)
    snap = replace(snap, workers=(first, *snap.workers[1:]))
    app = frozen_app([snap], open_job=snap.job_id)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(WorkerTable)
        assert _cell(table, first.name, "q") == "-"
        assert table.border_subtitle == f"Q -: not in {first.name}'s metrics", table.border_subtitle


def test_help_says_the_sparklines_window() -> None:
    """The sparklines' span, where an operator looks for what the marks mean (`?`): the figures' minute, a bar per
    5 s, and what a blank bar is."""
    legend = MonitorScreen.HELP_LEGEND
    assert "Sparklines (TREND, Serving): the last 60 s" in legend and "one bar per 5 s" in legend
    assert "a blank bar: nothing was read then" in legend
