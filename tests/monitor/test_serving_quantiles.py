"""The serving figures' arithmetic on synthetic histograms: quantiles from bucket increases (interpolated
as Prometheus does), counter resets, buckets missing from one scrape, and the per-worker window kept in the
counter history across refreshes, summed into a job's figures."""

from __future__ import annotations

import math

import pytest

from srt_tui.core.engines.serving import SGLANG
from srt_tui.monitor.probes.histogram import buckets, increase, quantile
from srt_tui.monitor.probes.selectors import Sample
from srt_tui.monitor.statuses.history import CounterHistory
from srt_tui.monitor.statuses.serving import combine, figures, read_worker

INF = math.inf


def test_quantile_interpolates_inside_the_bucket_holding_the_rank() -> None:
    # 100 observations: 10 up to 0.1 s, 80 in (0.1, 0.2], 10 in (0.2, 0.4]
    counts = ((0.1, 10.0), (0.2, 90.0), (0.4, 100.0), (INF, 100.0))
    assert quantile(0.5, counts) == pytest.approx(0.1 + 0.1 * (50 - 10) / 80)
    assert quantile(0.99, counts) == pytest.approx(0.2 + 0.2 * (99 - 90) / 10)
    # the first bucket starts at 0
    assert quantile(0.05, counts) == pytest.approx(0.05)


def test_a_rank_in_the_inf_bucket_answers_the_largest_finite_bound() -> None:
    assert quantile(0.99, ((0.1, 1.0), (0.2, 2.0), (INF, 100.0))) == 0.2


def test_no_observations_give_no_quantile() -> None:
    assert quantile(0.5, ((0.1, 0.0), (INF, 0.0))) is None
    assert quantile(0.5, ()) is None


def test_counts_that_go_down_between_bounds_are_raised_to_the_running_maximum() -> None:
    # buckets read at slightly different moments: 0.4's count below 0.2's
    assert quantile(0.5, ((0.1, 0.0), (0.2, 10.0), (0.4, 8.0), (INF, 10.0))) == pytest.approx(0.15)


def test_increase_between_two_scrapes_and_after_a_restart() -> None:
    old = {0.1: 5.0, 0.2: 10.0, INF: 10.0}
    new = {0.1: 5.0, 0.2: 30.0, INF: 32.0}
    assert increase(new, old) == ((0.1, 0.0), (0.2, 20.0), (INF, 22.0))
    # the worker restarted: its counters start again below the old ones; what it counted since is the increase
    restarted = {0.1: 1.0, 0.2: 3.0, INF: 3.0}
    assert increase(restarted, old) == ((0.1, 1.0), (0.2, 3.0), (INF, 3.0))
    assert increase(new, None) == ()


def test_a_bucket_missing_from_one_scrape_is_left_out() -> None:
    old = {0.1: 5.0, INF: 10.0}
    new = {0.1: 5.0, 0.2: 25.0, INF: 30.0}
    assert increase(new, old) == ((0.1, 0.0), (INF, 20.0))


def _scrape(ttft: dict[float, float], generated: float, running: float = 3, usage: float = 0.25) -> list[Sample]:
    name = SGLANG["ttft"] + "_bucket"
    out = [Sample(name, (("le", "+Inf" if le == INF else repr(le)), ("model_name", "m")), v) for le, v in ttft.items()]
    out += [
        Sample(SGLANG["output_tokens"], (("model_name", "m"),), generated),
        Sample(SGLANG["running"], (("model_name", "m"),), running),
        Sample(SGLANG["waiting"], (("model_name", "m"),), 0),
        Sample(SGLANG["kv_usage"], (("model_name", "m"),), usage),
    ]
    return out


def test_buckets_sum_a_familys_series_by_bound() -> None:
    samples = _scrape({0.1: 1, 0.2: 2, INF: 2}, 0) + _scrape({0.1: 3, 0.2: 4, INF: 5}, 0)
    assert buckets(samples, SGLANG["ttft"]) == ((0.1, 4.0), (0.2, 6.0), (INF, 7.0))


