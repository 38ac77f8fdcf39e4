"""req/s follows the load: it falls to 0 within seconds once requests stop (issue 11, item 5)."""

from __future__ import annotations

import pytest

from srt_tui.monitor.history import RATE_WINDOW_S, CounterHistory


def test_rate_falls_to_zero_soon_after_load_stops() -> None:
    h = CounterHistory(window_s=60)
    key = ("j", "decode_0")
    for t in range(31):  # 35 req/s for 30 s, one refresh a second
        h.observe(key, float(t), 35.0 * t)
    assert h.rate(key) == pytest.approx(35.0)
    for t in range(31, 31 + int(RATE_WINDOW_S) + 1):  # then nothing
        h.observe(key, float(t), 35.0 * 30)
    assert h.rate(key) == 0.0


def test_rate_over_refreshes_further_apart_than_its_window() -> None:
    h = CounterHistory(window_s=60)
    key = ("j", "decode_0")
    h.observe(key, 0.0, 0.0)
    h.observe(key, 20.0, 100.0)
    assert h.rate(key) == pytest.approx(5.0)
