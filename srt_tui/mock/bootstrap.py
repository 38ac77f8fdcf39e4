"""The P/D bootstrap rendezvous: a mock decode waits for its prefill's KV cache, as a real SGLang decode does.

sglang-router (and smg) send each request to a prefill and a decode at the same time, both carrying the
prefill's ``bootstrap_host``/``bootstrap_port`` and one ``bootstrap_room``. A real SGLang prefill runs a
bootstrap server on that port; the decode's KV receiver connects to it, the prefill computes and pushes the KV
cache, and only then does the decode emit its first token. So the decode's TTFT (the one the Monitor shows as
the deployment's) includes the prefill, and a decode whose prefill never delivers aborts the request with a
500 after ``SGLANG_DISAGGREGATION_WAITING_TIMEOUT``.

Here a prefill given a bootstrap port serves it over HTTP (one more `Listener`): ``GET /health`` as SGLang's
bootstrap server answers it, and the mock's ``GET /kv?room=R&timeout=S``, answered when room R's prefill has
its first token (200), failed (500), or after S seconds (504). Either side may come first: a room the prefill
finished before its decode asked is kept (bounded in number and age). The decode holds the request, counted in
its TTFT, until the answer; a failure is its 500, worded as SGLang words it. Each wait is one request on a
pooled keep-alive connection: cheap enough for hundreds of workers.

vLLM's P/D through vllm-router is sequential (the decode gets the request once the prefill answered, with the
prefill's ``kv_transfer_params``), so a vLLM-flavour decode has nothing to wait for: its TTFT, like a real vLLM
decode's, excludes the prefill.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from srt_tui.bench.client import ClientError, Connection, Origin
from srt_tui.mock.config import DEFAULT_KV_WAIT_S, MAX_KV_WAIT_S
from srt_tui.mock.http import Request, ResponseWriter

#: how long a decode waits for its prefill by default (SGLang's SGLANG_DISAGGREGATION_WAITING_TIMEOUT is 300 s;
#: a mock's prefill answers within its configured latency, so a shorter bound fails a broken pairing sooner),
#: and the longest wait a bootstrap server accepts in one request
DEFAULT_WAIT_S = DEFAULT_KV_WAIT_S
MAX_WAIT_S = MAX_KV_WAIT_S
#: extra time the decode allows past its wait for the prefill's own timeout answer to arrive
ANSWER_GRACE_S = 2.0
#: finished rooms no decode has asked for yet: kept this long, and at most this many (oldest dropped first)
KEEP_DONE_S = 300.0
MAX_DONE_ROOMS = 65536
#: idle keep-alive connections a decode keeps to each prefill's bootstrap server
MAX_IDLE_PER_PREFILL = 64


class KVTransferError(Exception):
    """The decode cannot get a room's KV cache: the prefill failed it, timed out, or cannot be reached."""