def test_a_worker_window_across_refreshes_and_a_restart() -> None:
    history = CounterHistory()
    key = ("j1", "agg_0")
    first = read_worker(history, key, "agg", _scrape({0.1: 0, 0.2: 0, 0.4: 0, INF: 0}, 0), SGLANG, 100.0)
    assert figures(first) is not None and first.increases == {}  # one scrape: no window yet
    # 20 s later: 40 requests, all between 0.2 and 0.4 s, 2000 tokens generated
    second = read_worker(history, key, "agg", _scrape({0.1: 0, 0.2: 0, 0.4: 40, INF: 40}, 2000), SGLANG, 120.0)
    shown = figures(second)
    assert shown is not None
    assert shown.ttft_p50_s == pytest.approx(0.3)
    assert shown.output_tok_per_s == pytest.approx(100.0)
    assert (shown.running, shown.waiting, shown.kv_usage, shown.window_s) == (3, 0, 0.25, 20.0)
    # the worker restarts: its counters fall back; the window starts again from the restart
    third = read_worker(history, key, "agg", _scrape({0.1: 2, 0.2: 2, 0.4: 2, INF: 2}, 50), SGLANG, 130.0)
    assert figures(third) is not None and figures(third).ttft_p50_s is None  # type: ignore[union-attr]
    fourth = read_worker(history, key, "agg", _scrape({0.1: 12, 0.2: 12, 0.4: 12, INF: 12}, 550), SGLANG, 140.0)
    after = figures(fourth)
    assert after is not None and after.ttft_p50_s == pytest.approx(0.05)
    assert after.output_tok_per_s == pytest.approx(50.0)


def test_the_window_is_about_a_minute() -> None:
    history = CounterHistory()
    key = ("j1", "agg_0")
    for i in range(20):  # a scrape every 10 s; the first 10 s had slow requests, later ones fast
        slow = 10.0 if i >= 1 else 0.0
        fast = 10.0 * max(0, i - 1)
        got = read_worker(
            history, key, "agg", _scrape({0.1: fast, 0.4: fast + slow, INF: fast + slow}, 0), SGLANG, 10.0 * i
        )
    shown = figures(got)
    assert shown is not None and shown.window_s is not None and 60.0 <= shown.window_s <= 70.0
    assert shown.ttft_p99_s is not None and shown.ttft_p99_s < 0.1  # the slow minute has left the window


def test_a_disaggregated_job_takes_latency_and_output_from_decode_and_prompt_tokens_from_prefill() -> None:
    history = CounterHistory()
    parts = []
    for name, role, le_hit in (("prefill_0", "prefill", 0.1), ("decode_0", "decode", 0.4), ("decode_1", "decode", 0.4)):
        for t, n in ((0.0, 0.0), (10.0, 10.0)):
            ttft = {0.1: n if le_hit == 0.1 else 0.0, 0.4: n, INF: n}
            samples = _scrape(ttft, 100 * n, usage=0.1 if role == "prefill" else 0.6)
            samples.append(Sample(SGLANG["input_tokens"], (("model_name", "m"),), 50 * n))
            got = read_worker(history, ("j", name), role, samples, SGLANG, t)
        parts.append(got)
    job = combine(parts)
    assert job is not None
    assert job.ttft_p50_s == pytest.approx(0.25)  # from the decode workers' buckets only
    assert job.output_tok_per_s == pytest.approx(200.0)  # two decode workers × 100 tok/s
    assert job.input_tok_per_s == pytest.approx(50.0)  # the prefill worker's prompt tokens
    assert job.running == 9 and job.kv_usage == 0.6


def test_figures_the_workers_lack_come_from_the_routers_own_metrics() -> None:
    """Dynamo's workers export no serving families: TTFT and tokens come from its frontend's histograms."""
    from srt_tui.core.engines.serving import DYNAMO_FRONTEND
    from srt_tui.monitor.statuses.serving import job_figures

    history = CounterHistory()
    worker_only: dict[str, str] = {"running": SGLANG["running"]}
    worker = read_worker(history, ("j", "decode_0"), "decode", _scrape({INF: 0}, 0, running=5), worker_only, 0.0)
    name = DYNAMO_FRONTEND["ttft"] + "_bucket"
    for t, n in ((0.0, 0.0), (30.0, 60.0)):
        frontend = [
            Sample(name, (("le", "0.25"),), 0.0),
            Sample(name, (("le", "0.5"),), n),
            Sample(name, (("le", "+Inf"),), n),
            Sample(DYNAMO_FRONTEND["output_tokens"], (), 100 * n),
            Sample(DYNAMO_FRONTEND["waiting"], (), 1.0),
        ]
        router = read_worker(history, ("j", "router (router)"), "router", frontend, DYNAMO_FRONTEND, t)
    job = job_figures([worker], [router])
    assert job is not None
    assert job.running == 5  # the workers' own reading stays
    assert job.ttft_p50_s == pytest.approx(0.375) and job.output_tok_per_s == pytest.approx(200.0)
    assert job.waiting == 1.0 and job.window_s == 30.0
    assert job_figures([], []) is None


def test_the_history_of_a_series_is_bounded_however_fast_the_refreshes() -> None:
    from srt_tui.monitor.statuses.history import MAX_SAMPLES

    history = CounterHistory()
    key = ("j", "agg_0\tttft\t0.1")
    for i in range(10 * MAX_SAMPLES):  # ten refreshes a second: the window shrinks, memory does not grow
        history.observe(key, i / 10, float(i))
    got = history.window(key)
    assert got is not None and got[2] - got[0] == pytest.approx((MAX_SAMPLES - 1) / 10)


