"""The mock worker process: simulated model loading, the asyncio listener and the connection loop."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from contextlib import suppress

from .config import WorkerConfig
from .http import MAX_LINE, HttpError, Request, ResponseWriter, read_request
from .reqlog import RequestLog
from .routes import MockApp
from .state import WorkerState

EXIT_AFTER_CODE = 3
LISTEN_BACKLOG = 1024
SHUTDOWN_GRACE_S = 2.0


def _say(line: str) -> None:
    """One flushed line on stdout, so a launcher tailing the log sees it at once."""
    print(line, flush=True)


class MockServer:
    """One mock worker: waits out the pretend model load, then serves HTTP until told to stop."""

    def __init__(self, config: WorkerConfig) -> None:
        self.config = config
        self.state = WorkerState.from_config(config)
        self.log = RequestLog(config.log_path) if config.log_path else None
        self.app = MockApp(config, self.state, self.log)
        self.port: int | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopping = False

    async def run(self) -> int:
        """Run until SIGINT/SIGTERM (exit 0) or the exit-after timer (exit 3); returns the exit code."""
        config = self.config
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop.set)
        if config.exit_after_s is not None:
            loop.call_later(config.exit_after_s, self._exit_now)
        _say(config.banner(os.getpid()))
        _say(f"loading model {config.model} (startup delay {config.startup_delay_s:g}s)")
        if config.startup_delay_s > 0 and await _stopped_within(stop, config.startup_delay_s):
            _say("stopped while loading")
            return 0
        try:
            server = await asyncio.start_server(
                self._connection, config.host, config.port, limit=MAX_LINE + 2, backlog=LISTEN_BACKLOG
            )
        except OSError as exc:
            print(
                f"mock worker {config.name}: cannot listen on {config.host}:{config.port}: {exc}",
                file=sys.stderr,
            )
            return 1
        self.port = int(server.sockets[0].getsockname()[1])
        _say(f"ready: {config.name} serving {config.model} on http://{config.host}:{self.port}")
        try:
            await stop.wait()
        finally:
            await self._shutdown(server)
        _say(f"stopped: {config.name}")
        return 0

    async def _shutdown(self, server: asyncio.Server) -> None:
        """Stop listening, close every open connection and the request log."""
        self._stopping = True
        server.close()
        for writer in list(self._writers):
            writer.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=SHUTDOWN_GRACE_S)
        with suppress(asyncio.TimeoutError):
            await asyncio.wait_for(server.wait_closed(), timeout=SHUTDOWN_GRACE_S)
        if self.log is not None:
            self.log.close()

    def _exit_now(self) -> None:
        """Die abruptly, as a crashed engine would (for worker-death tests)."""
        config = self.config
        _say(f"exit-after {config.exit_after_s:g}s reached: {config.name} exits with code {EXIT_AFTER_CODE}")
        if self.log is not None:
            self.log.close()
        os._exit(EXIT_AFTER_CODE)

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


async def _stopped_within(stop: asyncio.Event, seconds: float) -> bool:
    """Wait up to ``seconds`` (the pretend model load); True if a stop signal came first."""
    try:
        await asyncio.wait_for(stop.wait(), timeout=seconds)
    except asyncio.TimeoutError:
        return False
    return True


def serve(config: WorkerConfig) -> int:
    """Run a mock worker in this process; returns its exit code."""
    try:
        return asyncio.run(MockServer(config).run())
    except KeyboardInterrupt:
        return 0
