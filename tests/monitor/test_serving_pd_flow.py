"""A P/D job behind a router whose flow is sequential (vllm-router: the prefill answers, then the decode starts):
its TTFT and E2E are the prefill's time to answer plus the decode's. The means add exactly; the quantiles are the
convolution of the two windowed histograms (the legs taken as independent), shown `≈` beside the exact mean.
Behind a concurrent router (sglang-router, smg) the decodes' figures stay the job's, as do an aggregated job's."""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace
from pathlib import Path

import pytest

from srt_tui.core.engines.serving import VLLM, VLLM_BUCKETS
from srt_tui.core.jobdir.contract import parse_plan
from srt_tui.core.plan.document import PlanDoc, PlanProcess, PlanRouter
from srt_tui.monitor import cells
from srt_tui.monitor.probes.histogram import Buckets, quantile, sum_first_bucket_bound, sum_quantile
from srt_tui.monitor.probes.selectors import Sample
from srt_tui.monitor.statuses.history import CounterHistory
from srt_tui.monitor.statuses.serving import Parts, combine, job_figures, pd_flow, read_worker

INF = math.inf
FIXTURES = Path(__file__).parent / "fixtures"


# the sum of two histograms ----------------------------------------------------------------------------------


def test_the_sum_of_two_uniform_buckets_is_their_convolution() -> None:
    # X, Y uniform on [0, 1]: X + Y is triangular on [0, 2], its median 1, its p99 2 - sqrt(0.02)
    one = ((1.0, 10.0), (INF, 10.0))
    assert sum_quantile(0.5, one, one) == pytest.approx(1.0, rel=1e-3)
    assert sum_quantile(0.99, one, one) == pytest.approx(2 - math.sqrt(0.02), rel=1e-3)
    # uniform on [0, 1] and on [0, 3]: flat from 1 to 3, so the median is 2
    three = ((3.0, 4.0), (INF, 4.0))
    assert sum_quantile(0.5, one, three) == pytest.approx(2.0, rel=1e-3)


def test_a_leg_at_zero_leaves_the_others_quantile_as_it_was() -> None:
    prefill = ((0.1, 10.0), (0.2, 90.0), (0.4, 100.0), (INF, 100.0))
    zero = ((0.0, 7.0), (0.001, 7.0), (INF, 7.0))
    for q in (0.05, 0.5, 0.99):
        assert sum_quantile(q, prefill, zero) == pytest.approx(quantile(q, prefill), rel=1e-3)


def test_the_sum_agrees_with_sampling_the_two_histograms() -> None:
    """Every bucket occupied on both sides (vLLM's TTFT and E2E layouts): the convolution's p50 and p99 agree with
    the sum of draws from each histogram as `quantile` reads it (uniform in a bucket, +Inf at the last bound)."""
    rng = random.Random(7)

    def filled(bounds: tuple[float, ...]) -> tuple[Buckets, list[tuple[float, float, int]]]:
        spread, counts, total, lower = [], [], 0, 0.0
        for le in bounds:
            n = rng.randint(1, 5)
            total += n
            counts.append((le, float(total)))
            spread.append((lower, le, n))
            lower = le
        return (*counts, (INF, float(total))), spread

    a, spread_a = filled(VLLM_BUCKETS["ttft"])
    b, spread_b = filled(VLLM_BUCKETS["e2e"])

    def draw(spread: list[tuple[float, float, int]]) -> float:
        lo, hi, _ = rng.choices(spread, weights=[n for _, _, n in spread])[0]
        return rng.uniform(lo, hi)

    sums = sorted(draw(spread_a) + draw(spread_b) for _ in range(40_000))
    assert sum_quantile(0.5, a, b) == pytest.approx(sums[20_000], rel=0.03)
    assert sum_quantile(0.99, a, b) == pytest.approx(sums[39_600], rel=0.03)


def test_a_sum_without_observations_on_either_side_is_unknown() -> None:
    some = ((0.1, 3.0), (INF, 3.0))
    assert sum_quantile(0.5, some, ((0.1, 0.0), (INF, 0.0))) is None
    assert sum_quantile(0.5, (), some) is None
    assert sum_first_bucket_bound(0.5, (), some) is None


