"""A minimal HTTP/1.1 client on asyncio streams for the bench: one keep-alive connection per sender.

httpx's shared pool spends milliseconds of CPU per request at high concurrency, so a bench built on
it measures itself; a closed-loop sender owning one connection costs next to nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import urlsplit

from srt_tui.bench.wire import HEX_SIZE, MAX_HEADER_LINES, MAX_LINE, HttpError, read_headers, read_line

READ_SIZE = 65536


class ClientError(Exception):
    """The exchange failed below HTTP: connect, reset, truncated or malformed response."""


@dataclass(frozen=True)
class Origin:
    """Where requests go: scheme, host, port and a path prefix from the base URL."""

    scheme: str
    host: str
    port: int
    prefix: str = ""

    @classmethod
    def parse(cls, url: str) -> Origin:
        """``http://host:port/prefix`` to an Origin; only http and https are accepted."""
        split = urlsplit(url)
        if split.scheme not in ("http", "https") or not split.hostname:
            raise ValueError(f"url must be http(s)://host[:port][/prefix], not {url!r}")
        port = split.port or (443 if split.scheme == "https" else 80)
        return cls(split.scheme, split.hostname, port, split.path.rstrip("/"))

    @property
    def host_header(self) -> str:
        """Value of the Host header."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"


class Connection:
    """One persistent connection; opened on first use and reopened when the server closed it."""

    def __init__(self, origin: Origin) -> None:
        self.origin = origin
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._used = False

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """Connect to the origin."""
        try:
            reader, writer = await asyncio.open_connection(
                self.origin.host, self.origin.port, ssl=self.origin.scheme == "https", limit=MAX_LINE + 2
            )
        except OSError as exc:
            raise ClientError(f"connect to {self.origin.host}:{self.origin.port} failed: {exc}") from exc
        self._reader, self._writer, self._used = reader, writer, False
        return reader, writer

    @property
    def connected(self) -> bool:
        """A connection is open: the server accepted it (a request that then timed out got no reply from a process
        that listens: stopped or overloaded, not cut off)."""
        return self._writer is not None

    def close(self) -> None:
        """Drop the connection; the next request opens a new one."""
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None

    def release(self, keep_alive: bool) -> None:
        """A response was read to its end: keep the connection for the next request or close it."""
        self._used = True
        if not keep_alive:
            self.close()

    async def request(
        self, method: str, path: str, body: bytes = b"", content_type: str = "application/json"
    ) -> Response:
        """Send a request and read the response head; a reused connection found dead is retried once."""
        head = (
            f"{method} {self.origin.prefix}{path} HTTP/1.1\r\nHost: {self.origin.host_header}\r\n"
            f"User-Agent: srt-mock-bench\r\nAccept: */*\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode("latin-1")
        while True:
            reused = self._writer is not None and self._used
            if self._reader is None or self._writer is None:
                reader, writer = await self._open()
            else:
                reader, writer = self._reader, self._writer
            try:
                writer.write(head + body)
                await writer.drain()
                status, version, headers = await _read_head(reader)
            except (ConnectionError, asyncio.IncompleteReadError) as exc:
                self.close()
                if reused:
                    continue
                raise ClientError(f"connection lost: {type(exc).__name__}") from exc
            except HttpError as exc:
                self.close()
                raise ClientError(f"malformed response: {exc.message}") from exc
            return Response(self, reader, method, status, version, headers)


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, str, dict[str, str]]:
    """Status and headers of the final response, skipping interim 1xx responses."""
    for _ in range(MAX_HEADER_LINES):
        line = await read_line(reader)
        parts = line.split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
            raise HttpError(502, f"bad status line {line[:80]!r}")
        status = int(parts[1])
        headers = await read_headers(reader)
        if not 100 <= status < 200 or status == 101:
            return status, parts[0].decode("ascii"), headers
    raise HttpError(502, "too many interim responses")


class Response:
    """A response whose head has been read; the body is read once, whole or piece by piece."""

    def __init__(
        self,
        conn: Connection,
        reader: asyncio.StreamReader,
        method: str,
        status: int,
        version: str,
        headers: dict[str, str],
    ) -> None:
        self._conn = conn
        self._reader = reader
        self._method = method
        self.status = status
        self.headers = headers
        tokens = {t.strip().lower() for t in headers.get("connection", "").split(",")}
        self._keep_alive = "close" not in tokens if version == "HTTP/1.1" else "keep-alive" in tokens

    async def _pieces(self) -> AsyncIterator[bytes]:
        """Body bytes as they arrive, de-chunked; the connection is reused only after a complete body."""
        reader = self._reader
        if self._method == "HEAD" or 100 <= self.status < 200 or self.status in (204, 304):
            return
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            while True:
                size_field = (await read_line(reader)).split(b";", 1)[0].strip()
                if not HEX_SIZE.match(size_field):
                    raise HttpError(502, "malformed chunk size")
                size = int(size_field, 16)
                if size == 0:
                    while await read_line(reader):
                        pass
                    return
                yield await reader.readexactly(size)
                if await read_line(reader):
                    raise HttpError(502, "chunk not followed by CRLF")
        elif "content-length" in self.headers:
            length = self.headers["content-length"]
            if not (length.isascii() and length.isdigit()):
                raise HttpError(502, "malformed Content-Length")
            remaining = int(length)
            while remaining > 0:
                data = await reader.read(min(remaining, READ_SIZE))
                if not data:
                    raise asyncio.IncompleteReadError(b"", remaining)
                remaining -= len(data)
                yield data
        else:
            self._keep_alive = False
            while data := await reader.read(READ_SIZE):
                yield data

    async def iter_bytes(self) -> AsyncIterator[bytes]:
        """The body piece by piece; read it to the end to keep the connection."""
        complete = False
        try:
            async for piece in self._pieces():
                yield piece
            complete = True
        except (ConnectionError, asyncio.IncompleteReadError) as exc:
            raise ClientError(f"connection lost mid-body: {type(exc).__name__}") from exc
        except HttpError as exc:
            raise ClientError(f"malformed response: {exc.message}") from exc
        finally:
            if complete:
                self._conn.release(self._keep_alive)
            else:
                self._conn.close()

    async def read(self) -> bytes:
        """The whole body."""
        return b"".join([piece async for piece in self.iter_bytes()])
