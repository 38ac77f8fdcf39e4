"""A smoke test of a serving job: N requests through its public URL, then ok/failed and latency p50/p99.

One implementation for both faces (`srt-tui bench JOB` and the job view's `b`); the load is the mocker's
closed-loop generator (`mock/bench.py`: one connection per sender, streamed answers for TTFT), so what the
operator sees here is what `python -m srt_tui.mock bench` (srt_tui.bench.load) measures.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from srt_tui.bench.client import ClientError, Connection, Origin
from srt_tui.bench.load import BenchConfig, drive
from srt_tui.bench.stats import Outcome, percentile
from srt_tui.core.frontends.routers import ROUTERS
from srt_tui.core.jobdir.contract import JobDirError, read_endpoints
from srt_tui.monitor.cells import ended, tokens_per_s
from srt_tui.monitor.model import JobSnapshot

DEFAULT_REQUESTS = 20
DEFAULT_CONCURRENCY = 4
#: a short prompt and answer: the test says whether and how fast the deployment answers, not its peak
PROMPT_WORDS = 32
ANSWER_TOKENS = 16
REQUEST_TIMEOUT_S = 60.0
MODELS_TIMEOUT_S = 10.0
#: a request waiting this long is worth naming in the live line (`4 waiting 41/60 s`): a short
#: answer takes well under it, so one waiting longer is held by a slow or hung worker
SLOW_S = 5.0
#: how often the live line is told again while nothing ends, so the wait it shows keeps counting
TICK_S = 1.0
#: beside requests that wait or timed out: the router's `errors` (its panel, the summary) stayed 0 all along, which
#: read as a contradiction. sglang-router counts the answers it failed; a streamed request held by a hung decode
#: worker was answered 200 and stalls, and stays no error after its client gives up (measured: 4 timeouts, 0 errors)
WAITING_NOTE = "not in the router's errors: it counts failed answers, not waits"
#: the same in the live line, whose parts must fit one line of the job view at 80x24 (`WAITING_NOTE` went to a
#: second line there, shown only on a taller screen); the result's line and `srt-tui bench` say it whole
WAITING_SHORT = "not router errors"


class NotServing(Exception):
    """The job cannot take requests now: why, and what to do about it."""

    def __init__(self, message: str, fix: str) -> None:
        self.message = message
        self.fix = fix
        super().__init__(f"{message} (fix: {fix})")


@dataclass(frozen=True)
class SmokeResult:
    """What the smoke test measured (latencies in milliseconds, over the answered requests)."""

    url: str
    model: str
    requests: int
    ok: int
    failed: int
    duration_s: float
    latency_p50_ms: float | None
    latency_p99_ms: float | None
    ttft_p50_ms: float | None
    ttft_p99_ms: float | None
    output_tokens_per_s: float
    #: every failure counted by its kind (`failure_kinds`), (what failed, count), most frequent first: the counts
    #: add up to ``failed``
    errors: tuple[tuple[str, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """`srt-tui bench --json`'s document."""
        return asdict(self) | {"errors": [{"error": e, "count": n} for e, n in self.errors]}

    def line(self) -> str:
        """One line: counts, latency and TTFT percentiles, token rate (written as the Serving panel's: `1.3k tok/s`)."""
        return (
            f"{self.ok}/{self.requests} ok, {self.failed} failed · latency p50 {_ms(self.latency_p50_ms)} "
            f"p99 {_ms(self.latency_p99_ms)} · TTFT p50 {_ms(self.ttft_p50_ms)} p99 {_ms(self.ttft_p99_ms)} · "
            f"{tokens_per_s(self.output_tokens_per_s)} in {self.duration_s:.2f} s"
        )

    def failures(self) -> str:
        """Every failure by its kind, `16× HTTP 503: No available workers · 4× timeout after 60s`; "" when none."""
        return " · ".join(f"{count}× {error}" for error, count in self.errors)


