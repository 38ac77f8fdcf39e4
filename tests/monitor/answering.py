"""A loopback HTTP server that answers every request `200 ok`: a worker that is up, for the Monitor's probes."""

from __future__ import annotations

import asyncio


async def answering_server() -> tuple[asyncio.Server, int]:
    """A server on 127.0.0.1 answering `200 ok` to each request, and its port."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]
