"""Sparklines cover the figures' window at fixed time spacing (issue 21, the operator's cockpit, item 1): they held 12
points, one per refresh (24 s at 2 s refreshes) beside figures over 60 s; a relayed job (read at its relay's slower
cadence) drew a sawtooth, and a hung worker's TREND froze as if it were steady. Each point is now a slot of the
window, its rate read from the samples by their time (the Monitor's injected clock), and a slot nothing covers is a
gap."""

from __future__ import annotations

import pytest

from srt_tui.monitor import cells
from srt_tui.monitor.statuses.history import SPARK_POINTS, SPARK_SLOT_S, WINDOW_S, CounterHistory

KEY = ("j", "decode_0")


def test_the_line_spans_the_figures_window_in_slots_of_equal_time() -> None:
    assert SPARK_POINTS * SPARK_SLOT_S == WINDOW_S == 60.0
    h = CounterHistory()
    t, total = 0.0, 0.0
    for step in (1.0, 3.0, 2.0, 0.5, 3.5) * 7:  # irregular refreshes (one at 40 s): idle for 40 s, then 20 req/s
        t += step
        total += step * (20.0 if t > 40.0 else 0.0)
        h.observe(KEY, t, total)
    line = h.spark(KEY, 70.0)
    assert len(line) == SPARK_POINTS
    # slots [10, 15) … [65, 70]: 40 s idle, then 20/s: the change lands on its slot whatever the refresh spacing
    assert line[:6] == pytest.approx((0.0,) * 6, abs=1e-9) and line[6:] == pytest.approx((20.0,) * 6), line


def test_a_relayed_counter_draws_the_same_smooth_line_as_a_direct_one() -> None:
    """Direct: read every 2 s. Relayed: the job's relay every 10 s, read again at every 2 s refresh (the same total,
    its time a few ms off each time, as `now - relay age` is): one point per refresh made a sawtooth of zeros and
    fivefold peaks."""
    direct, relayed = CounterHistory(), CounterHistory()
    for k in range(60):
        now = 2.0 * k
        direct.observe(KEY, now, 10.0 * now)
        written = 10.0 * (now // 10.0)  # when the relay last read the worker
        relayed.observe(KEY, written + 0.001 * (k % 3), 10.0 * written)
    assert direct.spark(KEY, 118.0) == pytest.approx((10.0,) * SPARK_POINTS)
    assert relayed.spark(KEY) == pytest.approx((10.0,) * SPARK_POINTS, rel=1e-3)  # ends at its newest reading


def test_a_worker_that_stops_answering_leaves_gaps_not_a_frozen_line() -> None:
    h = CounterHistory()
    for t in range(0, 101, 2):  # 10 req/s until it hangs at 100 s
        h.observe(KEY, float(t), 10.0 * t)
    assert h.spark(KEY, 100.0) == pytest.approx((10.0,) * SPARK_POINTS)
    twenty_later = h.spark(KEY, 120.0)
    assert twenty_later[-4:] == (None,) * 4 and twenty_later[:8] == pytest.approx((10.0,) * 8), twenty_later
    assert h.spark(KEY, 170.0) == (None,) * SPARK_POINTS  # a minute on: nothing of it is shown as now
    assert cells.sparkline(twenty_later) == "█" * 8 + " " * 4


def test_a_long_hole_between_readings_is_a_gap_and_a_short_one_is_joined() -> None:
    h = CounterHistory()
    for t in (0.0, 5.0, 10.0, 15.0, 20.0, 45.0, 50.0, 55.0, 60.0):  # nothing read from 20 s to 45 s
        h.observe(KEY, t, 4.0 * t)
    line = h.spark(KEY, 60.0)
    assert line[4:9] == (None,) * 5 and line[:4] == pytest.approx((4.0,) * 4) and line[9:] == pytest.approx((4.0,) * 3)
    joined = CounterHistory()
    for t in (0.0, 12.0, 24.0, 36.0, 48.0, 60.0):  # a relay every 12 s: one line, no holes
        joined.observe(KEY, t, 4.0 * t)
    assert joined.spark(KEY, 60.0) == pytest.approx((4.0,) * SPARK_POINTS)


def test_a_gap_draws_blank_and_an_idle_slot_the_floor() -> None:
    assert cells.sparkline((None, 0.0, 2.0, None)) == " ▁█ "
    assert cells.sparkline((None, 0.0)) == " ▁"
    assert cells.sparkline((None, None)) == "  "
    assert cells.sparkline(()) == ""


def test_a_latency_of_microseconds_draws_low_not_full_height() -> None:
    """op9: `TTFT mean 0.0 ms` was drawn as full bars (40 µs scaled to its own maximum); a latency line's full scale
    is at least a millisecond and a rate's at least one per second, so near-zero reads as the lowest bar above zero
    (`▁` is a reading of zero: idle)."""
    assert cells.sparkline((0.00004, 0.00004), floor=cells.SPARK_FLOOR_LATENCY_S) == "▂▂"
    assert cells.sparkline((0.5, 0.0), floor=cells.SPARK_FLOOR_RATE) == "▅▁"
    assert cells.sparkline((0.05, 0.1), floor=cells.SPARK_FLOOR_LATENCY_S) == "▅█"  # above the floor: its own maximum