@dataclass
class SmokeProgress:
    """A running smoke test as it goes: requests ended (failed among them) and those in flight with when each was
    sent, by ``clock`` (monotonic seconds); `line` says it. It is the `drive` watcher of `run_smoke`."""

    requests: int
    concurrency: int
    timeout_s: float = REQUEST_TIMEOUT_S
    clock: Callable[[], float] = time.monotonic
    done: int = 0
    failed: int = 0
    #: request index -> when it was sent
    in_flight: dict[int, float] = field(default_factory=dict)

    def sent(self, index: int) -> None:
        """Request ``index`` is on its way."""
        self.in_flight[index] = self.clock()

    def ended(self, index: int, outcome: Outcome) -> None:
        """Request ``index`` ended (answered or failed)."""
        self.in_flight.pop(index, None)
        self.done += 1
        self.failed += not outcome.ok

    def longest_wait_s(self) -> float:
        """How long the oldest request in flight has waited (0 when none is)."""
        return max((self.clock() - at for at in self.in_flight.values()), default=0.0)

    def line(self) -> str:
        """`12/20 done, 0 failed · 4 at a time, each times out after 60 s`; once one waits `SLOW_S` or longer, how
        many wait and the longest against the timeout, and that they are not router errors: `16/20 done, 0 failed ·
        4 waiting 41/60 s · not router errors`. Every part fits one line of the job view at 80x24 (67 columns beside
        `smoke test `), which shows only its first line: the note went to a second one, unseen there."""
        count = f"{self.done}/{self.requests} done, {self.failed} failed"
        wait = self.longest_wait_s()
        if wait < SLOW_S:
            return f"{count} · {self.concurrency} at a time, each times out after {self.timeout_s:g} s"
        waiting = f"{len(self.in_flight)} waiting {wait:.0f}/{self.timeout_s:g} s"
        return f"{count} · {waiting} · {WAITING_SHORT}"


def waits_note(result: SmokeResult) -> str:
    """`WAITING_NOTE` when some requests timed out (the router's `errors` beside them stays 0), else ""."""
    return WAITING_NOTE if any(error.startswith("timeout") for error, _ in result.errors) else ""


def done_line(result: SmokeResult, router: str) -> str:
    """The job view's line for a finished test: mark, figures, ``router`` (`router_note`, beside the Serving panel's
    engines' TTFT), every failure by its kind, and `waits_note` (beside the router panel's `errors 0`). It showed the
    most frequent kind only: `12/20 ok, 8 failed · 4× timeout` left 4 unexplained, and the note spoke of timeouts
    that a more frequent `HTTP 503` had pushed out of the line."""
    mark = "✓" if result.failed == 0 else "✗"
    parts = [f"{mark} {result.line()}", router, result.failures(), waits_note(result)]
    return " · ".join(part for part in parts if part)


def router_note(snap: JobSnapshot) -> str:
    """What the job's router adds to this test's TTFT beyond the engines' (the Serving panel's figures), said after
    its line so the two are read together: `sglang-router adds up to 40 ms to TTFT (no TCP_NODELAY)`; "" else."""
    # `routers`: those behind nginx (srtctl's multi-frontend layout), the first being `router`
    for router in (r for r in (snap.router, *snap.routers) if r is not None):
        adapter = ROUTERS.get(router.type)
        if adapter is not None and adapter.client_ttft_added_s:
            added = _ms(adapter.client_ttft_added_s * 1000)
            return f"{router.type} adds up to {added} to TTFT (no TCP_NODELAY)"
    return ""


def _ms(value: float | None) -> str:
    """Milliseconds with their unit, a dash when nothing was measured."""
    return "–" if value is None else f"{value:.0f} ms" if value >= 10 else f"{value:.1f} ms"


