"""A lean asyncio HTTP/1.1 GET client for the monitor's probes: keep-alive, pipelining, hard timeouts.

Why not httpx: a refresh of 1,024 endpoints is 2,048 GETs (``/health`` and ``/metrics``). Measured on
this 2-core machine against loopback mock workers (`benchmarks/monitor_refresh.py --httpx`), one
warm pass of those GETs through a pooled ``httpx.AsyncClient`` cost 0.027 CPU-s for 16 endpoints
(~0.9 ms per request), 1.5 CPU-s for 128 (~6 ms) and about 63 CPU-s for 1,024 (~30 ms per request:
its pool bookkeeping grows with the number of connections), against a target of 0.5 CPU-s and 1 s
for the whole refresh. This client does the 1,024-endpoint pass in ~0.1 CPU-s (~50 µs per request).
The probes need far less than a general client: plain ``http://IP:port`` origins, GET only, small
bodies, no redirects, cookies, proxies or TLS. This module is exactly that, built on an
``asyncio.Protocol`` (no stream reader/writer layers): one persistent connection per origin; the
GETs of one probe are written back-to-back (pipelined) and their responses parsed from the same
buffer (Content-Length, chunked, or close-delimited bodies); every request has a deadline, and a
failure is classified for the caller (refused, unreachable, timeout, closed, protocol) so the
monitor can tell a dead worker from a node it cannot reach. See ``benchmarks/monitor_refresh.py``.
Measured again side by side (``benchmarks/monitor_http.py``, one shared pooled httpx 0.28 client, HTTP/1.1,
a connection per endpoint): httpx costs 11-17x this client's CPU at 16 endpoints and ~100x at 128, so httpx
is not a runtime requirement.
"""

from __future__ import annotations

import asyncio
import errno
import socket
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

MAX_HEAD = 64 * 1024
MAX_BODY = 16 * 1024 * 1024
_UNREACHABLE = {errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EHOSTDOWN, errno.ETIMEDOUT, errno.EADDRNOTAVAIL}


class HttpFailure(Exception):
    """A GET that produced no HTTP response; ``kind`` says why.

    ``refused`` (host up, nothing listening), ``unreachable`` (no route, host down, or no TCP answer in time:
    the request never reached the node), ``timeout`` (a request on a kept-alive connection got no reply in time:
    its link may have gone since, or its process stopped), ``silent`` (a connection made for this request was
    accepted, and no reply came in time: the node answers from here, its process does not — hung, stopped or
    overloaded), ``closed`` (the peer closed or reset mid-exchange), ``protocol`` (garbage).
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message

    @property
    def definitive(self) -> bool:
        """True when the host answered at TCP level (so the process is really not serving)."""
        return self.kind in ("refused", "closed", "protocol")


@dataclass(frozen=True)
class Response:
    """Status code, the headers we care about (lower-case names) and the raw body."""

    status: int
    body: bytes
    content_type: str = ""

    def text(self) -> str:
        """The body as text (UTF-8, invalid bytes replaced)."""
        return self.body.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class Origin:
    """``http://host:port`` of a URL, plus its path (with query)."""

    host: str
    port: int
    path: str

    @classmethod
    def parse(cls, url: str) -> Origin:
        """Split an ``http://`` URL; anything else is a ValueError. Memoised: every refresh parses the same
        few thousand URLs, which cost ~0.4 s of the event loop per refresh at 1,024 endpoints."""
        return _parse_origin(url)


@lru_cache(maxsize=8192)
def _parse_origin(url: str) -> Origin:
    split = urlsplit(url)
    if split.scheme != "http" or not split.hostname:
        raise ValueError(f"only http://host:port URLs are probed, not {url!r}")
    path = split.path or "/"
    if split.query:
        path += "?" + split.query
    return Origin(split.hostname, split.port or 80, path)


class _Pending:
    """One request awaiting its response on a connection."""

    __slots__ = ("future", "timer")

    def __init__(self, future: asyncio.Future[Response], timer: asyncio.TimerHandle) -> None:
        self.future = future
        self.timer = timer


