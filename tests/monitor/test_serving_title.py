"""At 80 columns the Serving panel's title names the statistic its figures are (issue 21, the operator's cockpit, item
3): it said `Serving · p50` over `TTFT mean 6.4 ms` (SGLang's first bucket cannot resolve a fast job's median, so the
window's mean is shown). Frozen snapshots at 80x24 on the injected clock."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from srt_tui.monitor.model import Serving
from srt_tui.tui.monitor.serving_panel import ServingPanel
from tests.monitor import frozen
from tests.monitor.tui_apps import frozen_app


def _panel_text(app: Any) -> str:
    panel = app.screen.query_one(ServingPanel)
    return " ".join("".join(seg.text for seg in strip) for strip in panel.render_lines(panel.region.reset_offset))


def _job_with(s: Serving) -> Any:
    return frozen_app([replace(frozen.nvidia(), serving=s)], open_job=frozen.nvidia().job_id)


MEANS = Serving(  # SGLang's first TTFT bucket is 100 ms, its first ITL one 2 ms: a fast job's medians read `<`
    ttft_p50_s=0.05,
    ttft_p99_s=0.099,
    ttft_mean_s=0.0064,
    itl_p50_s=0.001,
    itl_p99_s=0.0019,
    itl_mean_s=0.0011,
    output_tok_per_s=100.0,
    window_s=61.0,
    below_first_bucket=(("ttft_p50_s", 0.1), ("ttft_p99_s", 0.1), ("itl_p50_s", 0.002), ("itl_p99_s", 0.002)),
)


@pytest.mark.parametrize(
    ("serving", "title", "said", "unsaid"),
    [
        pytest.param(MEANS, "Serving · mean · over the last 61 s", ["TTFT 6.4 ms", "TPOT 1.1 ms"], ["p50", "<"],
                     id="means"),
        pytest.param(replace(MEANS, itl_p50_s=0.0041, itl_p99_s=0.009, below_first_bucket=MEANS.below_first_bucket[:2]),
                     "Serving · over the last 61 s", ["TTFT mean 6.4 ms", "TPOT p50 4.1 ms"], [], id="mixed"),
        # only the p99 is beyond the buckets: the median is known, and shown (the mean had stood in for it)
        pytest.param(replace(MEANS, ttft_p50_s=0.03, below_first_bucket=(("ttft_p99_s", 0.1),), itl_p50_s=0.0041,
                             itl_p99_s=0.009), "Serving · p50 · over the last 61 s", ["TTFT 30 ms", "TPOT 4.1 ms"],
                     ["mean"], id="medians"),
    ],
)  # fmt: skip
async def test_at_80_columns_the_serving_title_names_what_it_shows(
    serving: Serving, title: str, said: list[str], unsaid: list[str]
) -> None:
    """New-operator pass: at 80 columns the panel was titled `Serving · p50` over `TTFT mean 6.4 ms`: SGLang's first
    bucket cannot resolve the median, so the mean is shown; the title names what is shown."""
    app = _job_with(serving)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        panel = app.screen.query_one(ServingPanel)
        assert panel.border_title == title
        shown = _panel_text(app)
        assert all(s in shown for s in said) and not any(u in shown for u in unsaid), shown
