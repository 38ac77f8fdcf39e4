"""HTTP/1.1 on asyncio streams, the part a client and a server share: reading a line and a header section
within bounds (RFC 9112), and the error that names what was wrong. The bench's client and the mocker's
server layer (`srt_tui.mock.http`) both read with it."""

from __future__ import annotations

import asyncio
import re

MAX_LINE = 64 * 1024
MAX_HEADER_BYTES = 256 * 1024
MAX_HEADER_LINES = 200
TOKEN = re.compile(rb"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
HEX_SIZE = re.compile(rb"^[0-9A-Fa-f]{1,16}$")


class HttpError(Exception):
    """A message that cannot be read as sent: ``status`` is what a server answers (and closes the connection)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


async def read_line(reader: asyncio.StreamReader) -> bytes:
    """One line without its CRLF (or bare LF); EOF raises IncompleteReadError, overlong is a 431."""
    try:
        raw = await reader.readuntil(b"\n")
    except asyncio.LimitOverrunError as exc:
        raise HttpError(431, "line too long") from exc
    if len(raw) > MAX_LINE:
        raise HttpError(431, "line too long")
    raw = raw[:-1]
    return raw[:-1] if raw.endswith(b"\r") else raw


async def read_headers(reader: asyncio.StreamReader) -> dict[str, str]:
    """Header fields up to the empty line, names lower-cased, repeated fields joined with commas."""
    headers: dict[str, str] = {}
    total = 0
    for _ in range(MAX_HEADER_LINES):
        line = await read_line(reader)
        if not line:
            return headers
        total += len(line)
        if total > MAX_HEADER_BYTES:
            raise HttpError(431, "header section too large")
        if line[:1] in (b" ", b"\t"):
            raise HttpError(400, "obsolete header line folding")
        name, sep, value = line.partition(b":")
        if not sep or not TOKEN.match(name):
            raise HttpError(400, "malformed header field")
        key = name.decode("ascii").lower()
        val = value.strip(b" \t").decode("latin-1")
        if key not in headers:
            headers[key] = val
        elif key == "content-length":
            if headers[key] != val:
                raise HttpError(400, "conflicting Content-Length")
        else:
            headers[key] = f"{headers[key]}, {val}"
    raise HttpError(431, "too many header fields")