def not_serving(snap: JobSnapshot, now: datetime) -> NotServing | None:
    """Why the job cannot take a smoke test now, from its snapshot alone (no file read), or None when it serves: it
    has ended (`job 7 has ended (cancelled at …)`, as `shell` says it), or it is not ready yet (`job 7 is not serving
    yet (stage router starting)`). `srt-tui bench` refuses with it, and the job view's `b` says it."""
    job = snap.job_id
    if said := ended(snap, now):
        return NotServing(said, "submit it again, or pick a running job")
    if not snap.is_ready:
        return NotServing(
            f"job {job} is not serving yet (stage {snap.stage or 'unknown'})", f"srt-tui wait {job} --for ready"
        )
    return None


def public_url(snap: JobSnapshot) -> str:
    """Where clients send requests to this job, or NotServing saying why it cannot take them now.

    Reads the job's `endpoints.json` (a file read: call it in a worker or thread)."""
    job = snap.job_id
    if (why := not_serving(snap, datetime.now().astimezone())) is not None:
        raise why
    try:
        ends = read_endpoints(Path(snap.job_dir))
    except JobDirError as exc:
        raise NotServing(f"job {job}: {exc.short}", exc.fix or "wait for the job to write it") from None
    nginx = (ends.nginx or {}).get("url")
    router = (ends.router or {}).get("url")
    workers = [w.get("url") for w in ends.workers]
    url = ends.public_url or nginx or router or (workers[0] if len(workers) == 1 else None)
    if not isinstance(url, str) or not url:
        raise NotServing(f"job {job}: its endpoints.json names no public URL", "check the job's launch log")
    return url.rstrip("/")


async def served_model(url: str) -> str:
    """The model name the deployment serves (`GET /v1/models`), or NotServing when it does not answer."""
    conn = Connection(Origin.parse(url))
    try:
        resp = await asyncio.wait_for(conn.request("GET", "/v1/models"), timeout=MODELS_TIMEOUT_S)
        body = await asyncio.wait_for(resp.read(), timeout=MODELS_TIMEOUT_S)
    except (ClientError, TimeoutError) as exc:
        if isinstance(exc, TimeoutError) and conn.connected:  # it listens and does not reply: not the network
            said = f"{url} accepted the connection but did not answer in {MODELS_TIMEOUT_S:g} s (stopped or hung?)"
            raise NotServing(said, _HUNG) from None
        raise NotServing(f"{url} does not answer from here ({str(exc) or 'timed out'})", _UNREACHABLE) from None
    finally:
        conn.close()
    if resp.status != 200:
        raise NotServing(f"{url}/v1/models answered HTTP {resp.status}", "check the router's log (l in the job view)")
    try:
        data = json.loads(body).get("data") or []
        return str(data[0]["id"])
    except (ValueError, AttributeError, LookupError, TypeError):
        raise NotServing(f"{url}/v1/models lists no model", "check the router's log (l in the job view)") from None


#: the fix of a front that took the connection and sent no reply (a router stopped with `kill -STOP`, or hung)
_HUNG = "check the router's log (l in the job view); the job view says whether it is hung"
_UNREACHABLE = "run it on a node that reaches the job's nodes, or through the SSH port-forward the job view shows"


async def run_smoke(
    url: str,
    requests: int = DEFAULT_REQUESTS,
    concurrency: int = DEFAULT_CONCURRENCY,
    on_progress: Callable[[SmokeProgress], None] | None = None,
) -> SmokeResult:
    """Send ``requests`` streamed completions through ``url``, ``concurrency`` at a time; never raises
    for a failed request (it is counted), only NotServing when the URL does not answer at all.

    ``on_progress`` (the job view's live line, `bench`'s on a terminal) is told how it goes as each request ends
    and every `TICK_S` meanwhile, so a request held by a hung worker shows its wait growing towards the timeout
    (the line sat unchanged for the whole minute)."""
    if requests < 1 or concurrency < 1:
        raise ValueError("requests and concurrency must be at least 1")
    progress = SmokeProgress(requests, concurrency, REQUEST_TIMEOUT_S)
    if on_progress is None:
        return await _run(url, progress, None)
    tell = on_progress

    async def ticker() -> None:
        while True:
            tell(progress)
            await asyncio.sleep(TICK_S)

    ticking = asyncio.create_task(ticker())
    try:
        return await _run(url, progress, tell)
    finally:
        ticking.cancel()


