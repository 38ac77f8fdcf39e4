"""How fast a worker and a whole job serve: the plan's serving families (see `core.engines.serving`) read
from each worker's /metrics, kept in the counter history (each histogram bucket and token counter is a
counter there, so the window, restarts and `status`'s saved samples work as for request counts), and
turned into p50/p99 latencies over the last minute (and each latency's mean, from its `_sum`/`_count`), tokens
per second, queue depth and KV-cache use.

A disaggregated job's latencies are its decodes'. Behind a router whose P/D flow is concurrent (sglang-router,
smg: both legs at once, the decode waiting for the prefill's KV) a decode's TTFT and E2E already cover its
prefill. Behind a sequential one (vllm-router: the prefill answers its one token, then the decode starts) they do
not, and the job's TTFT and E2E are the prefill's time to answer plus the decode's TTFT and E2E:

- the mean adds exactly: the prefill's E2E `_sum`/`_count` (the router waits for its whole answer) plus the
  decode's TTFT (E2E) `_sum`/`_count`, each over the window;
- a quantile is that of the convolution of the two windowed histograms (`probes.histogram.sum_quantile`), the
  legs taken as independent, each bucket uniform as PromQL's interpolation takes it. The prefill leg's shape
  comes from its TTFT buckets: a prefill answers one token, so its TTFT and E2E are the same moment, and vLLM's
  TTFT buckets resolve 1 ms to 750 ms where its E2E buckets start at 300 ms. Legs that vary together (a long
  prompt is slow on both) tend to make the true p99 higher than that sum, so these quantiles are marked
  approximate (`Serving.prefill_added`, `≈` on screen) and shown with the exact mean.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import cast, get_args

from srt_tui.core.capabilities import PdFlow
from srt_tui.core.engines.serving import COUNTER_KEYS, HISTOGRAM_KEYS
from srt_tui.core.frontends.routers import ROUTERS
from srt_tui.core.plan.document import PlanDoc
from srt_tui.monitor.model import Serving
from srt_tui.monitor.probes import selectors
from srt_tui.monitor.probes.histogram import (
    Buckets,
    buckets,
    first_bucket_bound,
    quantile,
    sum_first_bucket_bound,
    sum_quantile,
)
from srt_tui.monitor.probes.selectors import Sample
from srt_tui.monitor.statuses.history import CounterHistory

Key = tuple[str, str]


def wanted_names(contract: Mapping[str, object]) -> tuple[str, ...]:
    """Sample names to read for a serving contract: its counters and gauges, each histogram's buckets, sum and
    count."""
    of_histograms = [
        f"{contract[k]}_{part}" for k in HISTOGRAM_KEYS if isinstance(contract.get(k), str) for part in _HISTOGRAM_PARTS
    ]
    return tuple(sorted({*selectors.names(contract), *of_histograms}))


_HISTOGRAM_PARTS = ("bucket", "sum", "count")


@dataclass(frozen=True)
class Parts:
    """One worker's serving readings before they are summed into the job's."""

    role: str
    #: per latency family: cumulative bucket increases over the window
    increases: dict[str, Buckets] = field(default_factory=dict)
    #: per latency family: cumulative bucket rates in each slot of the sparklines' window (`history.slot_rates`),
    #: oldest first, None where nothing was read
    sparks: dict[str, tuple[Buckets | None, ...]] = field(default_factory=dict)
    #: per token counter: tokens per second over the window, and in each slot
    rates: dict[str, float] = field(default_factory=dict)
    rate_sparks: dict[str, tuple[float | None, ...]] = field(default_factory=dict)
    gauges: dict[str, float] = field(default_factory=dict)
    window_s: float | None = None
    #: per latency family: the increase of its `_sum` and `_count` over the window (their ratio is the mean)
    sums: dict[str, tuple[float, float]] = field(default_factory=dict)
    #: `decode_1 hung`: its metrics could not be read now, so it has no gauges (its requests running and waiting are
    #: unknown, not its last reading's)
    unread: tuple[str, ...] = ()
    #: the window is the whole time the (ended) job served, from zero: its final counters, first read after its end
    #: (set by the caller, which knows)
    since_ready: bool = False
    #: when its newest reading in the window was taken (the Monitor's clock): how old its figures are once its
    #: metrics cannot be read any more (`WorkerStatus.unread`); None before two samples
    read_at: float | None = None


def router_parts_key(job_id: str) -> str:
    """Where a refresh keeps a job's routers' serving readings (`Refresh.serving_parts`), apart from its
    workers' (kept under the job id)."""
    return f"{job_id}\trouters"


