"""Prometheus text from workers and routers, parsed with `prometheus_client`'s parser, and the counters
the monitor shows (requests total/ok/failed, running, queued; router requests, errors, retries).

Cost matters at a thousand endpoints: the parser spends ~40 µs of CPU per sample line, a mock worker
exposes ~30 lines and sglang-router ~480. So only the lines the monitor reads reach the parser
(chosen by metric name, and for the mock's per-path counter by path), and parsed lines are memoised
from one refresh to the next (`SampleCache`): an idle worker's relevant lines do not change, so a
steady refresh parses almost nothing. GPU exporters' values change on every scrape, so for them only
the series (name and labels) is memoised and the value is read with ``float`` (`SampleCache.gauges`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from srt_tui.monitor.probes import selectors
from srt_tui.monitor.probes.selectors import Sample

#: generation endpoints of SGLang/vLLM-shaped servers (what counts as "a request")
GENERATION_PATHS = ("/generate", "/v1/completions", "/v1/chat/completions")
_GEN_LABELS = tuple(f'path="{p}"' for p in GENERATION_PATHS)

#: sample names read from a worker's /metrics (the mocker's own, then SGLang's and vLLM's)
WORKER_SAMPLES = (
    "srt_mock_requests_total",
    "srt_mock_requests_running",
    "sglang:num_requests_total",
    "sglang:num_aborted_requests_total",
    "sglang:num_running_reqs",
    "sglang:num_queue_reqs",
    "vllm:request_success_total",
    "vllm:num_requests_running",
    "vllm:num_requests_waiting",
)
#: sample names read from a router's own /metrics (sglang-router `smg_*`, vllm-router `vllm_router_*`)
ROUTER_SAMPLES = (
    "smg_router_requests_total",
    "smg_http_responses_total",
    "smg_worker_retries_total",
    "smg_worker_health",
    "vllm_router_requests_total",
    "vllm_router_request_errors_total",
    "vllm_router_pd_requests_total",
    "vllm_router_pd_errors_total",
    "vllm_router_pd_prefill_errors_total",
    "vllm_router_pd_decode_errors_total",
    "vllm_router_retries_total",
    "vllm_router_worker_health",
)


def _wanted(line: str, names: tuple[str, ...]) -> bool:
    """Cheap pre-filter: a sample line of a wanted metric (the mock's per-path counter: generation paths)."""
    if not line.startswith(names):
        return False
    if line.startswith("srt_mock_requests_total"):
        return any(p in line for p in _GEN_LABELS)
    return True


class SampleCache:
    """Parsed sample lines, kept for two refreshes (a line unseen for a whole refresh is dropped)."""

    def __init__(self) -> None:
        self._current: dict[str, Sample | None] = {}
        self._previous: dict[str, Sample | None] = {}
        self._series: dict[str, Sample | None] = {}
        self._series_previous: dict[str, Sample | None] = {}
        self.parsed_lines = 0

    def rotate(self) -> None:
        """Call once per refresh."""
        self._previous, self._current = self._current, {}
        self._series_previous, self._series = self._series, {}

    def gauges(self, text: str, names: tuple[str, ...]) -> list[Sample]:
        """Samples of the wanted metrics whose values change on every scrape (a GPU's power, its load):
        each series' name and labels are parsed once while it keeps being seen, its value is read with
        ``float`` (a line that memoises nothing would cost the parser ~60 µs every refresh)."""
        out: list[Sample] = []
        missing: list[tuple[str, float]] = []
        for raw in text.split("\n"):
            line = raw.rstrip("\r")
            if not line.startswith(names):
                continue
            end = line.rfind("}") + 1  # label values may hold `}`, the value and timestamp never do
            if end:
                series, rest = line[:end], line[end:]
            else:
                series, _, rest = line.partition(" ")
            try:
                value = float(rest.split()[0])
            except (ValueError, IndexError):
                continue
            if series in self._series:
                hit = self._series[series]
            elif series in self._series_previous:
                hit = self._series[series] = self._series_previous[series]
            else:
                missing.append((series, value))
                continue
            if hit is not None:
                out.append(Sample(hit.name, hit.labels, value))
        if missing:
            series_list = [series for series, _ in missing]
            parsed = self._parse([series + " 0" for series in series_list], self._series, series_list)
            out.extend(Sample(p.name, p.labels, v) for p, (_, v) in zip(parsed, missing) if p is not None)
        return [s for s in out if s.name in names]

    def samples(self, text: str, names: tuple[str, ...]) -> list[Sample]:
        """Samples of the wanted metrics in ``text`` (exposition format), parsed at most once per line."""
        out: list[Sample] = []
        missing: list[str] = []
        for raw in text.split("\n"):
            line = raw.rstrip("\r")
            if not _wanted(line, names):
                continue
            if line in self._current:
                hit = self._current[line]
            elif line in self._previous:
                hit = self._current[line] = self._previous[line]
            else:
                missing.append(line)
                continue
            if hit is not None:
                out.append(hit)
        if missing:
            out.extend(s for s in self._parse(missing) if s is not None)
        return [s for s in out if s.name in names]

    def _parse(
        self, lines: list[str], into: dict[str, Sample | None] | None = None, keys: list[str] | None = None
    ) -> list[Sample | None]:
        """Parse new lines in one call (one sample per line, in order); per line if the block is malformed.
        Each result is remembered in ``into`` (the line cache by default) under its key (the line)."""
        try:
            parsed = _parse_block("\n".join(lines) + "\n")
        except ValueError:
            parsed = []
        if len(parsed) != len(lines):
            parsed = []
            for line in lines:
                try:
                    one = _parse_block(line + "\n")
                except ValueError:
                    one = []
                parsed.append(one[0] if len(one) == 1 else None)
        self.parsed_lines += len(lines)
        memo = self._current if into is None else into
        for key, sample in zip(keys or lines, parsed):
            memo[key] = sample
        return parsed


def _parse_block(text: str) -> list[Sample | None]:
    # imported on the first scrape: the package's __init__ loads every collector (~25 ms), which `status` of
    # ended jobs and every other command never need
    from prometheus_client.parser import text_string_to_metric_families

    out: list[Sample | None] = []
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out.append(Sample(s.name, tuple(sorted(s.labels.items())), float(s.value)))
    return out


def _sum(samples: Iterable[Sample], name: str) -> float | None:
    values = [s.value for s in samples if s.name == name]
    return sum(values) if values else None


@dataclass(frozen=True)
class WorkerCounters:
    """What a worker's metrics say about its requests."""

    total: float | None = None
    ok: float | None = None
    failed: float | None = None
    running: float | None = None
    queued: float | None = None


def declares(text: str, name: str) -> bool:
    """Whether an exposition declares the family ``name`` (`# TYPE name …`; OpenMetrics names a counter without
    `_total`): a labelled counter's series appear at its first increment (the mocker's per-path requests, SGLang's
    `num_requests_total`), so a declared family without a sample of a selection has counted nothing under it yet."""
    return any(f"# TYPE {family} " in text for family in {name, name.removesuffix("_total")})


def worker_counters(
    samples: list[Sample], contract: Mapping[str, object] | None = None, text: str = ""
) -> WorkerCounters:
    """Counters from a worker's samples, as its plan.json metric contract names them (total, ok, failed,
    running, queued); a plan without one (written before contracts): the mocker's, SGLang's or vLLM's. ``text``, the
    exposition they were read from: a request counter it declares with no sample yet is 0 (a worker that has served
    nothing yet reads 0 and draws its TREND's idle `▁`, as the Serving panel's lines from the same scrape; `-` and a
    blank TREND said it was not read)."""
    if contract:

        def requests(key: str) -> float | None:
            got = selectors.total(samples, contract, key)
            if got is None and text and isinstance(name := contract.get(key), str):
                sel = selectors.parse_selector(name)
                return 0.0 if sel is not None and declares(text, sel.name) else None
            return got

        ok, failed, whole = requests("ok"), requests("failed"), requests("total")
        if whole is None and (ok is not None or failed is not None):
            whole = (ok or 0.0) + (failed or 0.0)
        return WorkerCounters(
            whole,
            ok,
            failed,
            selectors.total(samples, contract, "running"),
            selectors.total(samples, contract, "queued"),
        )
    mock = [s for s in samples if s.name == "srt_mock_requests_total"]
    has_mock = mock or any(s.name == "srt_mock_requests_running" for s in samples)
    queued: float | None = _sum(samples, "sglang:num_queue_reqs")
    if queued is None:
        queued = _sum(samples, "vllm:num_requests_waiting")
    if has_mock:
        mock_ok = sum(s.value for s in mock if s.label("status") == "ok")
        mock_failed = sum(s.value for s in mock if s.label("status") == "failed")
        running = _sum(samples, "srt_mock_requests_running")
        return WorkerCounters(mock_ok + mock_failed, mock_ok, mock_failed, running, queued)
    ok = _sum(samples, "sglang:num_requests_total")
    if ok is not None:
        aborted = _sum(samples, "sglang:num_aborted_requests_total")
        return WorkerCounters(ok + (aborted or 0.0), ok, aborted, _sum(samples, "sglang:num_running_reqs"), queued)
    ok = _sum(samples, "vllm:request_success_total")
    running = _sum(samples, "vllm:num_requests_running")
    if ok is not None or running is not None:
        return WorkerCounters(ok, ok, None, running, queued)
    return WorkerCounters()


@dataclass(frozen=True)
class RouterCounters:
    """What a router's own metrics say: client requests, error responses, retries, per-worker health."""

    requests: float | None = None
    errors: float | None = None
    retries: float | None = None
    worker_health: tuple[tuple[str, bool], ...] = ()


def router_counters(samples: list[Sample], contract: Mapping[str, object] | None = None) -> RouterCounters:
    """Counters as the router's plan.json contract names them (requests, errors, retries), else
    sglang-router (`smg_*`) or vllm-router (`vllm_router_*`) counters; absent families stay None.

    sglang-router creates its families lazily: before the first request `smg_router_requests_total`
    does not exist, which reads as 0 requests once the router answered at all.
    """
    if contract:
        return RouterCounters(
            selectors.total(samples, contract, "requests") or 0.0,
            selectors.total(samples, contract, "errors") or 0.0,
            selectors.total(samples, contract, "retries"),
        )
    health = tuple(
        (s.label("worker"), s.value >= 1)
        for s in samples
        if s.name in ("smg_worker_health", "vllm_router_worker_health")
    )
    if any(s.name.startswith("vllm_router_") for s in samples):
        # in PD mode vllm-router counts requests in `pd_requests_total` and failed legs per worker
        # (`pd_prefill_errors_total`, `pd_decode_errors_total`); `requests_total` stays absent
        request_names = ("vllm_router_requests_total", "vllm_router_pd_requests_total")
        error_names = (
            "vllm_router_request_errors_total",
            "vllm_router_pd_errors_total",
            "vllm_router_pd_prefill_errors_total",
            "vllm_router_pd_decode_errors_total",
        )
        return RouterCounters(
            sum(_sum(samples, name) or 0.0 for name in request_names),
            sum(_sum(samples, name) or 0.0 for name in error_names),
            _sum(samples, "vllm_router_retries_total") or 0.0,
            health,
        )
    responses = [s for s in samples if s.name == "smg_http_responses_total"]
    errors = sum(s.value for s in responses if s.label("status_code")[:1] in ("4", "5") or s.label("error_code"))
    return RouterCounters(
        _sum(samples, "smg_router_requests_total") or 0.0,
        errors,
        _sum(samples, "smg_worker_retries_total") or 0.0,
        health,
    )
