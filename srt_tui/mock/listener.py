"""One HTTP app on one TCP port: the keep-alive connection loop and a graceful close, shared by the
mock worker and the mock GPU exporter so both speak the same HTTP (`http` parses and writes)."""

from __future__ import annotations

import asyncio
import signal
from contextlib import suppress
from typing import Protocol

from srt_tui.bench.wire import MAX_LINE, HttpError
from srt_tui.mock.http import Request, ResponseWriter, read_request

LISTEN_BACKLOG = 1024
SHUTDOWN_GRACE_S = 2.0


class App(Protocol):
    """Anything that answers one parsed request (the worker's MockApp, the exporter's app)."""

    async def serve(self, request: Request, rw: ResponseWriter) -> None:
        """Send exactly one response to ``request``."""


def stop_on_signals() -> asyncio.Event:
    """An event set by SIGINT or SIGTERM (where the loop supports signal handlers)."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    return stop


class Listener:
    """Serves one app on one TCP port: requests in order per connection until either side closes it."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopping = False

    async def start(self, host: str, port: int) -> int:
        """Listen (OSError when the port cannot be bound); returns the bound port."""
        self.server = await asyncio.start_server(
            self._connection, host, port, limit=MAX_LINE + 2, backlog=LISTEN_BACKLOG
        )
        return int(self.server.sockets[0].getsockname()[1])

    async def close(self) -> None:
        """Stop listening and close every open connection."""
        self._stopping = True
        server = self.server
        if server is not None:
            server.close()
        for writer in list(self._writers):
            writer.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=SHUTDOWN_GRACE_S)
        if server is not None:
            with suppress(asyncio.TimeoutError):
                await asyncio.wait_for(server.wait_closed(), timeout=SHUTDOWN_GRACE_S)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Serve requests on one connection in order until either side closes it (or shutdown)."""
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        self._writers.add(writer)
        try:
            while not self._stopping:
                try:
                    request = await read_request(reader, writer)
                except HttpError as exc:
                    await _reject(writer, exc)
                    break
                if request is None:
                    break
                rw = ResponseWriter(writer, request, keep_alive=request.keep_alive and not self._stopping)
                await self.app.serve(request, rw)
                if not (rw.keep_alive and rw.finished):
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            pass  # shutdown: end quietly (a cancelled handler task makes asyncio log noise on 3.10/3.11)
        finally:
            if task is not None:
                self._tasks.discard(task)
            self._writers.discard(writer)
            writer.close()
            with suppress(Exception):
                await writer.wait_closed()


async def _reject(writer: asyncio.StreamWriter, exc: HttpError) -> None:
    """Answer an unparseable request and give up on the connection."""
    request = Request("GET", "/", "HTTP/1.1", {})
    rw = ResponseWriter(writer, request, keep_alive=False)
    with suppress(ConnectionError):
        await rw.send_json(exc.status, {"detail": exc.message})