def _bucket_key(key: Key, family: str, le: float) -> Key:
    return key[0], f"{key[1]}\t{family}\t{le!r}"


def _counter_key(key: Key, family: str) -> Key:
    return key[0], f"{key[1]}\t{family}"


def _gauge(samples: Sequence[Sample], contract: Mapping[str, object], name: str, fold: str) -> float | None:
    value = contract.get(name)
    sel = selectors.parse_selector(value) if isinstance(value, str) else None
    values = [s.value for s in samples if sel is not None and sel.matches(s)]
    if not values:
        return None
    return max(values) if fold == "max" else sum(values)


def read_worker(
    history: CounterHistory,
    key: Key,
    role: str,
    samples: Sequence[Sample],
    contract: Mapping[str, object],
    observed: float | None,
    end: float | None = None,
    since: float | None = None,
) -> Parts:
    """Record this scrape (at ``observed``, when fresh) in the history and read the worker's window; its sparklines
    end at ``end`` (the job's time axis, `workers.spark_end`; None: at its newest sample). ``since``: when a series
    this history has not seen was zero (an ended job's final scrape: a series created after the last refresh, or a
    job first seen after its end, counted from the time it was ready)."""
    increases: dict[str, Buckets] = {}
    sparks: dict[str, tuple[Buckets | None, ...]] = {}
    sums: dict[str, tuple[float, float]] = {}
    drawn = _DRAWN if isinstance(contract.get("ttft"), str) else (*_DRAWN, "e2e")
    windows: list[float] = []
    ends: list[float] = []  # each window's newest sample
    for family in HISTOGRAM_KEYS:
        name = contract.get(family)
        if not isinstance(name, str):
            continue
        got = buckets(samples, name)
        if observed is not None:
            keys = [_bucket_key(key, family, le) for le, _ in got]
            if any(count < (history.last(k, observed) or 0.0) for k, (_, count) in zip(keys, got)):
                for k in keys:  # the process restarted: its whole histogram starts again, not some buckets
                    history.forget(k)
            for le, count in got:
                _record(history, _bucket_key(key, family, le), observed, count, since)
        inc: list[tuple[float, float]] = []
        per_le: list[tuple[float, tuple[float | None, ...]]] = []
        for le, _ in got:
            w = history.window(_bucket_key(key, family, le))
            if w is not None:
                inc.append((le, w[3] - w[1]))
                windows.append(w[2] - w[0])
                ends.append(w[2])
            if family in drawn:
                per_le.append((le, history.spark(_bucket_key(key, family, le), end)))
        if inc:
            increases[family] = tuple(inc)
        if per_le and all(pts for _, pts in per_le):
            sparks[family] = tuple(_slot_buckets(per_le, i) for i in range(len(per_le[0][1])))
        if (mean := _window_sum_count(history, key, samples, name, family, observed, since)) is not None:
            sums[family] = mean
    rates: dict[str, float] = {}
    rate_sparks: dict[str, tuple[float | None, ...]] = {}
    for family in COUNTER_KEYS:
        total = selectors.total(samples, contract, family)
        if total is None:
            continue
        ck = _counter_key(key, family)
        if observed is not None:
            _record(history, ck, observed, total, since)
        w = history.window(ck)
        if w is not None and w[2] > w[0]:
            rates[family] = (w[3] - w[1]) / (w[2] - w[0])
            windows.append(w[2] - w[0])
            ends.append(w[2])
        rate_sparks[family] = history.spark(ck, end)
    gauges = {
        k: v
        for k, v in (
            ("running", _gauge(samples, contract, "running", "sum")),
            ("waiting", _gauge(samples, contract, "waiting", "sum")),
            ("kv_usage", _gauge(samples, contract, "kv_usage", "max")),
        )
        if v is not None
    }
    window = max(windows) if windows else None
    return Parts(role, increases, sparks, rates, rate_sparks, gauges, window, sums, read_at=max(ends, default=None))


