"""The mock worker process: simulated model loading, then its app served by a `Listener`."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

from srt_tui.mock.bootstrap import BootstrapApp, Rendezvous
from srt_tui.mock.config import WorkerConfig
from srt_tui.mock.listener import Listener, stop_on_signals
from srt_tui.mock.loadboard import PUBLISH_EVERY_S, RateMeter, WorkerLoad, board_dir, gpus_of, publish, withdraw
from srt_tui.mock.reqlog import RequestLog
from srt_tui.mock.routes import MockApp
from srt_tui.mock.state import WorkerState

EXIT_AFTER_CODE = 3


def _say(line: str) -> None:
    """One flushed line on stdout, so a launcher tailing the log sees it at once."""
    print(line, flush=True)


class MockServer:
    """One mock worker: waits out the pretend model load, then serves HTTP until told to stop."""

    def __init__(self, config: WorkerConfig) -> None:
        self.config = config
        self.state = WorkerState.from_config(config)
        self.log = RequestLog(config.log_path) if config.log_path else None
        #: a prefill's bootstrap server, where its decodes wait for the KV of each request (see `bootstrap`)
        self.rendezvous = Rendezvous() if config.role == "prefill" and config.bootstrap_port else None
        self.bootstrap = Listener(BootstrapApp(self.rendezvous, config.name)) if self.rendezvous else None
        self.app = MockApp(config, self.state, self.log, self.rendezvous)
        self.listener = Listener(self.app)
        self.port: int | None = None

    async def run(self) -> int:
        """Run until SIGINT/SIGTERM (exit 0) or the exit-after timer (exit 3); returns the exit code."""
        config = self.config
        stop = stop_on_signals()
        if config.exit_after_s is not None:
            asyncio.get_running_loop().call_later(config.exit_after_s, self._exit_now)
        _say(config.banner(os.getpid()))
        _say(f"loading model {config.model} (startup delay {config.startup_delay_s:g}s)")
        if config.startup_delay_s > 0 and await _stopped_within(stop, config.startup_delay_s):
            _say("stopped while loading")
            return 0
        try:
            if self.bootstrap is not None and config.bootstrap_port:  # before the HTTP port: no request beats it
                await self.bootstrap.start(config.host, config.bootstrap_port)
                _say(f"bootstrap server on {config.host}:{config.bootstrap_port}")
            port = await self.listener.start(config.host, config.port)
        except OSError as exc:
            print(f"mock worker {config.name}: cannot listen on {config.host}: {exc}", file=sys.stderr)
            await self._shutdown()
            return 1
        self.port = port
        _say(f"ready: {config.name} serving {config.model} on http://{config.host}:{self.port}")
        board = board_dir()
        publisher = asyncio.create_task(self._publish_load(board, port)) if board is not None else None
        try:
            await stop.wait()
        finally:
            if publisher is not None and board is not None:
                publisher.cancel()
                withdraw(board, config.host, port)
            await self._shutdown()
        _say(f"stopped: {config.name}")
        return 0

    async def _publish_load(self, board: Path, port: int) -> None:
        """Tell the node's mock GPU exporter how busy this worker is, every PUBLISH_EVERY_S (see loadboard)."""
        meter = RateMeter()
        gpus = gpus_of(self.config.visible_devices)
        while True:
            now = time.time()
            generation = self.state.generation()
            rate = meter.update(now, generation.ok + generation.failed)
            in_flight, _ = self.state.load()
            load = WorkerLoad(self.config.host, port, os.getpid(), gpus, in_flight, rate, self.state.token_usage, now)
            try:
                publish(board, load)
            except OSError as exc:
                print(f"mock worker {self.config.name}: load board {board}: {exc}", file=sys.stderr)
                return
            await asyncio.sleep(PUBLISH_EVERY_S)

    async def _shutdown(self) -> None:
        """Stop listening, close every open connection and the request log."""
        await self.listener.close()
        if self.bootstrap is not None:
            await self.bootstrap.close()
        if self.app.kv is not None:
            self.app.kv.close()
        if self.log is not None:
            self.log.close()

    def _exit_now(self) -> None:
        """Die abruptly, as a crashed engine would (for worker-death tests)."""
        config = self.config
        _say(f"exit-after {config.exit_after_s:g}s reached: {config.name} exits with code {EXIT_AFTER_CODE}")
        if self.log is not None:
            self.log.close()
        os._exit(EXIT_AFTER_CODE)


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