def test_a_quantile_in_the_first_bucket_is_shown_as_below_its_bound() -> None:
    """Operator pass (issue 21): the demo's mocker answers its first token in ~3 ms; SGLang's first TTFT bucket
    is 0–100 ms, so PromQL's interpolation read `TTFT p50 50 ms p99 99 ms` beside a benchmark that measured
    3.5 ms. A quantile in the first bucket is only known to be below its bound: `<100 ms`. Above the first
    bucket the interpolated figure stays (the inter-token buckets start at 2 ms and resolve it)."""
    from srt_tui.monitor import cells
    from srt_tui.monitor.probes.histogram import first_bucket_bound

    assert first_bucket_bound(0.5, ((0.1, 30.0), (0.2, 30.0), (INF, 30.0))) == 0.1
    assert first_bucket_bound(0.99, ((0.1, 98.0), (0.2, 100.0), (INF, 100.0))) is None
    assert first_bucket_bound(0.5, ((0.1, 0.0), (INF, 0.0))) is None
    history = CounterHistory()
    key = ("j1", "agg_0")
    read_worker(history, key, "agg", _scrape({0.1: 0, 0.2: 0, 0.4: 0, INF: 0}, 0), SGLANG, 100.0)
    # 30 requests, all answered within the first bucket; then 1 of 100 slower in a second window
    got = figures(read_worker(history, key, "agg", _scrape({0.1: 30, 0.2: 30, 0.4: 30, INF: 30}, 240), SGLANG, 110.0))
    assert got is not None and got.ttft_p50_s == pytest.approx(0.05)  # PromQL's figure, kept for --json
    line = cells.serving_line(got)
    assert "TTFT p50 <100 ms p99 <100 ms" in line and "50 ms" not in line, line
    history = CounterHistory()
    read_worker(history, key, "agg", _scrape({0.1: 0, 0.2: 0, 0.4: 0, INF: 0}, 0), SGLANG, 100.0)
    mixed = figures(read_worker(history, key, "agg", _scrape({0.1: 90, 0.2: 95, 0.4: 100, INF: 100}, 0), SGLANG, 110.0))
    assert mixed is not None
    assert "TTFT p50 <100 ms p99 360 ms" in cells.serving_line(mixed), cells.serving_line(mixed)


def _with_sum(samples: list[Sample], total_s: float, count: float) -> list[Sample]:
    """A scrape with the TTFT histogram's `_sum` and `_count`, as prometheus_client exports them."""
    labels = (("model_name", "m"),)
    return [
        *samples,
        Sample(SGLANG["ttft"] + "_sum", labels, total_s),
        Sample(SGLANG["ttft"] + "_count", labels, count),
    ]


def test_below_the_first_bucket_the_windows_mean_says_what_the_buckets_cannot() -> None:
    """Noticed at stop 28 (issue 21): a fast deployment read `TTFT p50 <100 ms p99 <100 ms` and nothing more.
    The histogram's `_sum`/`_count` increases over the same window give its mean, shown beside a `<` figure;
    a restart starts the window again, and a job's mean weighs its workers by their requests."""
    from srt_tui.monitor import cells

    history = CounterHistory()
    key = ("j1", "agg_0")
    read_worker(history, key, "agg", _with_sum(_scrape({0.1: 0, 0.4: 0, INF: 0}, 0), 0.0, 0), SGLANG, 100.0)
    got = read_worker(history, key, "agg", _with_sum(_scrape({0.1: 30, 0.4: 30, INF: 30}, 0), 0.105, 30), SGLANG, 110.0)
    shown = figures(got)
    assert shown is not None and shown.ttft_mean_s == pytest.approx(0.0035)
    # the new-operator pass (2026-12-07): `<100 ms` first said nothing of a ~50 ms service; the mean leads now
    assert cells.serving_line(shown).startswith("TTFT mean 3.5 ms (p50, p99 <100 ms) · "), cells.serving_line(shown)
    assert cells.mean_latency(shown, "itl") == ""  # no sum/count exported: nothing invented
    # the process restarts: its sum and count fall back, and the window starts again from there
    read_worker(history, key, "agg", _with_sum(_scrape({0.1: 2, 0.4: 2, INF: 2}, 0), 0.5, 2), SGLANG, 120.0)
    again = figures(
        read_worker(history, key, "agg", _with_sum(_scrape({0.1: 4, 0.4: 4, INF: 4}, 0), 0.52, 4), SGLANG, 130.0)
    )
    assert again is not None and again.ttft_mean_s == pytest.approx(0.01)
    # resolved by the buckets (p50 and p99 above the first bound): the mean is not added
    slow = CounterHistory()
    read_worker(slow, key, "agg", _with_sum(_scrape({0.1: 0, 0.4: 0, INF: 0}, 0), 0.0, 0), SGLANG, 100.0)
    resolved = figures(
        read_worker(slow, key, "agg", _with_sum(_scrape({0.1: 0, 0.4: 10, INF: 10}, 0), 3.0, 10), SGLANG, 110.0)
    )
    assert resolved is not None and resolved.ttft_mean_s == pytest.approx(0.3)
    assert " mean " not in cells.serving_line(resolved)
    # two workers, 30 requests at 10 ms and 10 at 50 ms: the job's mean is 20 ms, not the 30 ms of the two means
    parts = []
    for name, mean_s, n in (("decode_0", 0.01, 30), ("decode_1", 0.05, 10)):
        h = CounterHistory()
        read_worker(h, ("j", name), "decode", _with_sum(_scrape({0.1: 0, INF: 0}, 0), 0.0, 0), SGLANG, 0.0)
        scrape = _with_sum(_scrape({0.1: n, INF: n}, 0), mean_s * n, n)
        parts.append(read_worker(h, ("j", name), "decode", scrape, SGLANG, 10.0))
    job = combine(parts)
    assert job is not None and job.ttft_mean_s == pytest.approx(0.02)


