"""The bench's HTTP client: keep-alive reuse against a live worker, and recovery from closed connections."""

from __future__ import annotations

import asyncio
import json

import pytest

from srt_tui.bench.client import ClientError, Connection, Origin
from tests.mock.mockprocs import Launcher, Worker


@pytest.fixture(scope="module")
def worker(launcher: Launcher) -> Worker:
    """One worker to talk to."""
    return launcher.wait_worker(launcher.start_worker("regular", name="c0"))


def test_origin_parsing() -> None:
    assert Origin.parse("http://h:8000/api/") == Origin("http", "h", 8000, "/api")
    assert Origin.parse("https://h") == Origin("https", "h", 443, "")
    assert Origin.parse("http://[::1]:9/").host_header == "[::1]:9"
    assert Origin.parse("http://h:80").host_header == "h"
    for bad in ("h:8000", "ftp://h", "http://"):
        with pytest.raises(ValueError):
            Origin.parse(bad)


async def test_one_connection_serves_whole_and_streamed_answers(worker: Worker) -> None:
    conn = Connection(Origin.parse(worker.url))
    try:
        for stream in (False, True, False, True):
            body = json.dumps({"prompt": "a b", "max_tokens": 3, "stream": stream}).encode()
            resp = await conn.request("POST", "/v1/completions", body)
            content = await resp.read()
            assert resp.status == 200
            if stream:
                assert resp.headers["transfer-encoding"] == "chunked"
                assert content.endswith(b"data: [DONE]\n\n")
            else:
                assert json.loads(content)["choices"][0]["text"] == "c0 tok1 tok2"
        missing = await conn.request("GET", "/nope")
        assert missing.status == 404 and json.loads(await missing.read()) == {"detail": "Not Found"}
    finally:
        conn.close()
    paths = worker.stats()["paths"]
    assert paths["/v1/completions"]["ok"] >= 4


async def test_reused_connection_closed_by_the_server_is_retried() -> None:
    connections = 0

    async def close_after_each(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """A peer that answers once per connection and then hangs up without saying so."""
        nonlocal connections
        connections += 1
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(close_after_each, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    conn = Connection(Origin.parse(f"http://127.0.0.1:{port}"))
    try:
        for _ in range(3):
            resp = await conn.request("GET", "/")
            assert (resp.status, await resp.read()) == (200, b"ok")
            await asyncio.sleep(0.05)
    finally:
        conn.close()
        server.close()
        await server.wait_closed()
    assert connections == 3


async def test_close_delimited_body_and_connect_failure() -> None:
    async def http10(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.0 200 OK\r\n\r\nuntil close")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(http10, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    conn = Connection(Origin.parse(f"http://127.0.0.1:{port}"))
    try:
        resp = await conn.request("GET", "/")
        assert await resp.read() == b"until close"
    finally:
        conn.close()
        server.close()
        await server.wait_closed()
    with pytest.raises(ClientError, match="connect to"):
        await Connection(Origin.parse(f"http://127.0.0.1:{port}")).request("GET", "/")