def test_a_sum_whose_rank_falls_in_both_first_buckets_is_only_known_below_a_bound() -> None:
    # a prefill under vLLM's first E2E bound (0.3 s) and a decode under its first TTFT bound (1 ms)
    prefill = ((0.3, 10.0), (0.5, 10.0), (INF, 10.0))
    decode = ((0.001, 10.0), (0.005, 10.0), (INF, 10.0))
    assert sum_first_bucket_bound(0.5, prefill, decode) == pytest.approx(0.301)
    # the prefill resolved above its first bucket: the sum is too
    resolved = ((0.1, 0.0), (0.25, 10.0), (INF, 10.0))
    assert sum_first_bucket_bound(0.5, resolved, decode) is None
    assert sum_quantile(0.5, resolved, decode) == pytest.approx(0.1755, rel=1e-3)


# a job's figures ------------------------------------------------------------------------------------------------


def _scrape(ttft: dict[float, float], e2e: dict[float, float], ttft_sum: float, e2e_sum: float) -> list[Sample]:
    """vLLM-shaped TTFT and E2E histograms with their `_sum` and `_count`, and 2 requests running."""
    labels = (("model_name", "m"),)
    out = []
    for family, counts, total in (("ttft", ttft, ttft_sum), ("e2e", e2e, e2e_sum)):
        for le, v in counts.items():
            out.append(Sample(VLLM[family] + "_bucket", (("le", "+Inf" if le == INF else repr(le)), *labels), v))
        out.append(Sample(VLLM[family] + "_sum", labels, total))
        out.append(Sample(VLLM[family] + "_count", labels, max(counts.values())))
    return [*out, Sample(VLLM["running"], labels, 2.0)]


def _pd_parts() -> list[Parts]:
    """40 requests over 10 s: a prefill answering each in 150 ms (TTFT and E2E), a decode whose TTFT (from when
    the router sends it the request) is 0.5 ms and E2E 10.5 ms."""
    history = CounterHistory()
    empty = {0.001: 0.0, 0.1: 0.0, 0.25: 0.0, 0.3: 0.0, INF: 0.0}
    shape = {
        "prefill_0": ({0.001: 0.0, 0.1: 0.0, 0.25: 40.0, INF: 40.0}, {0.3: 40.0, INF: 40.0}, 40 * 0.15, 40 * 0.15),
        "decode_0": ({0.001: 40.0, 0.1: 40.0, 0.25: 40.0, INF: 40.0}, {0.3: 40.0, INF: 40.0}, 40 * 5e-4, 40 * 0.0105),
    }
    parts = []
    for name, (ttft, e2e, ttft_sum, e2e_sum) in shape.items():
        role = name.split("_")[0]
        read_worker(history, ("j", name), role, _scrape(empty, {0.3: 0.0, INF: 0.0}, 0.0, 0.0), VLLM, 0.0)
        parts.append(read_worker(history, ("j", name), role, _scrape(ttft, e2e, ttft_sum, e2e_sum), VLLM, 10.0))
    return parts


def test_a_sequential_flow_adds_the_prefills_answer_to_the_decodes_ttft_and_e2e() -> None:
    job = combine(_pd_parts(), flow="sequential")
    assert job is not None
    assert job.ttft_mean_s == pytest.approx(0.15 + 0.0005)  # exactly: the two means add
    assert job.e2e_mean_s == pytest.approx(0.15 + 0.0105)
    # the quantile: the prefill's TTFT bucket (0.1, 0.25] plus the decode's [0, 1 ms], as PromQL would read each
    assert job.ttft_p50_s == pytest.approx(0.175 + 0.0005, rel=1e-3)
    assert job.ttft_p99_s is not None and 0.247 < job.ttft_p99_s < 0.251
    assert job.prefill_added == ("ttft", "e2e") and job.approximate("ttft_p99_s") and not job.approximate("itl_p50_s")
    # the E2E: the prefill's TTFT shape plus the decode's first E2E bucket (0-300 ms), known only below their sum
    assert job.bound_of("e2e_p50_s") is None and job.e2e_p50_s is not None and 0.1 < job.e2e_p50_s < 0.55
    assert job.running == 4