def test_the_mean_leads_where_a_quantile_says_only_its_first_bucket_and_the_router_adds_its_share() -> None:
    """The new-operator pass (2026-12-07), mocker-1p2d behind sglang-router: `TTFT p50 <100 ms p99 <100 ms mean
    6.4 ms` and `E2E p50 <100 ms p99 183 ms mean 75 ms` while `srt-tui bench` measured TTFT p50 34 ms. The mean
    leads where a quantile reads only `<` its first bound, and what the router adds at the client is said beside
    TTFT (sglang-router: no TCP_NODELAY towards clients; vllm-router and smg set it)."""
    from srt_tui.core.frontends.routers import ROUTERS
    from srt_tui.monitor import cells
    from srt_tui.monitor.model import Serving

    s = Serving(
        ttft_p50_s=0.05,
        ttft_p99_s=0.099,
        ttft_mean_s=0.0064,
        e2e_p50_s=0.05,
        e2e_p99_s=0.183,
        e2e_mean_s=0.075,
        below_first_bucket=(("ttft_p50_s", 0.1), ("ttft_p99_s", 0.1), ("e2e_p50_s", 0.1)),
        client_ttft_added_s=ROUTERS["sglang-router"].client_ttft_added_s,
        client_ttft_router="sglang-router",
    )
    line = cells.serving_line(s)
    assert line.startswith(
        "TTFT mean 6.4 ms (p50, p99 <100 ms), clients see up to +40 ms (sglang-router sets no TCP_NODELAY) · "
    )
    assert " · E2E mean 75 ms p50 <100 ms p99 183 ms, clients see up to +40 ms · " in line, line  # E2E holds it too
    assert "".join(t for t, _ in cells.latency_parts(s, "ttft", brief=True)) == "mean 6.4 ms"
    assert cells.client_ttft_note(s, brief=True) == ", clients see up to +40 ms"
    assert ROUTERS["vllm-router"].client_ttft_added_s == ROUTERS["smg"].client_ttft_added_s == 0
    assert "clients" not in cells.serving_line(Serving(ttft_p50_s=0.2, ttft_p99_s=0.3))


def test_each_latency_reads_its_own_fields_and_bounds() -> None:
    """`Serving.latency` is how the faces read a family's figures (typed; they found them by name before): each family
    gets its own quantiles, mean, first-bucket bounds and P/D sum, none of another's."""
    from srt_tui.monitor.model import Latency, Serving

    s = Serving(
        ttft_p50_s=0.01, ttft_p99_s=0.02, ttft_mean_s=0.015,
        itl_p50_s=0.003, itl_p99_s=0.004, itl_mean_s=0.0035,
        e2e_p50_s=0.5, e2e_p99_s=0.9, e2e_mean_s=0.6,
        below_first_bucket=(("ttft_p99_s", 0.1), ("e2e_p50_s", 1.0)), prefill_added=("e2e",),
    )  # fmt: skip
    assert s.latency("ttft") == Latency("ttft", 0.01, 0.02, 0.015, (("p99", 0.1),), False)
    assert s.latency("itl") == Latency("itl", 0.003, 0.004, 0.0035, (), False)
    assert s.latency("e2e") == Latency("e2e", 0.5, 0.9, 0.6, (("p50", 1.0),), True)
    assert s.latency("e2e").bound("p50") == 1.0 and s.latency("e2e").unresolved == ("p50",)
    assert not Serving(ttft_p99_s=0.3).latency("ttft").measured and Serving(itl_mean_s=0.1).latency("itl").measured
