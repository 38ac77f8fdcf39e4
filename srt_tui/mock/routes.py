"""The mock worker's endpoints: health, info, load, metrics, generation and test controls."""

from __future__ import annotations

import asyncio
import os
import random
import sys
import time
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from srt_tui.bench.wire import HttpError
from srt_tui.mock.bootstrap import KVTransferError, KVWaiter, Rendezvous
from srt_tui.mock.config import WorkerConfig
from srt_tui.mock.generation import (
    BOOTSTRAP_KEYS,
    DONE_EVENT,
    KIND_BY_PATH,
    GenRequest,
    Reply,
    error_body,
    kv_params_for_decode,
    make_tokens,
    parse_generation,
    sse,
)
from srt_tui.mock.http import Request, ResponseWriter
from srt_tui.mock.metrics import render_metrics
from srt_tui.mock.reqlog import RequestLog
from srt_tui.mock.shapes import MOCK_VERSION, load_report, model_info, models_list, server_info
from srt_tui.mock.state import WorkerState, compact

OTHER_PATH = "<other>"
PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8"
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass
class Call:
    """One request being answered, with notes the handler leaves for the request log."""

    request: Request
    rw: ResponseWriter
    note: dict[str, Any] = field(default_factory=dict)


Handler = Callable[[Call], Awaitable[None]]


def _query_float(call: Call, key: str, low: float, high: float | None = None) -> float:
    """A numeric query parameter within bounds, else a 400."""
    raw = call.request.query.get(key)
    if raw is None:
        raise HttpError(400, f"query parameter {key!r} is required")
    try:
        value = float(raw)
    except ValueError as exc:
        raise HttpError(400, f"{key} must be a number, not {raw!r}") from exc
    if value < low or (high is not None and value > high):
        raise HttpError(400, f"{key} must be within {low}..{high if high is not None else 'inf'}")
    return value


def _observe(state: WorkerState, ttft_s: float, gaps: list[float], e2e_s: float) -> None:
    """Record one successful generation in the latency histograms (as the engine it imitates would)."""
    state.latency["ttft"].observe(ttft_s)
    for gap in gaps:
        state.latency["itl"].observe(gap)
    state.latency["e2e"].observe(e2e_s)


async def _send_quietly(rw: ResponseWriter, status: int, body: dict[str, Any]) -> bool:
    """Send an error answer; False when the peer is already gone."""
    try:
        await rw.send_json(status, body)
    except ConnectionError:
        return False
    return True


async def _sleep_ms(ms: float) -> None:
    """Pretend to work for ``ms`` milliseconds (no-op for zero)."""
    if ms > 0:
        await asyncio.sleep(ms / 1000.0)


#: the environment variable a test sets to open the control routes (/mock/health, /mock/delay, /mock/fail,
#: /mock/load) on the workers it starts; a job started without it serves none of them
CONTROL_ENV = "SRT_MOCK_CONTROL"


def control_enabled() -> bool:
    """Whether this worker serves its control routes (only when a test asks, with SRT_MOCK_CONTROL=1)."""
    return os.environ.get(CONTROL_ENV) == "1"