#: the latencies whose sparklines are drawn (E2E's only stands in for a prefill's missing TTFT: `_PrefillLeg`)
_DRAWN = ("ttft", "itl")


def _slot_buckets(per_le: Sequence[tuple[float, tuple[float | None, ...]]], i: int) -> Buckets | None:
    """One slot's bucket rates of a histogram, None when a bucket was not read in it."""
    got = [(le, pts[i]) for le, pts in per_le]
    return None if any(v is None for _, v in got) else tuple((le, v) for le, v in got if v is not None)


def _record(history: CounterHistory, key: Key, t: float, value: float, since: float | None) -> None:
    """One sample of a series; ``since``: a series this history has not seen yet starts with a zero then (the
    counters of a process read once, after its end, count from the time it served)."""
    if since is not None and since < t and history.last(key, t) is None:
        history.observe(key, since, 0.0)
    history.observe(key, t, value)


def _window_sum_count(
    history: CounterHistory,
    key: Key,
    samples: Sequence[Sample],
    name: str,
    family: str,
    observed: float | None,
    since: float | None = None,
) -> tuple[float, float] | None:
    """The increase over the window of histogram ``name``'s `_sum` and `_count`, each summed over its series;
    None before two scrapes or when the engine exports neither. A count that went down means the process
    restarted: both start again (its new sum can exceed the old one, so the sum alone cannot tell)."""
    keys = [_counter_key(key, f"{family}\t{part}") for part in ("sum", "count")]
    totals = [[s.value for s in samples if s.name == f"{name}_{part}"] for part in ("sum", "count")]
    if observed is not None and all(totals):
        if sum(totals[1]) < (history.last(keys[1], observed) or 0.0):
            for k in keys:
                history.forget(k)
        for k, values in zip(keys, totals):
            _record(history, k, observed, sum(values), since)
    windows = [history.window(k) for k in keys]
    return (windows[0][3] - windows[0][1], windows[1][3] - windows[1][1]) if windows[0] and windows[1] else None


def _q(q: float, counts: Buckets | None) -> float | None:
    return quantile(q, counts) if counts else None


def _mean(parts: Sequence[Parts], family: str) -> float | None:
    """The window's mean latency over ``parts``: the increase of their `_sum` over that of their `_count`."""
    got = [p.sums[family] for p in parts if family in p.sums]
    count = sum(c for _, c in got)
    return sum(s for s, _ in got) / count if count > 0 else None


def _spark_q(points: Sequence[Buckets | None]) -> tuple[float | None, ...]:
    """The median of each slot; a slot without requests is 0 (drawn `▁`, idle, as TREND's), one not read a gap
    (None, drawn blank)."""
    return tuple(None if p is None else quantile(0.5, p) or 0.0 for p in points)


def figures(parts: Parts) -> Serving | None:
    """A worker's Serving, None when it reported nothing of its serving families."""
    return combine([parts], per_role=False)


def _sum_buckets(many: Sequence[Buckets]) -> Buckets:
    total: dict[float, float] = {}
    for one in many:
        for le, v in one:
            total[le] = total.get(le, 0.0) + v
    return tuple(sorted(total.items()))


def _sum_sparks(many: Sequence[Sequence[Buckets | None]]) -> tuple[Buckets | None, ...]:
    """Slot by slot (the workers' sparklines share the job's time axis), the sum of the workers read in it; None
    where none was."""
    points = min((len(m) for m in many), default=0)
    slots = ([m[len(m) - points + i] for m in many] for i in range(points))
    return tuple(
        _sum_buckets([b for b in got if b is not None]) if any(b is not None for b in got) else None for got in slots
    )


def _sum_series(many: Sequence[Sequence[float | None]]) -> tuple[float | None, ...]:
    """`_sum_sparks` for rates."""
    points = min((len(m) for m in many), default=0)
    slots = ([m[len(m) - points + i] for m in many] for i in range(points))
    return tuple(sum(v for v in got if v is not None) if any(v is not None for v in got) else None for got in slots)


def _serving_side(parts: Sequence[Parts], skip_role: str, per_role: bool) -> list[Parts]:
    """Parts that count for a figure: in a disaggregated job latency and output come from the decode side
    (the prefill side answers one token), prompt tokens from the prefill side."""
    if not per_role:
        return list(parts)
    chosen = [p for p in parts if p.role != skip_role]
    return chosen or list(parts)