def test_a_concurrent_flow_keeps_the_decodes_figures() -> None:
    """sglang-router's decode waits for its prefill's KV: its TTFT already covers the prefill."""
    job = combine(_pd_parts())
    assert job is not None and job.prefill_added == ()
    assert job.ttft_mean_s == pytest.approx(0.0005) and job.e2e_mean_s == pytest.approx(0.0105)
    assert job.bound_of("ttft_p50_s") == 0.001
    assert job_figures(_pd_parts(), [], "concurrent") == job


def test_a_sequential_router_in_front_of_aggregated_workers_changes_nothing() -> None:
    decode = _pd_parts()[1]
    agg = replace(decode, role="agg")
    assert combine([agg], flow="sequential") == combine([agg])


def test_a_job_without_the_prefills_answer_shows_no_sum_rather_than_the_decodes_alone() -> None:
    prefill, decode = _pd_parts()
    silent = Parts("prefill", gauges=prefill.gauges)  # its histograms not read yet
    job = combine([silent, decode], flow="sequential")
    assert job is not None and job.ttft_mean_s is None and job.ttft_p50_s is None and job.running == 4


def test_the_sparkline_follows_the_sum() -> None:
    job = combine(_pd_parts(), flow="sequential")
    assert job is not None and job.spark_ttft_s
    assert job.spark_ttft_s[-1] == pytest.approx(job.ttft_p50_s, rel=1e-3)


def test_the_status_line_marks_the_approximate_quantiles_and_gives_the_exact_mean() -> None:
    job = combine(_pd_parts(), flow="sequential")
    line = cells.serving_line(job)
    assert line.startswith("TTFT p50 ≈176 ms p99 ≈249 ms mean 150 ms · TPOT "), line
    assert "E2E p50 ≈" in line and "mean 160 ms" in line, line


# which flow a job's router has ------------------------------------------------------------------------------------


def test_the_flow_is_read_from_the_plan_else_from_the_routers_adapter(tmp_path: Path) -> None:
    def plan(router_type: str, flow: str = "") -> PlanDoc:
        return PlanDoc(router=PlanRouter(type=router_type, process=PlanProcess(name="router"), pd_flow=flow))

    assert pd_flow(plan("vllm-router", "sequential")) == "sequential"
    assert pd_flow(plan("sglang-router", "concurrent")) == "concurrent"
    # plans written before the key: the adapter of the router's type says; an unknown router, as always
    assert pd_flow(plan("vllm-router")) == "sequential"
    assert pd_flow(plan("smg")) == "concurrent"
    assert pd_flow(plan("a-router-of-a-later-version")) == "concurrent"
    assert pd_flow(PlanDoc()) == "concurrent"
    # an older job directory's plan.json, without the key, read as the monitor reads it
    raw = json.loads((FIXTURES / "jobdir-unversioned" / "plan.json").read_text())
    assert "pd_flow" not in raw["router"]
    assert pd_flow(parse_plan(tmp_path / "plan.json", json.dumps(raw))) == "concurrent"
    raw["router"]["type"] = "vllm-router"
    for router in raw.get("routers", []):
        router["type"] = "vllm-router"
    assert pd_flow(parse_plan(tmp_path / "plan.json", json.dumps(raw))) == "sequential"


def test_the_panel_says_what_the_approximate_figures_are() -> None:
    from rich.style import Style

    from srt_tui.tui.monitor.serving_panel import serving_pairs

    job = combine(_pd_parts(), flow="sequential")
    assert job is not None
    shown = " | ".join(t.plain for t in serving_pairs(job, lambda _: Style()))
    assert "TTFT p50 ≈176 ms p99 ≈249 ms mean 150 ms" in shown, shown
    assert "(over the last 10 s · ≈ prefill + decode legs, mean exact)" in shown, shown
    ended = " | ".join(t.plain for t in serving_pairs(job, lambda _: Style(), ended=True))
    assert "the job has ended: its last figures, over the last 10 s · ≈ prefill + decode legs" in ended, ended
