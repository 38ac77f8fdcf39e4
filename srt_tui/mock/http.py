"""A small HTTP/1.1 server layer on asyncio streams: request parsing and response writing.

Only what the Rust routers (hyper/reqwest with connection pooling) and ordinary clients need:
keep-alive, pipelining, Content-Length and chunked request bodies, ``Expect: 100-continue``,
whole responses with Content-Length and chunked streaming responses for SSE.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from email.utils import formatdate
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from srt_tui.bench.wire import (
    HEX_SIZE,
    MAX_HEADER_LINES,
    TOKEN,
    HttpError,
    read_headers,
    read_line,
)

SERVER_NAME = "srt-mock"
MAX_BODY = 64 * 1024 * 1024
MAX_BLANK_LINES = 8
LAST_CHUNK = b"0\r\n\r\n"

_VERSIONS = ("HTTP/1.0", "HTTP/1.1")


@dataclass(frozen=True)
class Request:
    """One parsed HTTP request with its whole body read."""

    method: str
    target: str
    version: str
    headers: dict[str, str]
    body: bytes = b""
    force_close: bool = False
    path: str = field(init=False)
    query: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        split = urlsplit(self.target)
        object.__setattr__(self, "path", unquote(split.path) or "/")
        object.__setattr__(self, "query", dict(parse_qsl(split.query, keep_blank_values=True)))

    @property
    def keep_alive(self) -> bool:
        """Whether the client lets the connection stay open after this request (RFC 9112 §9.3)."""
        if self.force_close:
            return False
        tokens = {t.strip().lower() for t in self.headers.get("connection", "").split(",")}
        if self.version == "HTTP/1.1":
            return "close" not in tokens
        return "keep-alive" in tokens

    def json(self) -> Any:
        """The body decoded as JSON; an empty body is an empty object; invalid JSON is a 400."""
        if not self.body.strip():
            return {}
        try:
            return json.loads(self.body)
        except (ValueError, UnicodeDecodeError) as exc:
            raise HttpError(400, f"invalid JSON body: {exc}") from exc


def _parse_request_line(line: bytes) -> tuple[str, str, str]:
    """Split ``METHOD SP target SP HTTP/x.y`` and check each part."""
    parts = line.split(b" ")
    if len(parts) != 3 or not all(parts):
        raise HttpError(400, "malformed request line")
    method, target, version = parts
    if not TOKEN.match(method):
        raise HttpError(400, "malformed method")
    ver = version.decode("latin-1")
    if not ver.startswith("HTTP/"):
        raise HttpError(400, "malformed HTTP version")
    if ver not in _VERSIONS:
        raise HttpError(505, f"unsupported version {ver}")
    return method.decode("ascii"), target.decode("latin-1"), ver


async def _read_chunked(reader: asyncio.StreamReader, max_body: int) -> bytes:
    """A chunked request body (RFC 9112 §7.1), trailers read and dropped."""
    parts: list[bytes] = []
    size_total = 0
    while True:
        size_field = (await read_line(reader)).split(b";", 1)[0].strip(b" \t")
        if not HEX_SIZE.match(size_field):
            raise HttpError(400, "malformed chunk size")
        size = int(size_field, 16)
        if size == 0:
            break
        size_total += size
        if size_total > max_body:
            raise HttpError(413, "body too large")
        parts.append(await reader.readexactly(size))
        if await read_line(reader):
            raise HttpError(400, "chunk not followed by CRLF")
    for _ in range(MAX_HEADER_LINES):
        if not await read_line(reader):
            return b"".join(parts)
    raise HttpError(431, "too many trailer fields")


async def _maybe_continue(headers: dict[str, str], version: str, writer: asyncio.StreamWriter | None) -> None:
    """Answer ``Expect: 100-continue`` so a client waiting for it sends its body."""
    if writer is not None and version == "HTTP/1.1" and headers.get("expect", "").lower() == "100-continue":
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        await writer.drain()


async def read_request(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter | None = None,
    *,
    max_body: int = MAX_BODY,
) -> Request | None:
    """Read the next request from a connection; None when the peer closed it between requests."""
    line = b""
    for _ in range(MAX_BLANK_LINES):
        try:
            line = await read_line(reader)
        except asyncio.IncompleteReadError as exc:
            if exc.partial.strip():
                raise
            return None
        if line:
            break
    if not line:
        raise HttpError(400, "too many blank lines before request")
    method, target, version = _parse_request_line(line)
    headers = await read_headers(reader)
    body = b""
    force_close = False
    transfer_encoding = headers.get("transfer-encoding")
    if transfer_encoding is not None:
        codings = [c.strip().lower() for c in transfer_encoding.split(",") if c.strip()]
        if not codings or codings[-1] != "chunked" or any(c not in ("chunked", "identity") for c in codings):
            raise HttpError(501, f"unsupported Transfer-Encoding {transfer_encoding!r}")
        force_close = "content-length" in headers
        await _maybe_continue(headers, version, writer)
        body = await _read_chunked(reader, max_body)
    elif "content-length" in headers:
        length_field = headers["content-length"]
        if not (length_field.isascii() and length_field.isdigit()):
            raise HttpError(400, "malformed Content-Length")
        length = int(length_field)
        if length > max_body:
            raise HttpError(413, "body too large")
        if length:
            await _maybe_continue(headers, version, writer)
            body = await reader.readexactly(length)
    return Request(method, target, version, headers, body, force_close)


def encode_chunk(data: bytes) -> bytes:
    """One chunk of a chunked response body."""
    return b"%x\r\n%b\r\n" % (len(data), data)


def status_line(status: int) -> str:
    """``HTTP/1.1 200 OK`` for a status code, with a generic phrase for unknown codes."""
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Unknown"
    return f"HTTP/1.1 {status} {phrase}"


def _bodyless(status: int) -> bool:
    """Statuses that never carry a body."""
    return 100 <= status < 200 or status in (204, 304)


class ResponseWriter:
    """Writes exactly one response on a connection: whole with Content-Length, or streamed chunked."""

    def __init__(self, writer: asyncio.StreamWriter, request: Request, *, keep_alive: bool) -> None:
        self._writer = writer
        self._head_only = request.method == "HEAD"
        self._chunked = request.version == "HTTP/1.1"
        self.keep_alive = keep_alive
        self.status: int | None = None
        self.streaming = False
        self.finished = False

    def _head(self, status: int, headers: Iterable[tuple[str, str]]) -> bytes:
        """Status line and header section."""
        lines = [status_line(status), f"Server: {SERVER_NAME}", f"Date: {formatdate(usegmt=True)}"]
        lines.extend(f"{name}: {value}" for name, value in headers)
        lines.append("Connection: keep-alive" if self.keep_alive else "Connection: close")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    def _claim(self, status: int) -> None:
        """Mark the response as begun; a second response on one request is a programming error."""
        if self.status is not None:
            raise RuntimeError("response already started")
        self.status = status

    async def send(
        self,
        status: int,
        body: bytes = b"",
        content_type: str = "text/plain; charset=utf-8",
        headers: Iterable[tuple[str, str]] = (),
    ) -> None:
        """Send a whole response."""
        self._claim(status)
        fields = [("Content-Type", content_type), ("Content-Length", str(len(body))), *headers]
        payload = self._head(status, fields)
        if not self._head_only and not _bodyless(status):
            payload += body
        self._writer.write(payload)
        await self._writer.drain()
        self.finished = True

    async def send_json(self, status: int, obj: Any, headers: Iterable[tuple[str, str]] = ()) -> None:
        """Send a JSON response."""
        await self.send(status, json.dumps(obj).encode(), "application/json", headers)

    async def start_stream(
        self,
        status: int = 200,
        content_type: str = "text/event-stream; charset=utf-8",
        headers: Iterable[tuple[str, str]] = (),
    ) -> None:
        """Send the head of a streamed response; HTTP/1.0 peers get a close-delimited body instead."""
        self._claim(status)
        self.streaming = True
        fields = [("Content-Type", content_type), ("Cache-Control", "no-cache"), *headers]
        if self._chunked:
            fields.append(("Transfer-Encoding", "chunked"))
        else:
            self.keep_alive = False
        self._writer.write(self._head(status, fields))
        await self._writer.drain()

    async def write(self, data: bytes) -> None:
        """Send one piece of a streamed body (empty pieces are skipped: they would end the body)."""
        if not self.streaming or self.finished:
            raise RuntimeError("write outside a stream")
        if not data or self._head_only:
            return
        self._writer.write(encode_chunk(data) if self._chunked else data)
        await self._writer.drain()

    async def end_stream(self) -> None:
        """Finish a streamed body."""
        if not self.streaming or self.finished:
            raise RuntimeError("end_stream outside a stream")
        if self._chunked and not self._head_only:
            self._writer.write(LAST_CHUNK)
            await self._writer.drain()
        self.finished = True