@dataclass(frozen=True)
class _PrefillLeg:
    """The prefills' time to answer, the first leg of a sequential P/D request: the shape of their TTFT buckets
    (else E2E; one token, the same moment) over the window and per refresh, and the mean of their E2E (else TTFT)."""

    increases: Buckets
    sparks: tuple[Buckets | None, ...]
    mean_s: float | None

    @classmethod
    def of(cls, prefills: Sequence[Parts]) -> _PrefillLeg:
        shape = "ttft" if any("ttft" in p.increases for p in prefills) else "e2e"
        mean = _mean(prefills, "e2e")
        return cls(
            _sum_buckets([p.increases[shape] for p in prefills if shape in p.increases]),
            _sum_sparks([p.sparks[shape] for p in prefills if shape in p.sparks]),
            mean if mean is not None else _mean(prefills, "ttft"),
        )


#: the latencies a sequential P/D flow adds the prefill's answer to (the inter-token latency is the decode's alone)
PREFILL_ADDED = ("ttft", "e2e")


def _last_pairs(
    a: Sequence[Buckets | None], b: Sequence[Buckets | None]
) -> list[tuple[Buckets | None, Buckets | None]]:
    """The two sparklines' slots side by side, their common newest ones."""
    points = min(len(a), len(b))
    return [(a[len(a) - points + i], b[len(b) - points + i]) for i in range(points)]


def combine(parts: Sequence[Parts], per_role: bool = True, flow: PdFlow = "concurrent") -> Serving | None:
    """The job's Serving: latency histograms summed over its workers (then the quantile), tokens per second
    and queues summed, KV-cache use of the fullest worker; None when no worker reported anything. ``flow``
    "sequential" (the router's P/D flow): a P/D job's TTFT and E2E add its prefills' time to answer to its
    decodes' (the module's docstring says how)."""
    if not parts:
        return None
    front = _serving_side(parts, "prefill", per_role)
    back = _serving_side(parts, "decode", per_role)
    prefills = [p for p in parts if p.role == "prefill"]
    leg = _PrefillLeg.of(prefills) if per_role and flow == "sequential" and 0 < len(prefills) < len(parts) else None
    added = PREFILL_ADDED if leg is not None else ()
    inc = {f: _sum_buckets([p.increases[f] for p in front if f in p.increases]) for f in HISTOGRAM_KEYS}
    sparks = {f: _sum_sparks([p.sparks[f] for p in front if f in p.sparks]) for f in HISTOGRAM_KEYS}

    def q(family: str, at: float) -> float | None:
        if leg is not None and family in added:
            return sum_quantile(at, leg.increases, inc[family])
        return _q(at, inc[family])

    def bound(family: str, at: float) -> float | None:
        if leg is not None and family in added:
            return sum_first_bucket_bound(at, leg.increases, inc[family])
        return first_bucket_bound(at, inc[family]) if inc[family] else None

    def mean(family: str) -> float | None:
        own = _mean(front, family)
        if leg is None or family not in added:
            return own
        return own + leg.mean_s if own is not None and leg.mean_s is not None else None

    spark_ttft = (
        tuple(
            None if p is None or d is None else sum_quantile(0.5, p, d) or 0.0
            for p, d in _last_pairs(leg.sparks, sparks["ttft"])
        )
        if leg is not None
        else _spark_q(sparks["ttft"])
    )
    rates_in = [p.rates["input_tokens"] for p in back if "input_tokens" in p.rates]
    rates_out = [p.rates["output_tokens"] for p in front if "output_tokens" in p.rates]
    running = [p.gauges["running"] for p in parts if "running" in p.gauges]
    waiting = [p.gauges["waiting"] for p in parts if "waiting" in p.gauges]
    kv = [p.gauges["kv_usage"] for p in parts if "kv_usage" in p.gauges]
    windows = [p.window_s for p in parts if p.window_s is not None]
    out = Serving(
        ttft_p50_s=q("ttft", 0.5),
        ttft_p99_s=q("ttft", 0.99),
        itl_p50_s=q("itl", 0.5),
        itl_p99_s=q("itl", 0.99),
        e2e_p50_s=q("e2e", 0.5),
        e2e_p99_s=q("e2e", 0.99),
        ttft_mean_s=mean("ttft"),
        itl_mean_s=mean("itl"),
        e2e_mean_s=mean("e2e"),
        input_tok_per_s=sum(rates_in) if rates_in else None,
        output_tok_per_s=sum(rates_out) if rates_out else None,
        running=sum(running) if running else None,
        waiting=sum(waiting) if waiting else None,
        kv_usage=max(kv) if kv else None,
        window_s=max(windows) if windows else None,
        spark_ttft_s=spark_ttft,
        spark_itl_s=_spark_q(sparks["itl"]),
        spark_output_tok=_sum_series(
            [p.rate_sparks["output_tokens"] for p in front if "output_tokens" in p.rate_sparks]
        ),
        below_first_bucket=tuple((name, b) for name, family, at in _QUANTILES if (b := bound(family, at)) is not None),
        prefill_added=added,
        unread=tuple(u for p in parts for u in p.unread),
        since_ready=any(p.since_ready for p in parts),
    )
    has_any = any(p.increases or p.rates or p.gauges or p.sums or p.unread for p in parts)
    return out if has_any else None