class _Telling:
    """`drive`'s watcher that keeps ``progress`` and tells ``tell`` at each request's end."""

    def __init__(self, progress: SmokeProgress, tell: Callable[[SmokeProgress], None] | None) -> None:
        self.progress, self.tell = progress, tell

    def sent(self, index: int) -> None:
        self.progress.sent(index)

    def ended(self, index: int, outcome: Outcome) -> None:
        self.progress.ended(index, outcome)
        if self.tell is not None:
            self.tell(self.progress)


async def _run(url: str, progress: SmokeProgress, tell: Callable[[SmokeProgress], None] | None) -> SmokeResult:
    """`run_smoke`'s run: the served model, then the load, ``progress`` kept as it goes."""
    requests, concurrency = progress.requests, progress.concurrency
    model = await served_model(url)
    config = BenchConfig(
        url=url,
        concurrencies=(concurrency,),
        model=model,
        isl=PROMPT_WORDS,
        osl=ANSWER_TOKENS,
        stream=True,
        timeout_s=progress.timeout_s,
    )
    started = time.perf_counter()
    outcomes = await drive(Origin.parse(url), config, concurrency, requests, watcher=_Telling(progress, tell))
    return summarize(url, model, outcomes, time.perf_counter() - started)


def summarize(url: str, model: str, outcomes: list[Outcome], duration_s: float) -> SmokeResult:
    """The result of a run from its outcomes (percentiles as sa-bench computes them)."""
    good = [o for o in outcomes if o.ok]
    latencies = [o.latency_s * 1000 for o in good]
    ttfts = [o.ttft_s * 1000 for o in good if o.ttft_s is not None]
    tokens = sum(o.output_tokens for o in good)
    return SmokeResult(
        url=url,
        model=model,
        requests=len(outcomes),
        ok=len(good),
        failed=len(outcomes) - len(good),
        duration_s=round(duration_s, 3),
        latency_p50_ms=_round(percentile(latencies, 50)),
        latency_p99_ms=_round(percentile(latencies, 99)),
        ttft_p50_ms=_round(percentile(ttfts, 50)),
        ttft_p99_ms=_round(percentile(ttfts, 99)),
        output_tokens_per_s=round(tokens / duration_s, 1) if duration_s > 0 else 0.0,
        errors=failure_kinds([o.error or NO_REASON for o in outcomes if not o.ok]),
    )


#: a failed request that gave no error text (the load always gives one: never left out of the counts)
NO_REASON = "failed, no reason given"


def error_kind(error: str) -> str:
    """What kind of failure ``error`` is: `HTTP 503` (whatever its body), `timeout`, `stream error`, the exception's
    name (`ClientError: …`), or the text itself."""
    head, sep, _rest = error.partition(":")
    if error.startswith("timeout"):
        return "timeout"
    return head if sep and (head.startswith("HTTP ") or head == "stream error" or head.isidentifier()) else error


def failure_kinds(errors: list[str]) -> tuple[tuple[str, int], ...]:
    """Every failure counted by its kind, most frequent first, so the counts add up to the failed total: a kind whose
    failures all said the same is named by that text (`HTTP 503: No available workers: 2 prefill, 0 decode`), one
    whose texts differ by its kind and its most frequent text (`HTTP 503, e.g. No available workers: …`). Counted by
    whole text and cut to the first three, a run's fourth kind and texts that differ by a number went unsaid."""
    by_kind: dict[str, Counter[str]] = {}
    for error in errors:
        by_kind.setdefault(error_kind(error), Counter())[error] += 1
    counted: list[tuple[str, int]] = []
    for kind, texts in by_kind.items():
        (common, _n), *others = texts.most_common()
        said = common if not others else f"{kind}, e.g. {common.removeprefix(kind).lstrip(': ') or common}"
        counted.append((said, texts.total()))
    return tuple(sorted(counted, key=lambda kv: -kv[1]))


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)