class _Connection(asyncio.Protocol):
    """One keep-alive connection; responses are matched to requests in order (HTTP/1.1 pipelining)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, host_header: bytes) -> None:
        self.loop = loop
        self.host_header = host_header
        self.transport: asyncio.Transport | None = None
        self.pending: deque[_Pending] = deque()
        self.buf = bytearray()
        self.closed = False
        self.reusable = True
        # parse state of the response at the head of the queue
        self._status = 0
        self._ctype = ""
        self._length: int | None = None
        self._chunked = False
        self._until_close = False
        self._head_done = False

    # -- asyncio.Protocol ---------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buf += data
        try:
            while self.pending and self._parse():
                pass
        except HttpFailure as exc:
            self._fail_all(exc)
            self._abort()
        if not self.pending and self.buf:
            # bytes nobody asked for: the connection's framing cannot be trusted any more
            self.reusable = False

    def eof_received(self) -> bool | None:
        if self.pending and self._head_done and self._until_close:
            self._finish(bytes(self.buf))
            self.buf.clear()
        self.closed = True
        self.reusable = False
        self._fail_all(HttpFailure("closed", "the server closed the connection"))
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.reusable = False
        if exc is not None:
            self._fail_all(_classify(exc))
        else:
            self._fail_all(HttpFailure("closed", "the server closed the connection"))

    # -- requests -------------------------------------------------------------------------------------

    def request(self, paths: list[str], timeout: float) -> list[asyncio.Future[Response]]:
        """Write GETs for every path at once; one future per response, each with its deadline."""
        assert self.transport is not None
        wire = b"".join(
            b"GET " + p.encode("ascii", "strict") + b" HTTP/1.1\r\nHost: " + self.host_header + b"\r\n"
            b"Accept: */*\r\nUser-Agent: srt-tui-monitor\r\n\r\n"
            for p in paths
        )
        futures = []
        for _ in paths:
            fut: asyncio.Future[Response] = self.loop.create_future()
            timer = self.loop.call_later(timeout, self._timeout, fut, timeout)
            self.pending.append(_Pending(fut, timer))
            futures.append(fut)
        self.transport.write(wire)
        return futures

    def _timeout(self, fut: asyncio.Future[Response], timeout: float) -> None:
        if not fut.done():
            self._fail_all(HttpFailure("timeout", f"no answer within {timeout:g} s"))
            self._abort()

    def _abort(self) -> None:
        self.reusable = False
        self.closed = True
        if self.transport is not None:
            self.transport.abort()

    def _fail_all(self, exc: HttpFailure) -> None:
        """The first waiting request gets the error; later ones (never awaited after it) are cancelled."""
        first = True
        while self.pending:
            p = self.pending.popleft()
            p.timer.cancel()
            if not p.future.done():
                if first:
                    p.future.set_exception(exc)
                else:
                    p.future.cancel()
            first = False

    def _finish(self, body: bytes) -> None:
        p = self.pending.popleft()
        p.timer.cancel()
        if not p.future.done():
            p.future.set_result(Response(self._status, body, self._ctype))
        self._head_done = False

    # -- response parsing -----------------------------------------------------------------------------

    def _parse(self) -> bool:
        """Consume one complete response from the buffer if there is one; False when more bytes are needed."""
        buf = self.buf
        if not self._head_done:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                if len(buf) > MAX_HEAD:
                    raise HttpFailure("protocol", "response head too large")
                return False
            self._head(bytes(buf[:end]))
            del buf[: end + 4]
        if self._chunked:
            return self._chunked_body()
        if self._length is not None:
            if len(buf) < self._length:
                return False
            body = bytes(buf[: self._length])
            del buf[: self._length]
            self._finish(body)
            return True
        return False  # close-delimited: eof_received finishes it

    def _head(self, head: bytes) -> None:
        lines = head.split(b"\r\n")
        parts = lines[0].split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
            raise HttpFailure("protocol", f"not an HTTP response: {lines[0][:80]!r}")
        self._status = int(parts[1])
        self._ctype = ""
        self._length = None
        self._chunked = False
        keep_alive = parts[0] == b"HTTP/1.1"
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            key = name.strip().lower()
            if key == b"content-length":
                try:
                    self._length = int(value.strip())
                except ValueError as exc:
                    raise HttpFailure("protocol", "bad Content-Length") from exc
                if self._length > MAX_BODY:
                    raise HttpFailure("protocol", "response body too large")
            elif key == b"transfer-encoding":
                self._chunked = b"chunked" in value.lower()
            elif key == b"connection":
                v = value.strip().lower()
                keep_alive = v == b"keep-alive" or (keep_alive and v != b"close")
            elif key == b"content-type":
                self._ctype = value.strip().decode("latin-1")
        if self._status in (204, 304) or 100 <= self._status < 200:
            self._length = 0
        self._until_close = self._length is None and not self._chunked
        if not keep_alive or self._until_close:
            self.reusable = False
        self._head_done = True

    def _chunked_body(self) -> bool:
        """Decode a whole chunked body once all of it has arrived (bodies here are small)."""
        buf = self.buf
        pos = 0
        body = bytearray()
        while True:
            eol = buf.find(b"\r\n", pos)
            if eol < 0:
                return False
            try:
                size = int(bytes(buf[pos:eol]).split(b";", 1)[0], 16)
            except ValueError as exc:
                raise HttpFailure("protocol", "bad chunk size") from exc
            if size == 0:
                end = buf.find(b"\r\n\r\n", eol)
                if end < 0:
                    if buf[eol : eol + 4] == b"\r\n\r\n":
                        end = eol
                    else:
                        return False
                del buf[: end + 4]
                self._finish(bytes(body))
                return True
            start = eol + 2
            if len(buf) < start + size + 2:
                return False
            body += buf[start : start + size]
            if len(body) > MAX_BODY:
                raise HttpFailure("protocol", "response body too large")
            pos = start + size + 2


def _classify(exc: BaseException) -> HttpFailure:
    """An OSError (or timeout) as an HttpFailure with a kind."""
    if isinstance(exc, HttpFailure):
        return exc
    if isinstance(exc, ConnectionRefusedError):
        return HttpFailure("refused", "connection refused")
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):  # no SYN-ACK: the request never reached the node
        return HttpFailure("unreachable", "connect timed out")
    if isinstance(exc, (ConnectionResetError, BrokenPipeError, ConnectionAbortedError)):
        return HttpFailure("closed", f"connection reset ({exc.__class__.__name__})")
    if isinstance(exc, socket.gaierror):
        return HttpFailure("unreachable", f"cannot resolve host ({exc})")
    if isinstance(exc, OSError) and exc.errno in _UNREACHABLE:
        return HttpFailure("unreachable", exc.strerror or str(exc))
    return HttpFailure("closed", f"{exc.__class__.__name__}: {exc}")


def _silent(limit: float) -> HttpFailure:
    """A reply timeout on a connection made for this request: the node took the connection (so it answers from
    here), the process did not reply. On a reused keep-alive connection the same timeout proves nothing (the
    link may have gone since), so it stays a `timeout`."""
    return HttpFailure("silent", f"connected, no reply within {limit:g} s")


async def _replies(conn: _Connection, paths: list[str], limit: float) -> list[Response]:
    """Every response of ``paths`` on a fresh connection (a reply timeout there is `silent`)."""
    try:
        return [await f for f in conn.request(paths, limit)]
    except HttpFailure as exc:
        if exc.kind == "timeout":
            raise _silent(limit) from None
        raise


class ProbeClient:
    """Keeps one idle keep-alive connection per origin; `get_many` sends a probe's GETs pipelined."""

    def __init__(self, timeout: float = 2.0, connect_timeout: float = 1.0) -> None:
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self._idle: dict[tuple[str, int], _Connection] = {}
        self.connects = 0
        self.requests = 0

    async def _connect(self, host: str, port: int) -> _Connection:
        loop = asyncio.get_running_loop()
        header = (host if port == 80 else f"{host}:{port}").encode("ascii")
        self.connects += 1
        try:
            _, proto = await asyncio.wait_for(
                loop.create_connection(lambda: _Connection(loop, header), host, port),
                self.connect_timeout,
            )
        except (OSError, asyncio.TimeoutError) as exc:
            raise _classify(exc) from None
        return proto

    async def get_many(self, host: str, port: int, paths: list[str], timeout: float | None = None) -> list[Response]:
        """GET every path on one connection (pipelined); all responses, or HttpFailure for the first failure.

        A request on a reused connection that the server had already closed is retried once on a
        fresh one (GETs are idempotent).
        """
        limit = self.timeout if timeout is None else timeout
        key = (host, port)
        conn = self._idle.pop(key, None)
        reused = conn is not None and not conn.closed
        if conn is None or conn.closed:
            conn = await self._connect(host, port)
        self.requests += len(paths)
        try:
            out = [await f for f in conn.request(paths, limit)]
        except HttpFailure as exc:
            if reused and exc.kind == "closed":
                conn = await self._connect(host, port)
                out = await _replies(conn, paths, limit)
            elif not reused and exc.kind == "timeout":
                raise _silent(limit) from None
            else:
                raise
        if conn.reusable and not conn.closed:
            old = self._idle.get(key)
            if old is not None:
                old._abort()
            self._idle[key] = conn
        elif conn.transport is not None:
            conn.transport.close()
        return out

    async def get(self, url: str, timeout: float | None = None) -> Response:
        """One GET of a full ``http://`` URL."""
        o = Origin.parse(url)
        return (await self.get_many(o.host, o.port, [o.path], timeout))[0]

    def close(self) -> None:
        """Close every idle connection."""
        for conn in self._idle.values():
            if conn.transport is not None:
                conn.transport.close()
        self._idle.clear()

    def forget(self, keep: set[tuple[str, int]]) -> None:
        """Close idle connections to origins no longer probed."""
        for key in [k for k in self._idle if k not in keep]:
            conn = self._idle.pop(key)
            if conn.transport is not None:
                conn.transport.close()