#: (Serving field, histogram family, quantile) of each latency figure
_QUANTILES = (
    ("ttft_p50_s", "ttft", 0.5),
    ("ttft_p99_s", "ttft", 0.99),
    ("itl_p50_s", "itl", 0.5),
    ("itl_p99_s", "itl", 0.99),
    ("e2e_p50_s", "e2e", 0.5),
    ("e2e_p99_s", "e2e", 0.99),
)


def pd_flow(plan: PlanDoc) -> PdFlow:
    """How the job's router runs a P/D request (plan.json `router.pd_flow`); in a plan written before the key
    existed, as the adapter of its router's type declares it (vllm-router: sequential); else concurrent (a
    decode's figures are the job's, as they always were)."""
    for router in plan.all_routers():
        if router.pd_flow in get_args(PdFlow):
            return cast(PdFlow, router.pd_flow)
        if (adapter := ROUTERS.get(router.type)) is not None:
            return adapter.pd_flow
    return "concurrent"


def client_ttft_added(plan: PlanDoc) -> tuple[float, str]:
    """What a client through the job's router measures of TTFT beyond the engines' figures, as its adapter
    declares it (`Router.client_ttft_added_s`), with the router's type; (0, "") when it declares none."""
    routers = plan.all_routers()
    adapter = ROUTERS.get(routers[0].type) if routers else None
    if adapter is None or not adapter.client_ttft_added_s:
        return 0.0, ""
    return adapter.client_ttft_added_s, routers[0].type


def job_figures(
    workers: Sequence[Parts],
    routers: Sequence[Parts],
    flow: PdFlow = "concurrent",
    client_added: tuple[float, str] = (0.0, ""),
) -> Serving | None:
    """The job's figures from its workers' metrics (``flow``: its router's P/D flow, see `combine`); a figure they
    lack (Dynamo's workers export no serving families) is taken from its routers' own (client-side) metrics;
    ``client_added``: what a client through its router measures of TTFT beyond them (`client_ttft_added`)."""
    figures = _job_figures(workers, routers, flow)
    if figures is None or not client_added[0]:
        return figures
    return replace(figures, client_ttft_added_s=client_added[0], client_ttft_router=client_added[1])


def _job_figures(workers: Sequence[Parts], routers: Sequence[Parts], flow: PdFlow) -> Serving | None:
    """`job_figures` before what the router adds."""
    mine = combine(workers, flow=flow)
    theirs = combine(routers, per_role=False)
    if mine is None or theirs is None:
        return mine or theirs
    own: tuple[str, ...] = (
        "below_first_bucket",
        "prefill_added",
        "unread",
        "since_ready",
    )  # what they say of themselves
    if mine.unread:  # the workers' queue is unknown while one cannot be read: not the routers' instead
        own += ("running", "waiting")
    missing = {
        f.name: getattr(theirs, f.name)
        for f in fields(Serving)
        if f.name not in own and getattr(mine, f.name) in (None, ())
    }
    below = (*mine.below_first_bucket, *((n, b) for n, b in theirs.below_first_bucket if n in missing))
    return replace(mine, **missing, below_first_bucket=below)