class Rendezvous:
    """One prefill's rooms: the decodes waiting on each, and the outcome of rooms finished before their decode
    asked (None: the KV is ready; a text: why the prefill failed it)."""

    def __init__(
        self,
        keep_s: float = KEEP_DONE_S,
        max_done: int = MAX_DONE_ROOMS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._keep_s = keep_s
        self._max_done = max_done
        self._clock = clock
        self._waiting: dict[str, asyncio.Future[str | None]] = {}
        self._done: OrderedDict[str, tuple[float, str | None]] = OrderedDict()

    @property
    def waiting(self) -> int:
        """Rooms a decode waits on whose prefill has not finished."""
        return len(self._waiting)

    @property
    def unclaimed(self) -> int:
        """Rooms the prefill finished that no decode has asked for yet."""
        return len(self._done)

    def finish(self, room: str, error: str | None = None) -> None:
        """Room ``room``'s prefill has its KV (``error`` None) or failed (``error`` says why): release its decode,
        or keep the outcome for the decode still to come."""
        waiter = self._waiting.pop(room, None)
        if waiter is not None:
            if not waiter.done():
                waiter.set_result(error)
            return
        now = self._clock()
        self._done[room] = (now, error)
        self._done.move_to_end(room)
        while self._done:
            oldest = next(iter(self._done.values()))[0]
            if len(self._done) <= self._max_done and now - oldest <= self._keep_s:
                break
            self._done.popitem(last=False)

    async def wait(self, room: str, timeout_s: float) -> str | None:
        """Until room ``room``'s prefill finished: None when its KV is ready, else why it failed;
        `asyncio.TimeoutError` after ``timeout_s``."""
        done = self._done.pop(room, None)
        if done is not None:
            return done[1]
        waiter = self._waiting.get(room)
        if waiter is None:
            waiter = asyncio.get_running_loop().create_future()
            self._waiting[room] = waiter
        try:
            return await asyncio.wait_for(asyncio.shield(waiter), timeout_s)
        finally:
            if not waiter.done() and self._waiting.get(room) is waiter:
                del self._waiting[room]  # given up: a prefill finishing later keeps its outcome for a while


def _float_or_none(raw: str | None) -> float | None:
    try:
        return float(raw) if raw is not None else None
    except ValueError:
        return None


class BootstrapApp:
    """What a mock prefill serves on its bootstrap port."""

    def __init__(self, rendezvous: Rendezvous, name: str) -> None:
        self.rendezvous = rendezvous
        self.name = name

    async def serve(self, request: Request, rw: ResponseWriter) -> None:
        """``/health``, or the wait for one room (``/kv``)."""
        if request.method not in ("GET", "HEAD"):
            await rw.send_json(405, {"error": "Method Not Allowed"}, [("Allow", "GET, HEAD")])
        elif request.path == "/health":
            await rw.send(200, b"OK")
        elif request.path == "/kv":
            await self._kv(request, rw)
        else:
            await rw.send_json(404, {"error": "Not Found"})

    async def _kv(self, request: Request, rw: ResponseWriter) -> None:
        room = request.query.get("room", "")
        timeout_s = _float_or_none(request.query.get("timeout", str(DEFAULT_WAIT_S)))
        if not room or timeout_s is None or not 0 < timeout_s <= MAX_WAIT_S:
            await rw.send_json(400, {"error": f"room=R and timeout=0<S<={MAX_WAIT_S:g} are required"})
            return
        try:
            error = await self.rendezvous.wait(room, timeout_s)
        except asyncio.TimeoutError:
            message = f"prefill {self.name} did not finish room {room} within {timeout_s:g}s"
            await rw.send_json(504, {"room": room, "error": message})
            return
        if error is not None:
            await rw.send_json(500, {"room": room, "error": f"prefill {self.name} failed it: {error}"})
        else:
            await rw.send_json(200, {"room": room})


def _reason(body: bytes) -> str:
    """The ``error`` a bootstrap server answered with, else its body's start."""
    try:
        doc: Any = json.loads(body)
    except ValueError:
        doc = None
    if isinstance(doc, dict) and isinstance(doc.get("error"), str):
        return str(doc["error"])
    return body[:200].decode("utf-8", errors="replace") or "(empty answer)"


class KVWaiter:
    """The decode's side: asks its prefill's bootstrap server for a room, over pooled keep-alive connections."""

    def __init__(self, timeout_s: float = DEFAULT_WAIT_S, max_idle: int = MAX_IDLE_PER_PREFILL) -> None:
        self.timeout_s = timeout_s
        self._max_idle = max_idle
        self._idle: dict[tuple[str, int], list[Connection]] = {}

    async def wait(self, host: str, port: int, room: str) -> None:
        """Return once room ``room``'s KV is ready at the prefill whose bootstrap server is ``host:port``;
        `KVTransferError` (SGLang's reason, the room and the prefill) when it never will be."""
        where = f"{host}:{port}"
        pool = self._idle.setdefault((host, port), [])
        conn = pool.pop() if pool else Connection(Origin("http", host, port))
        path = f"/kv?room={quote(room, safe='')}&timeout={self.timeout_s:g}"
        try:
            status, body = await asyncio.wait_for(_ask(conn, path), self.timeout_s + ANSWER_GRACE_S)
        except asyncio.TimeoutError:
            conn.close()
            raise KVTransferError(
                f"Request {room} timed out after {self.timeout_s:g}s in KVPoll.WaitingForInput: "
                f"no answer from the prefill's bootstrap server {where}"
            ) from None
        except ClientError as exc:
            conn.close()
            raise KVTransferError(
                f"Failed to get kvcache from prefill instance, it might be dead (bootstrap server {where}: {exc})"
            ) from None
        if len(pool) < self._max_idle:
            pool.append(conn)
        else:
            conn.close()
        if status == 504:
            raise KVTransferError(
                f"Request {room} timed out after {self.timeout_s:g}s in KVPoll.WaitingForInput: {_reason(body)}"
            )
        if status != 200:
            raise KVTransferError(f"{_reason(body)} (bootstrap server {where}, HTTP {status})")

    def close(self) -> None:
        """Close every idle connection."""
        for pool in self._idle.values():
            for conn in pool:
                conn.close()
        self._idle.clear()


async def _ask(conn: Connection, path: str) -> tuple[int, bytes]:
    response = await conn.request("GET", path)
    return response.status, await response.read()