class MockApp:
    """Dispatches requests to handlers and keeps the worker's counters and request log."""

    def __init__(
        self,
        config: WorkerConfig,
        state: WorkerState,
        log: RequestLog | None = None,
        rendezvous: Rendezvous | None = None,
    ) -> None:
        self.config = config
        self.state = state
        self.log = log
        #: a prefill serving its bootstrap port: the rooms its decodes wait on (see `bootstrap`)
        self.rendezvous = rendezvous
        #: a decode: how it waits for its prefills' KV
        self.kv = KVWaiter(config.kv_wait_timeout_s) if config.role == "decode" else None
        self.created = int(time.time())
        health = ("GET", self._health)
        self.routes: dict[str, dict[str, Handler]] = {
            "/health": dict([health]),
            "/health_generate": dict([health]),
            "/ping": dict([health]),
            "/server_info": {"GET": self._server_info},
            "/get_server_info": {"GET": self._server_info},
            "/model_info": {"GET": self._model_info},
            "/get_model_info": {"GET": self._model_info},
            "/v1/models": {"GET": self._models},
            "/version": {"GET": self._version},
            "/get_load": {"GET": self._get_load},
            "/flush_cache": {"GET": self._flush_cache, "POST": self._flush_cache},
            "/metrics": {"GET": self._metrics},
            **{path: {"POST": self._generation} for path in KIND_BY_PATH},
            "/mock/stats": {"GET": self._stats},
            "/mock/requests": {"GET": self._recent},
        }
        if control_enabled():  # a test asked: anyone who reaches the node could otherwise fail or stall it
            self.routes.update(
                {
                    "/mock/health": {"POST": self._set_health},
                    "/mock/delay": {"POST": self._set_delay},
                    "/mock/fail": {"POST": self._set_fail},
                    "/mock/load": {"POST": self._set_load},
                }
            )

    # dispatch -----------------------------------------------------------------------------------

    def _handler(self, request: Request) -> Handler | None:
        """The handler for a request, or None for an unknown path or method."""
        methods = self.routes.get(request.path)
        if methods is None:
            return None
        method = "GET" if request.method == "HEAD" else request.method
        return methods.get(method)

    async def serve(self, request: Request, rw: ResponseWriter) -> None:
        """Answer one request, count it and log it; never raises for a handler's own failure."""
        call = Call(request, rw)
        started = time.perf_counter()
        disconnected = False
        try:
            handler = self._handler(request)
            if handler is None:
                await self._not_routed(call)
            else:
                await handler(call)
            if rw.status is None:
                raise RuntimeError("handler sent no response")
        except HttpError as exc:
            if rw.status is None:
                rw.keep_alive = rw.keep_alive and exc.status < 500
                disconnected = not await _send_quietly(rw, exc.status, error_body(exc.message, exc.status))
        except ConnectionError:
            disconnected = True
        except Exception:
            traceback.print_exc(file=sys.stderr)
            rw.keep_alive = False
            if rw.status is None:
                body = error_body("internal mock error", 500, "InternalServerError")
                disconnected = not await _send_quietly(rw, 500, body)
        finally:
            self._finish(call, time.perf_counter() - started, disconnected or not rw.finished)

    async def _not_routed(self, call: Call) -> None:
        """404 for unknown paths, 405 with Allow for known paths and wrong methods."""
        methods = self.routes.get(call.request.path)
        if methods is None:
            await call.rw.send_json(404, {"detail": "Not Found"})
            return
        allow = ", ".join(sorted({*methods, *(["HEAD"] if "GET" in methods else [])}))
        await call.rw.send_json(405, {"detail": "Method Not Allowed"}, [("Allow", allow)])

    def _finish(self, call: Call, duration_s: float, broken: bool) -> None:
        """Count the request under its path and append it to the request log."""
        status = call.rw.status or 499
        ok = status < 400 and not broken
        path = call.request.path if call.request.path in self.routes else OTHER_PATH
        self.state.record(path, ok)
        rank = call.note.get("dp_rank")
        if isinstance(rank, int):
            self.state.dp.record(rank, ok)
        if broken:
            self.state.disconnects += 1
        if self.log is not None:
            entry: dict[str, Any] = {
                "method": call.request.method,
                "path": call.request.path,
                "status": status,
                "ok": ok,
                "duration_ms": round(duration_s * 1000, 3),
            }
            request_id = call.request.headers.get("x-request-id")
            if request_id:
                entry["request_id"] = request_id
            self.log.write({**entry, **call.note})

    # health and info ----------------------------------------------------------------------------

    async def _health(self, call: Call) -> None:
        """200 while healthy; 503 once a test turned health off."""
        if self.state.healthy:
            await call.rw.send(200)
        else:
            await call.rw.send(503, b"unhealthy (set by /mock/health)")

    async def _server_info(self, call: Call) -> None:
        """Server info with the disaggregation mode and the mock identity."""
        await call.rw.send_json(200, server_info(self.config, self.state))

    async def _model_info(self, call: Call) -> None:
        """Model info."""
        await call.rw.send_json(200, model_info(self.config))

    async def _models(self, call: Call) -> None:
        """OpenAI model list."""
        await call.rw.send_json(200, models_list(self.config, self.created))

    async def _version(self, call: Call) -> None:
        """Version document."""
        await call.rw.send_json(200, {"version": MOCK_VERSION})

    async def _get_load(self, call: Call) -> None:
        """Load in the shape the flavour's router parses."""
        await call.rw.send_json(200, load_report(self.config, self.state))

    async def _flush_cache(self, call: Call) -> None:
        """Pretend to flush the prefix cache."""
        await call.rw.send(200, b"Cache flushed.\n")

    async def _metrics(self, call: Call) -> None:
        """Prometheus text."""
        await call.rw.send(200, render_metrics(self.config, self.state).encode(), PROMETHEUS_TEXT)

    # generation ---------------------------------------------------------------------------------

    def _note_disaggregation(self, gen: GenRequest) -> None:
        """Count bootstrap fields (SGLang P/D) and KV parameters from a prefill (vLLM P/D)."""
        state = self.state
        if gen.bootstrap:
            state.bootstrap_seen += 1
            port = gen.bootstrap.get("bootstrap_port")
            if (
                self.config.role == "prefill"
                and "bootstrap_port" in gen.bootstrap
                and port != self.config.bootstrap_port
            ):
                state.bootstrap_mismatch += 1
        kv = gen.kv_transfer_params
        if kv is not None and kv.get("do_remote_prefill"):
            engine = str(kv.get("remote_engine_id"))
            state.kv_from[engine] = state.kv_from.get(engine, 0) + 1

    def _mock_block(self, gen: GenRequest) -> dict[str, Any]:
        """The ``srt_mock`` block of a generation answer: who answered and what P/D fields it saw."""
        block: dict[str, Any] = {"worker": self.config.name, "role": self.config.role, **gen.bootstrap}
        if gen.kv_transfer_params is not None:
            block["kv_transfer_params_in"] = gen.kv_transfer_params
        return block

    def _room(self, gen: GenRequest) -> str | None:
        """The bootstrap room a prefill reports its KV for, None when it serves no bootstrap port or the
        request names no room."""
        room = gen.bootstrap.get("bootstrap_room")
        if self.rendezvous is None or room is None or isinstance(room, bool):
            return None
        return str(room)

    async def _wait_for_prefill(self, gen: GenRequest) -> str | None:
        """A decode given a prefill's bootstrap address and room waits until that prefill has the KV, as SGLang's
        decode does before its first token; None when it may go on, else the error it answers with."""
        host, port, room = (gen.bootstrap.get(k) for k in BOOTSTRAP_KEYS)
        if self.kv is None or not isinstance(host, str) or not host or room is None:
            return None
        if isinstance(port, bool) or not isinstance(port, int):
            return None  # the router was given no bootstrap port for this prefill (`--prefill URL none`)
        self.state.kv_waits += 1
        try:
            await self.kv.wait(host, port, str(room))
        except KVTransferError as exc:
            self.state.kv_wait_failures += 1
            return (
                f"Decode transfer failed for request rid={gen.request_id} bootstrap_room={room} "
                f"with exception KVTransferError(bootstrap_room={room}): {exc}"
            )
        return None

    async def _generation(self, call: Call) -> None:
        """Generate pretend tokens, whole or streamed as SSE, after the configured latencies."""
        config, state = self.config, self.state
        body = call.request.json()
        try:
            gen = parse_generation(KIND_BY_PATH[call.request.path], body, config.model)
        except ValueError as exc:
            await call.rw.send_json(400, error_body(str(exc), 400))
            return
        try:
            rank, routed = state.dp.place(body, call.request.headers)
        except ValueError as exc:
            await call.rw.send_json(400, error_body(str(exc), 400))
            return
        call.note.update(kind=gen.kind, stream=gen.stream, max_tokens=gen.max_tokens, **gen.bootstrap)
        call.note.update(dp_rank=rank, dp_routed=routed)
        state.recent.append({"time": time.time(), "path": call.request.path, "body": compact(body)})
        self._note_disaggregation(gen)
        room = self._room(gen)
        if state.fail_rate > 0 and random.random() < state.fail_rate:
            if room is not None:
                self._finish_room(room, "injected failure (fail rate)")
            await call.rw.send_json(500, error_body("injected failure (fail rate)", 500, "InternalServerError"))
            return
        count = 1 if config.role == "prefill" else gen.max_tokens
        kv_in = gen.kv_transfer_params
        kv_out = (
            kv_params_for_decode(config)
            if config.role == "prefill" and kv_in and kv_in.get("do_remote_decode")
            else None
        )
        reply = Reply(gen, config, make_tokens(config.name, count), self._mock_block(gen), kv_out)
        held = gen.prompt_tokens
        on_rank = state.dp.ranks[rank]
        state.running += 1
        state.running_tokens += held
        on_rank.running += 1
        on_rank.running_tokens += held
        started = time.monotonic()
        gaps: list[float] = []
        try:
            failed = await self._wait_for_prefill(gen)
            if failed is not None:
                await call.rw.send_json(500, error_body(failed, 500, "InternalServerError"))
                return
            await _sleep_ms(state.latency_ms)
            first = time.monotonic()
            if room is not None:  # the KV is ready: the decode waiting on this room may go on
                self._finish_room(room)
                room = None
            if gen.stream:
                await call.rw.start_stream()
                last = first
                for index in range(count):
                    if index:
                        await _sleep_ms(state.token_latency_ms)
                        now = time.monotonic()
                        gaps.append(now - last)
                        last = now
                    await call.rw.write(sse(reply.chunk(index)))
                    held += 1
                    state.running_tokens += 1
                    on_rank.running_tokens += 1
                usage = reply.usage_chunk()
                if usage is not None:
                    await call.rw.write(sse(usage))
                await call.rw.write(DONE_EVENT)
                await call.rw.end_stream()
            else:
                await _sleep_ms(state.token_latency_ms * (count - 1))
                if count > 1:
                    gaps = [(time.monotonic() - first) / (count - 1)] * (count - 1)
                await call.rw.send_json(200, reply.whole())
            _observe(state, first - started, gaps, time.monotonic() - started)
            state.prompt_tokens_total += gen.prompt_tokens
            state.generation_tokens_total += count
            state.generation_success_total += 1
        finally:
            if room is not None:
                self._finish_room(room, "the prefill request ended before its first token")
            state.running -= 1
            state.running_tokens -= held
            on_rank.running -= 1
            on_rank.running_tokens -= held

    def _finish_room(self, room: str, error: str | None = None) -> None:
        """Tell the decode waiting on ``room`` that this prefill has its KV (or failed it)."""
        if self.rendezvous is not None:
            self.rendezvous.finish(room, error)

    # test controls ------------------------------------------------------------------------------

    async def _stats(self, call: Call) -> None:
        """Per-path counts and totals."""
        await call.rw.send_json(200, self.state.stats(self.config))

    async def _recent(self, call: Call) -> None:
        """The last N generation request bodies (default 20), long strings and lists cut."""
        n = int(_query_float(call, "n", 0, None)) if "n" in call.request.query else 20
        items = list(self.state.recent)[-n:] if n else []
        await call.rw.send_json(200, {"worker": self.config.name, "requests": items})

    async def _set_health(self, call: Call) -> None:
        """Force /health to 200 (ok=1) or 503 (ok=0) without stopping the process."""
        raw = call.request.query.get("ok", "").lower()
        if raw not in _TRUE | _FALSE:
            raise HttpError(400, "ok must be 0 or 1")
        self.state.healthy = raw in _TRUE
        await call.rw.send_json(200, {"healthy": self.state.healthy})

    async def _set_delay(self, call: Call) -> None:
        """Set the base per-request latency (ms=) and optionally the per-token latency (token_ms=)."""
        self.state.latency_ms = _query_float(call, "ms", 0.0)
        if "token_ms" in call.request.query:
            self.state.token_latency_ms = _query_float(call, "token_ms", 0.0)
        await call.rw.send_json(
            200, {"latency_ms": self.state.latency_ms, "token_latency_ms": self.state.token_latency_ms}
        )

    async def _set_fail(self, call: Call) -> None:
        """Set the fraction of generation requests answered 500."""
        self.state.fail_rate = _query_float(call, "rate", 0.0, 1.0)
        await call.rw.send_json(200, {"fail_rate": self.state.fail_rate})

    async def _set_load(self, call: Call) -> None:
        """Fix what /get_load reports (value=N, tokens=M); no value or a negative one returns to live load."""
        raw = call.request.query.get("value", "")
        value = int(_query_float(call, "value", -1.0)) if raw else -1
        tokens = int(_query_float(call, "tokens", 0.0)) if "tokens" in call.request.query else None
        self.state.load_override = value if value >= 0 else None
        self.state.load_tokens_override = tokens if value >= 0 else None
        requests, total_tokens = self.state.load()
        await call.rw.send_json(
            200, {"load_override": self.state.load_override, "num_reqs": requests, "num_tokens": total_tokens}
        )
